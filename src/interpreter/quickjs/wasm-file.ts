import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { standaloneAsset } from "../../util/standalone.js";

// Where the QuickJS WebAssembly is. The published package bundles the QuickJS packages, so their
// folder is not installed: the build copies the .wasm to dist/quickjs.wasm, and this module (in some
// chunk below dist/) finds it there. From sources (tests, tsx) it is the package's own file. The
// standalone binary carries it as an asset.

export async function quickjsWasmBytes(): Promise<Uint8Array> {
  const asset = standaloneAsset("quickjs.wasm");
  return asset ? new Uint8Array(asset) : readFile(quickjsWasmFile());
}

export function quickjsWasmFile(moduleUrl: string = import.meta.url): string {
  const path = moduleUrl.startsWith("file:") ? fileURLToPath(moduleUrl) : "";
  for (let dir = dirname(path); path !== "" && dir !== dirname(dir); dir = dirname(dir)) {
    if (basename(dir) !== "dist") continue;
    const bundled = join(dir, "quickjs.wasm");
    if (existsSync(bundled)) return bundled;
    break;
  }
  return createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
}
