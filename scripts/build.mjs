// Bundles the CLI in two parts.
//
// dist/deep-acp.js is the start-up path alone, in one file: argv, the early handshake and what it
// needs to answer `initialize` and the first `session/new` (config, models). The ESM loader pays per
// file, so one file instead of the two dozen shared chunks code splitting makes of the same modules
// is what lets an editor's first session open close to a bare Node start. Every import() it makes of
// our own code (serve, subcommands, the config schema, model clients) goes to dist/lazy/.
//
// dist/lazy/ and dist/chunks/ are the rest: each module the start-up file imports lazily is an entry
// there, code-split, with the ACP SDK, zod and our session layer. The two parts share no module
// instances (the start-up file has its own copies of the few modules it needs); what crosses from
// one to the other is plain data (options, the early handshake's bytes and answers) and the logger.
//
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

// Every dependency is bundled, so the published package installs as one package with no install
// scripts (`npm install -g` copies ~4 MB instead of resolving ~200 packages). Only the model
// provider SDKs stay outside: they are optional peer dependencies, imported when a bedrock: or
// vertex: model is used (src/model/providers/optional-package.ts says what to install when missing).
// ssh2's optional native parts (cpu-features, its sshcrypto.node) are required inside try/catch and
// it falls back to JavaScript without them, as it does when their install scripts did not run.
const optionalPeers = ["@aws-sdk/client-bedrock-runtime", "@smithy/node-http-handler", "google-auth-library"];
const external = [...optionalPeers, "cpu-features", "*.node"];

// dockerode is bundled (into the rest, loaded with the first container workspace), but two of its
// require()s run only when used: its BuildKit support (gRPC and protobuf, which deep-acp never uses)
// and docker-modem's ssh:// transport (ssh2). Required at load, they made dockerode take ~5x as
// long to import (80 vs 400 ms here), all of it on the way to a container session's first answer.
const deferDockerRequires = {
  name: "defer-docker-requires",
  setup(build) {
    const deferred = {
      "./session": ["dockerode", "dockerode/lib/session.js"],
      "./buildkit": ["dockerode", "dockerode/lib/buildkit.js"],
      "./ssh": ["docker-modem", "docker-modem/lib/ssh.js"],
    };
    build.onResolve({ filter: /^\.\/(session|buildkit|ssh)$/ }, (args) => {
      const [pkg, file] = deferred[args.path];
      if (!args.importer.includes(`${join("node_modules", pkg)}/`)) return undefined;
      return { path: file, namespace: "deferred-require", pluginData: { pkg } };
    });
    build.onLoad({ filter: /.*/, namespace: "deferred-require" }, (args) => ({
      loader: "js",
      // Resolved from dockerode's own folder, wherever npm put docker-modem.
      contents: `const { createRequire } = require("node:module");
let loaded;
module.exports = function (...args) {
  loaded ??= createRequire(require.resolve("dockerode"))(${JSON.stringify(args.path)});
  return loaded.apply(this, args);
};`,
    }));
  },
};

// zod re-exports every message locale (~260 KB, more than half of zod) for `z.locales.*`; nothing
// here uses them and the default (English) is imported directly, so they are left out of the bundle.
const onlyEnglishZodLocales = {
  name: "only-english-zod-locales",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      loader: "js",
      resolveDir: fileURLToPath(new URL("../node_modules/zod/v4/locales", import.meta.url)),
    }));
  },
};

rmSync("dist", { recursive: true, force: true });
const common = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  // jsonc-parser's "main" is a UMD build whose inner require()s esbuild cannot follow; use its ESM build.
  // Absolute, so a build from another folder (the packaging test's stage) finds it too.
  alias: { "jsonc-parser": fileURLToPath(new URL("../node_modules/jsonc-parser/lib/esm/main.js", import.meta.url)) },
  // Smaller code parses faster, and parsing is most of the cold start.
  minify: process.env.DEEP_ACP_NO_MINIFY !== "1",
  keepNames: false,
  sourcemap: "linked",
  legalComments: "none",
  // Bundled CommonJS dependencies call require() for Node built-ins; give ESM files a real one.
  banner: {
    js: 'import { createRequire as __deepAcpCreateRequire } from "node:module";\nconst require = __deepAcpCreateRequire(import.meta.url);',
  },
  logLevel: "warning",
  metafile: true,
};

// Our modules the start-up file imports lazily: entry name in dist/ -> source file. Names are
// relative to the real src/ (the packaging test builds in a folder where src/ is a link).
const sourceRoot = realpathSync("src");
const lazyEntries = new Map();
const lazyImportsToRest = {
  name: "lazy-imports-to-rest",
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      const source = join(args.resolveDir, args.path).replace(/\.js$/, ".ts");
      if (!existsSync(source)) return { errors: [{ text: `cannot find ${source} for import("${args.path}")` }] };
      const name = `lazy/${relative(sourceRoot, source).replace(/\.ts$/, "")}`;
      lazyEntries.set(name, source);
      return { path: `./${name}.js`, external: true };
    });
  },
};
// Replaced below by a hash of the rest's code (src/config/schema-id.ts); as long as it, so the source
// map still fits.
const SCHEMA_ID_PLACEHOLDER = "0".repeat(64);
const startup = await build({
  ...common,
  entryPoints: { "deep-acp": "src/cli/main.ts" },
  outdir: "dist",
  define: { __DEEP_ACP_CONFIG_SCHEMA_ID__: JSON.stringify(SCHEMA_ID_PLACEHOLDER) },
  plugins: [onlyEnglishZodLocales, lazyImportsToRest],
  banner: { js: `#!/usr/bin/env node\n${common.banner.js}` },
});
const rest = await build({
  ...common,
  entryPoints: Object.fromEntries(lazyEntries),
  outdir: "dist",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  plugins: [onlyEnglishZodLocales, deferDockerRequires],
});
// The config schema's identity in this build: the rest's code, where the schema and zod are.
const restHash = createHash("sha256");
for (const file of Object.keys(rest.metafile.outputs)
  .filter((f) => f.endsWith(".js"))
  .sort())
  restHash.update(file).update(readFileSync(file));
const startupFile = readFileSync("dist/deep-acp.js", "utf8");
if (!startupFile.includes(SCHEMA_ID_PLACEHOLDER)) throw new Error("dist/deep-acp.js lacks the config schema id");
writeFileSync("dist/deep-acp.js", startupFile.replace(SCHEMA_ID_PLACEHOLDER, restHash.digest("hex")));
chmodSync("dist/deep-acp.js", 0o755);
// The interpreter's WebAssembly, read by src/interpreter/quickjs/wasm-file.ts from dist/.
copyFileSync(
  fileURLToPath(
    new URL("../node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm", import.meta.url),
  ),
  "dist/quickjs.wasm",
);
const size = (result) => Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
process.stderr.write(
  `built dist/deep-acp.js (${Math.round(size(startup) / 1024)} KiB) and the rest (${Math.round(size(rest) / 1024)} KiB with chunks)\n`,
);
