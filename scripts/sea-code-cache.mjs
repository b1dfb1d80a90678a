// `npm run build:binary -- --code-cache`: the binary without a V8 startup snapshot. Its SEA main is a
// small loader; the bundle is an asset compiled with a V8 code cache that this build makes with the
// very Node the binary is, after loading the serving path (so the cache holds the code of every
// module's top level, not only the bundle's outer function, which is all SEA's own `useCodeCache`
// keeps). Measured against the snapshot in docs/architecture.md, _Start-up_.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

// The bundle as one function of the CommonJS names, so the loader and the cache maker compile the
// very same source (a code cache is checked against its source).
const wrap = (source) => `(function (exports, require, module, __filename, __dirname) {${source}\n})`;

// The SEA main: compile the bundle from its asset with the cache (V8 compiles afresh if it rejects it).
const LOADER = `const { getAsset } = require("node:sea");
const { Script } = require("node:vm");
const source = new TextDecoder().decode(getAsset("deep-acp.cjs"));
const cachedData = Buffer.from(getAsset("deep-acp.code-cache"));
const script = new Script(source, { filename: process.execPath, cachedData });
if (process.env.DEEP_ACP_CODE_CACHE_CHECK) process.stderr.write(\`code cache rejected: \${script.cachedDataRejected}\\n\`);
script.runInThisContext()(exports, require, module, __filename, __dirname);
`;

// Run in a plain Node (the build's, which the binary is): load the bundle as the binary would, let
// cli/main.ts load the serving path (DEEP_ACP_BUILD_CODE_CACHE), then write the cache.
const MAKER = `const { Script } = require("node:vm");
const { readFileSync, writeFileSync } = require("node:fs");
const [source, out] = process.argv.slice(2);
const script = new Script(readFileSync(source, "utf8"), { filename: process.execPath });
script.runInThisContext()(exports, (id) => require(id), module, __filename, __dirname);
globalThis.__deepAcpCodeCacheLoaded.then(() => {
  writeFileSync(out, script.createCachedData());
  process.exit(0);
});
`;

/** Writes the loader, the wrapped bundle and its code cache into `work`; returns the SEA config's main and assets. */
export function prepareCodeCache(work, bundleFile) {
  const wrapped = join(work, "deep-acp.wrapped.cjs");
  writeFileSync(wrapped, wrap(readFileSync(bundleFile, "utf8")));
  const maker = join(work, "make-code-cache.cjs");
  writeFileSync(maker, MAKER);
  const cache = join(work, "deep-acp.code-cache");
  execFileSync(process.execPath, [maker, resolve(wrapped), resolve(cache)], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, DEEP_ACP_BUILD_CODE_CACHE: "1" },
  });
  const loader = join(work, "loader.cjs");
  writeFileSync(loader, LOADER);
  return { main: loader, assets: { "deep-acp.cjs": wrapped, "deep-acp.code-cache": cache } };
}
