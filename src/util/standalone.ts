import { createRequire } from "node:module";

// Whether this process is the standalone binary (a Node single executable application, built by
// scripts/build-binary.mjs) rather than `node dist/deep-acp.js`. The binary is its own launch line:
// its argv[1] is the name it was started by, not a script. node:sea is required at call time, not at
// import, so the startup snapshot holds none of its state.

let standalone: boolean | undefined;

export function isStandaloneBinary(): boolean {
  if (standalone === undefined) {
    try {
      standalone = (createRequire(process.execPath)("node:sea") as { isSea(): boolean }).isSea();
    } catch {
      standalone = false;
    }
  }
  return standalone;
}

/** A file the binary carries (scripts/build-binary.mjs `assets`); undefined outside the binary. */
export function standaloneAsset(name: string): ArrayBuffer | undefined {
  if (!isStandaloneBinary()) return undefined;
  return (createRequire(process.execPath)("node:sea") as { getAsset(key: string): ArrayBuffer }).getAsset(name);
}
