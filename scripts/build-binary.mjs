// `npm run build:binary`: the standalone binary dist/bin/deep-acp-<platform>-<arch>[.exe], a Node
// single executable application (SEA) of the running Node, so a user needs no Node of their own.
//
// 1. esbuild bundles the agent as CommonJS (a SEA's scripts may require() only Node's built-ins):
//    an early bundle and the rest, each with a V8 code cache made by this very Node playing a first
//    turn (scripts/sea-code-cache.mjs), carried as assets beside the interpreter's worker bundle and
//    the QuickJS WebAssembly; the SEA's main is a small loader. The binary is this Node, so the
//    caches always fit it (V8 compiles afresh, never fails, if one did not).
// 2. `node --experimental-sea-config` writes the blob. With `--snapshot` (measured, not kept) it
//    instead runs the whole bundle into a V8 startup snapshot of the serving path (main.ts loads what
//    an ACP session needs, then waits for the binary's start).
// 3. postject injects the blob into a copy of this Node binary.
//
// The AWS and Google SDKs (optional in the npm package) are not in the binary: a bedrock: or
// vertex: model says to use the npm package (src/model/catalog/optional-packages.ts).
// Other platforms: run this on that platform (the release workflow's matrix); a SEA is built from
// the Node that runs the build.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { jsoncParserEsm, onlyEnglishZodLocales } from "./build-plugins.mjs";
import { prepareCodeCache } from "./sea-code-cache.mjs";

const started = Date.now();
// `--snapshot`: the V8 startup snapshot of the serving path instead of the code caches (measured, not
// kept: docs/architecture.md, _Start-up_).
const useSnapshot = process.argv.includes("--snapshot");
const optionalPeers = ["@aws-sdk/client-bedrock-runtime", "@smithy/node-http-handler", "google-auth-library"];
const work = join("dist", "sea");
const exe = process.platform === "win32" ? ".exe" : "";
const binary = join("dist", "bin", `deep-acp-${process.platform}-${process.arch}${exe}`);
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
mkdirSync(join("dist", "bin"), { recursive: true });

// What Node says for a package that is not installed, so importOptional() names what to install.
const optionalPeersMissing = {
  name: "optional-peers-missing",
  setup(build) {
    const filter = new RegExp(`^(${optionalPeers.map((p) => p.replace(/[/.]/g, "\\$&")).join("|")})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: "optional-peer" }));
    build.onLoad({ filter: /.*/, namespace: "optional-peer" }, (args) => ({
      loader: "js",
      contents: `const error = new Error(${JSON.stringify(`Cannot find package '${args.path}' (the standalone binary does not carry it; the npm package does)`)});
error.code = "ERR_MODULE_NOT_FOUND";
throw error;`,
    }));
  },
};

// Replaced below by a hash of the bundle (src/config/schema-id.ts: a config check kept by another
// build is never taken for this one's).
const SCHEMA_ID_PLACEHOLDER = "0".repeat(64);
// dockerode's BuildKit support (gRPC, protobuf) and docker-modem's ssh:// transport, which the
// package build defers to a require() from dockerode's folder (build-plugins.mjs): deep-acp uses
// neither, and the binary has no folder to require from.
const dockerExtrasUnavailable = {
  name: "docker-extras-unavailable",
  setup(build) {
    build.onResolve({ filter: /^\.\/(session|buildkit|ssh)$/ }, (args) => {
      if (!/[\\/]node_modules[\\/](dockerode|docker-modem)[\\/]/.test(args.importer)) return undefined;
      return { path: args.path, namespace: "docker-extra" };
    });
    build.onLoad({ filter: /.*/, namespace: "docker-extra" }, (args) => ({
      loader: "js",
      contents: `module.exports = function () { throw new Error("dockerode ${args.path} is not in the standalone binary"); };`,
    }));
  },
};

const common = {
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external: ["cpu-features", "*.node"],
  alias: jsoncParserEsm,
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  // import.meta.url of every bundled module: the binary's own path, read when used (not when the
  // snapshot is built, whose Node is elsewhere).
  define: {
    "import.meta.url": "__deepAcpModuleUrl",
    __DEEP_ACP_CONFIG_SCHEMA_ID__: JSON.stringify(SCHEMA_ID_PLACEHOLDER),
  },
  banner: {
    js: `Object.defineProperty(globalThis, "__deepAcpModuleUrl", { configurable: true, get: () => require("node:url").pathToFileURL(process.execPath).href });`,
  },
  plugins: [onlyEnglishZodLocales, dockerExtrasUnavailable, optionalPeersMissing],
};
await build({ ...common, entryPoints: ["src/cli/main.ts"], outfile: join(work, "deep-acp.cjs") });
const main = join(work, "deep-acp.cjs");
const bundle = readFileSync(main, "utf8");
const schemaId = createHash("sha256").update(bundle).digest("hex");
writeFileSync(main, bundle.replaceAll(SCHEMA_ID_PLACEHOLDER, schemaId));
await build({
  ...common,
  entryPoints: ["src/interpreter/worker/worker-entry.ts"],
  outfile: join(work, "interpreter-worker.cjs"),
});
const wasm = fileURLToPath(
  new URL("../node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm", import.meta.url),
);
// The early and the rest bundles as assets with code caches (scripts/sea-code-cache.mjs).
const codeCache = useSnapshot ? { main, assets: {} } : await prepareCodeCache(work, common, SCHEMA_ID_PLACEHOLDER);
const config = {
  main: codeCache.main,
  output: join(work, "sea-prep.blob"),
  disableExperimentalSEAWarning: true,
  useSnapshot,
  assets: {
    "quickjs.wasm": wasm,
    "interpreter-worker.cjs": join(work, "interpreter-worker.cjs"),
    ...codeCache.assets,
  },
};
writeFileSync(join(work, "sea-config.json"), JSON.stringify(config, null, 2));
execFileSync(process.execPath, ["--experimental-sea-config", join(work, "sea-config.json")], { stdio: "inherit" });

rmSync(binary, { force: true });
copyFileSync(process.execPath, binary);
chmodSync(binary, 0o755);
if (process.platform === "darwin") execFileSync("codesign", ["--remove-signature", binary]);
const postject = fileURLToPath(new URL("../node_modules/postject/dist/cli.js", import.meta.url));
execFileSync(
  process.execPath,
  [
    postject,
    binary,
    "NODE_SEA_BLOB",
    config.output,
    "--sentinel-fuse",
    "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2",
    ...(process.platform === "darwin" ? ["--macho-segment-name", "NODE_SEA"] : []),
  ],
  { stdio: ["ignore", "ignore", "inherit"] },
);
if (process.platform === "darwin") execFileSync("codesign", ["--sign", "-", binary]);
const mb = (file) => (statSync(file).size / 1024 / 1024).toFixed(1);
process.stderr.write(
  `built ${binary} (${mb(binary)} MB, SEA blob ${mb(config.output)} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
