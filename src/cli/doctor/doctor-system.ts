import packageJson from "../../../package.json" with { type: "json" };
import type { BwrapAvailability } from "../../backends/sandbox/bwrap-sandbox.js";
import type { DoctorNodeFacts, DoctorSandboxFacts } from "./doctor-types.js";

/** `engines.node` of package.json: the Node release lines deep-acp is tested on, e.g. "^20.20.0 || ^22.23.0". */
const REQUIRED_NODE: string = packageJson.engines.node;

/**
 * Below every tested line is an error (deep-acp needs APIs it lacks); between or above them (an odd
 * release, a newer line) is a warning: it probably works, but nothing tested it.
 */
export function collectNodeFacts(version: string, required = REQUIRED_NODE): DoctorNodeFacts {
  const current = version.replace(/^v/, "");
  const ranges = required.split("||").map((range) => range.trim());
  const ok = ranges.some((range) => satisfies(current, range));
  const oldest = ranges.map((range) => range.replace(/^(\^|>=)\s*/, "")).sort(compareVersions)[0] ?? "0";
  const tooOld = compareVersions(current, oldest) < 0;
  const diagnostics: DoctorNodeFacts["diagnostics"] = ok
    ? []
    : tooOld
      ? [{ severity: "error", source: "node", message: `Node ${version} is too old; deep-acp needs ${required}` }]
      : [
          {
            severity: "warning",
            source: "node",
            message: `Node ${version} is not a release deep-acp is tested on (${required}); it may work`,
          },
        ];
  return { version, required, ok: ok || !tooOld, diagnostics };
}

/** `^x.y.z` (same major, at least x.y.z) or `>=x.y.z`. */
function satisfies(version: string, range: string): boolean {
  const caret = /^\^\s*(.+)$/.exec(range);
  if (caret) return major(version) === major(caret[1]!) && compareVersions(version, caret[1]!) >= 0;
  return compareVersions(version, range.replace(/^>=\s*/, "")) >= 0;
}

const major = (version: string) => Number.parseInt(version, 10);

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
