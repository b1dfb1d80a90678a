import packageJson from "../../package.json" with { type: "json" };
import type { BwrapAvailability } from "../backends/bwrap-sandbox.js";
import type { DoctorNodeFacts, DoctorSandboxFacts } from "./doctor-types.js";

/** `engines.node` of package.json, e.g. ">=20.19". */
const REQUIRED_NODE: string = packageJson.engines.node;

export function collectNodeFacts(version: string): DoctorNodeFacts {
  const minimum = REQUIRED_NODE.replace(/^>=\s*/, "");
  const ok = compareVersions(version.replace(/^v/, ""), minimum) >= 0;
  return {
    version,
    required: REQUIRED_NODE,
    ok,
    diagnostics: ok
      ? []
      : [{ severity: "error", source: "node", message: `Node ${version} is too old; deep-acp needs ${REQUIRED_NODE}` }],
  };
}

export type SandboxFactsOptions = {
  /** `--sandbox`. */
  flag?: "none" | "bwrap";
  /** config.toml `[sandbox].kind` (its default is "none"). */
  configKind: "none" | "bwrap";
  check: () => Promise<BwrapAvailability>;
};

/** Missing bubblewrap only matters when the sandbox is asked for; otherwise it is a hint. */
export async function collectSandboxFacts(options: SandboxFactsOptions): Promise<DoctorSandboxFacts> {
  const kind = options.flag ?? options.configKind;
  const kindSource =
    options.flag !== undefined ? "--sandbox" : options.configKind !== "none" ? "config.toml" : "default";
  const availability = await options.check();
  const bwrap = availability.ok ? { ok: true } : { ok: false, reason: availability.reason };
  if (availability.ok) return { kind, kindSource, bwrap, diagnostics: [] };
  const message = `bubblewrap cannot sandbox commands here: ${availability.reason}`;
  return {
    kind,
    kindSource,
    bwrap,
    diagnostics: [
      kind === "bwrap"
        ? {
            severity: "error",
            source: kindSource,
            message: `${message}; shell commands will fail until it works (or use --sandbox none)`,
          }
        : { severity: "warning", source: "sandbox", message: `${message} (only needed for --sandbox bwrap)` },
    ],
  };
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map((part) => Number.parseInt(part, 10) || 0);
  const pb = b.split(".").map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}
