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
import {
  chmodSync,
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { deferDockerRequires, jsoncParserEsm, onlyEnglishZodLocales } from "./build-plugins.mjs";

// Every dependency is bundled, so the published package installs as one package with no install
// scripts (`npm install -g` copies ~4 MB instead of resolving ~200 packages). Only the model
// provider SDKs stay outside: they are optional peer dependencies, imported when a bedrock: or
// vertex: model is used (src/model/catalog/optional-packages.ts says what to install when missing).
// ssh2's optional native parts (cpu-features, its sshcrypto.node) are required inside try/catch and
// it falls back to JavaScript without them, as it does when their install scripts did not run.
const optionalPeers = ["@aws-sdk/client-bedrock-runtime", "@smithy/node-http-handler", "google-auth-library"];
const external = [...optionalPeers, "cpu-features", "*.node"];

// Everything but the standalone binary (dist/bin, npm run build:binary), which this build does not make.
for (const entry of existsSync("dist") ? readdirSync("dist") : [])
  if (entry !== "bin") rmSync(join("dist", entry), { recursive: true, force: true });
const common = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  alias: jsoncParserEsm,
  // Smaller code parses faster, and parsing is most of the cold start.
  minify: process.env.DEEP_ACP_NO_MINIFY !== "1",
  keepNames: false,
  sourcemap: "linked",
  legalComments: "none",
  // Bundled CommonJS dependencies call require() for Node built-ins, and some read __dirname (ssh2's
  // poly1305, an emscripten module, at load); give ESM files a real require and the file's folder.
  banner: {
    js: [
      'import { createRequire as __deepAcpCreateRequire } from "node:module";',
      "const require = __deepAcpCreateRequire(import.meta.url);",
      'import { fileURLToPath as __deepAcpFileURLToPath } from "node:url";',
      "const __deepAcpFilename = __deepAcpFileURLToPath(import.meta.url);",
      'const __deepAcpDirname = __deepAcpFileURLToPath(new URL(".", import.meta.url));',
    ].join("\n"),
  },
  define: { __dirname: "__deepAcpDirname", __filename: "__deepAcpFilename" },
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
  define: { ...common.define, __DEEP_ACP_CONFIG_SCHEMA_ID__: JSON.stringify(SCHEMA_ID_PLACEHOLDER) },
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
