// The release's binary archives and the ACP registry entry that names them.
//
//   node scripts/release-manifest.mjs archive <platform-arch>   dist/bin/deep-acp-<target>[.exe] ->
//                                                              dist/release/deep-acp-<version>-<target>.tar.gz (.zip on Windows)
//   node scripts/release-manifest.mjs manifest <tag> <dir>      acp-manifest.json with each archive in <dir>
//                                                              given its sha256, printed to stdout
//
// acp-manifest.json (committed) names every target's archive URL and command; only the release
// build knows the archives' bytes, so sha256 is filled here. A target whose archive is not in
// <dir> is an error: the registry would send users to a missing download.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

const [command, ...args] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync("acp-manifest.json", "utf8"));

if (command === "archive") {
  const [target] = args;
  const exe = target.startsWith("win32-") ? ".exe" : "";
  const binary = `deep-acp-${target}${exe}`;
  if (!existsSync(join("dist", "bin", binary))) throw new Error(`dist/bin/${binary} is missing: npm run build:binary`);
  mkdirSync(join("dist", "release"), { recursive: true });
  const archive = join("dist", "release", `deep-acp-${manifest.version}-${target}${exe ? ".zip" : ".tar.gz"}`);
  // tar makes both: bsdtar (macOS, Windows) writes zip with -a; GNU tar on Linux never sees .zip.
  execFileSync("tar", [exe ? "-a" : "-z", "-cf", archive, "-C", join("dist", "bin"), binary], { stdio: "inherit" });
  process.stdout.write(`${archive}\n`);
} else if (command === "manifest") {
  const [tag, dir] = args;
  if (tag !== `v${manifest.version}`) throw new Error(`tag ${tag} is not v${manifest.version} (acp-manifest.json)`);
  for (const [platform, target] of Object.entries(manifest.distribution.binary ?? {})) {
    const file = join(dir, basename(new URL(target.archive).pathname));
    if (!existsSync(file)) throw new Error(`${platform}: ${file} was not built`);
    target.sha256 = createHash("sha256").update(readFileSync(file)).digest("hex");
  }
  process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
} else {
  process.stderr.write("usage: release-manifest.mjs archive <platform-arch> | manifest <tag> <dir>\n");
  process.exit(2);
}
