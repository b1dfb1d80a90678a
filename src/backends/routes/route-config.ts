import { isAbsolute } from "node:path";
import type { Diagnostic, Loaded } from "../../util/diagnostics.js";
import { InvalidRouteError, normaliseRoutePrefix } from "./composite-backend.js";
import { createFilesystemBackend } from "../local/filesystem-backend.js";
import type { BackendProtocol } from "../protocol.js";

// config.toml `[backends].routes`: prefix -> "state" | "store" | "filesystem:<absolute dir>".
// Bad entries become diagnostics and are left out; the rest still mount.

export type RouteFactories = {
  /** A session-scoped backend for one route (each route gets its own, so keys cannot collide). */
  state(prefix: string): BackendProtocol;
  /** A cross-session backend for one route. */
  store(prefix: string): BackendProtocol;
};

export function buildRouteBackends(
  spec: Record<string, string>,
  factories: RouteFactories,
  source = "config.toml [backends].routes",
): Loaded<Record<string, BackendProtocol>> {
  const items: Record<string, BackendProtocol> = {};
  const diagnostics: Diagnostic[] = [];
  for (const [rawPrefix, kind] of Object.entries(spec)) {
    let prefix: string;
    try {
      prefix = normaliseRoutePrefix(rawPrefix);
    } catch (error) {
      diagnostics.push({
        severity: "error",
        source,
        message: `${(error as InvalidRouteError).message} (route ignored)`,
      });
      continue;
    }
    if (prefix in items) {
      diagnostics.push({
        severity: "warning",
        source,
        message: `route ${JSON.stringify(rawPrefix)} repeats ${prefix} (later entry ignored)`,
      });
      continue;
    }
    if (kind === "state") items[prefix] = factories.state(prefix);
    else if (kind === "store") items[prefix] = factories.store(prefix);
    else if (kind.startsWith("filesystem:") && isAbsolute(kind.slice("filesystem:".length))) {
      items[prefix] = createFilesystemBackend({ rootDir: kind.slice("filesystem:".length), virtualMode: true });
    } else {
      diagnostics.push({
        severity: "error",
        source,
        message: `route ${prefix}: unknown backend ${JSON.stringify(kind)}; use "state", "store" or "filesystem:<absolute dir>" (route ignored)`,
      });
    }
  }
  return { items, diagnostics };
}
