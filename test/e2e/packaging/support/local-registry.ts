import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

// An npm registry on 127.0.0.1 serving the production dependencies exactly as `npm ci` installed
// them in this checkout's node_modules (each folder packed into a tarball). Installing the packed
// deep-acp against it needs neither the network nor whatever npm's own cache happens to hold, so
// the packaging test runs from any clean clone after `npm ci`, with any HOME or npm cache.

const run = promisify(execFile);

export type LocalRegistry = { url: string; packages: number; close(): Promise<void> };

type Manifest = { name: string; version: string; [key: string]: unknown };
type Version = { manifest: Manifest; file: string; integrity: string };

/** Packs every non-dev package of `repo`'s package-lock.json found in its node_modules into `dir`. */
export async function startLocalRegistry(repo: string, dir: string): Promise<LocalRegistry> {
  await mkdir(dir, { recursive: true });
  const lock = JSON.parse(await readFile(join(repo, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const byName = new Map<string, Map<string, Version>>();
  const tarballs = new Map<string, string>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith("node_modules/") || entry.dev) continue;
    const folder = join(repo, path);
    // Optional packages for other platforms are in the lock but not installed; npm skips them too.
    if (!existsSync(join(folder, "package.json"))) continue;
    const manifest = JSON.parse(await readFile(join(folder, "package.json"), "utf8")) as Manifest;
    const versions = byName.get(manifest.name) ?? new Map<string, Version>();
    byName.set(manifest.name, versions);
    if (versions.has(manifest.version)) continue;
    const file = `${manifest.name.replace("/", "__")}-${manifest.version}.tgz`;
    const tarball = join(dir, file);
    // npm takes a tarball's single top folder as the package, whatever its name; nested installs stay out.
    await run("tar", [
      "-czf",
      tarball,
      "--exclude=node_modules",
      "-C",
      dirname(folder),
      folder.slice(dirname(folder).length + 1),
    ]);
    const bytes = await readFile(tarball);
    tarballs.set(file, tarball);
    versions.set(manifest.version, {
      manifest: cleanManifest(manifest),
      file,
      integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
    });
  }

  let base = "";
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = decodeURIComponent((request.url ?? "/").split("?")[0]!);
      const tarball = url.startsWith("/-/tarballs/") ? tarballs.get(url.slice("/-/tarballs/".length)) : undefined;
      if (tarball) {
        response.writeHead(200, { "content-type": "application/octet-stream" }).end(await readFile(tarball));
        return;
      }
      const versions = byName.get(url.slice(1));
      if (!versions) {
        response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
        return;
      }
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(packument(url.slice(1), versions, base)));
    })().catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    packages: tarballs.size,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What the registry says about a package: every version we hold, the highest as `latest`. */
function packument(name: string, versions: Map<string, Version>, base: string) {
  const entries = [...versions.values()];
  const latest = entries
    .map((v) => v.manifest.version)
    .sort(compareVersions)
    .at(-1)!;
  return {
    name,
    "dist-tags": { latest },
    versions: Object.fromEntries(
      entries.map((v) => [
        v.manifest.version,
        {
          ...v.manifest,
          dist: { tarball: `${base}/-/tarballs/${encodeURIComponent(v.file)}`, integrity: v.integrity },
        },
      ]),
    ),
  };
}

/** Installed manifests may carry npm's bookkeeping (`_resolved`, `_integrity`, ...) that would contradict ours. */
function cleanManifest(manifest: Manifest): Manifest {
  return Object.fromEntries(Object.entries(manifest).filter(([key]) => !key.startsWith("_"))) as Manifest;
}

function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[.+-]/).slice(0, 3).map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}
