// Bundles the CLI into dist/deep-acp.js. The startup path (ACP SDK, zod, our code) is bundled so
// `initialize` is answered without resolving hundreds of modules; heavy, lazily used packages stay
// external and are loaded with dynamic import() only when a session needs them.
import { build } from "esbuild";
import { chmodSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const external = [
  "@modelcontextprotocol/sdk",
  "@modelcontextprotocol/sdk/*",
  "quickjs-emscripten-core",
  "@jitl/quickjs-wasmfile-release-sync",
  "chokidar",
  "sucrase",
  // Model provider SDKs, imported only when a bedrock: or vertex: model is used.
  "@aws-sdk/*",
  "@smithy/*",
  "google-auth-library",
  // SSH remote workspaces only; imported when a session connects.
  "ssh2",
];

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
const result = await build({
  entryPoints: { "deep-acp": "src/cli/main.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "chunks/[name]-[hash]",
  external,
  plugins: [onlyEnglishZodLocales],
  // jsonc-parser's "main" is a UMD build whose inner require()s esbuild cannot follow; use its ESM build.
  // Absolute, so a build from another folder (the packaging test's stage) finds it too.
  alias: { "jsonc-parser": fileURLToPath(new URL("../node_modules/jsonc-parser/lib/esm/main.js", import.meta.url)) },
  // Smaller code parses faster, and parsing is most of the cold start.
  minify: process.env.DEEP_ACP_NO_MINIFY !== "1",
  keepNames: false,
  sourcemap: "linked",
  legalComments: "none",
  // Bundled CommonJS dependencies call require() for Node built-ins; give ESM chunks a real one.
  banner: {
    js: '#!/usr/bin/env node\nimport { createRequire as __deepAcpCreateRequire } from "node:module";\nconst require = __deepAcpCreateRequire(import.meta.url);',
  },
  logLevel: "warning",
  metafile: true,
});
chmodSync("dist/deep-acp.js", 0o755);
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
process.stderr.write(`built dist/deep-acp.js (${Math.round(bytes / 1024)} KiB with chunks)\n`);
