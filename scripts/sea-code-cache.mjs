// `npm run build:binary -- --code-cache`: the binary without a V8 startup snapshot, laid out like the
// npm package (scripts/build.mjs): an early bundle (cli/main.ts up to the early initialize and
// session/new answers) and the rest (every module main.ts imports lazily), two SEA assets sharing
// no module instances. Each is compiled with a V8 code cache this build makes with the very Node the
// binary is, by playing a first turn up to its model request, so the cache holds the code compiled on
// that path (SEA's own `useCodeCache` keeps only the script's outer function). Measured against the snapshot
// in docs/architecture.md, _Start-up_.
import { build } from "esbuild";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";

const REST = "deep-acp-rest:";

// The SEA main: compile each asset with its cache (V8 compiles afresh if it rejects one) and run it
// as a CommonJS function; the early bundle's require() of `deep-acp-rest:<entry>` loads the rest once.
const LOADER = `const { getAsset } = require("node:sea");
const { Script } = require("node:vm");
function load(name) {
  const source = new TextDecoder().decode(getAsset(name + ".cjs"));
  const script = new Script(source, { filename: process.execPath, cachedData: Buffer.from(getAsset(name + ".code-cache")) });
  if (process.env.DEEP_ACP_CODE_CACHE_CHECK) process.stderr.write(name + " code cache rejected: " + script.cachedDataRejected + "\\n");
  const m = { exports: {} };
  script.runInThisContext()(m.exports, earlyRequire, m);
  return m.exports;
}
let rest;
function earlyRequire(id) {
  if (!id.startsWith(${JSON.stringify(REST)})) return require(id);
  rest ??= load("rest");
  return rest[id.slice(${REST.length})]();
}
load("early");
`;

// Run by the build's Node (which the binary is) as the binary runs: a first turn is played against a
// stand-in model server (trainFirstTurn below), and when its model request arrives both caches are
// written, holding the code compiled up to the first answer, not only the modules' top level.
const MAKER = `const { Script } = require("node:vm");
const { readFileSync, writeFileSync } = require("node:fs");
const work = process.argv.splice(2, 1)[0]; // what main.ts parses: no arguments
const scripts = {};
function load(name) {
  const script = (scripts[name] = new Script(readFileSync(work + "/" + name + ".cjs", "utf8"), { filename: process.execPath }));
  const m = { exports: {} };
  script.runInThisContext()(m.exports, earlyRequire, m);
  return m.exports;
}
let rest;
function earlyRequire(id) {
  if (!id.startsWith(${JSON.stringify(REST)})) return require(id);
  rest ??= load("rest");
  return rest[id.slice(${REST.length})]();
}
process.once("message", () => {
  for (const [name, script] of Object.entries(scripts)) writeFileSync(work + "/" + name + ".code-cache", script.createCachedData());
  process.exit(0);
});
load("early");
`;

// initialize, session/new and a prompt sent as soon as session/new is answered, as an editor does;
// the maker is told to write its caches when the prompt's model request reaches the stand-in server.
async function trainFirstTurn(maker, work) {
  const scratch = mkdtempSync(join(tmpdir(), "deep-acp-code-cache-"));
  const home = join(scratch, "home");
  const project = join(scratch, "project");
  mkdirSync(home);
  mkdirSync(project);
  let child;
  const server = createServer((request, response) => {
    if (request.method === "POST") child?.send("write the caches"); // IPC, not a signal: Windows has none
    response.statusCode = 503;
    response.end();
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  try {
    child = spawn(process.execPath, [resolve(maker), resolve(work)], {
      cwd: project,
      stdio: ["pipe", "pipe", "inherit", "ipc"],
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_API_KEY: "code-cache-build",
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
      },
    });
    const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    let buffered = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      buffered += chunk;
      for (let i = buffered.indexOf("\n"); i >= 0; i = buffered.indexOf("\n")) {
        const message = JSON.parse(buffered.slice(0, i));
        buffered = buffered.slice(i + 1);
        if (message.id === 1) send({ id: 2, method: "session/new", params: { cwd: project, mcpServers: [] } });
        if (message.id === 2 && message.result?.sessionId)
          send({
            id: 3,
            method: "session/prompt",
            params: { sessionId: message.result.sessionId, prompt: [{ type: "text", text: "hello" }] },
          });
      }
    });
    send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    // A turn that never reaches the model (a changed default provider, a failing start) fails the build.
    const timer = setTimeout(() => child.kill(), 60_000);
    const code = await new Promise((done) => child.once("exit", done));
    clearTimeout(timer);
    if (code !== 0) throw new Error(`the code cache run exited with ${code} before the first model request`);
  } finally {
    child?.kill();
    server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

const wrap = (source) => `(function (exports, require, module) {${source}\n})`;

/** Builds both bundles, their code caches and the loader into `work`; returns the SEA config's main and assets. */
export async function prepareCodeCache(work, common, schemaIdPlaceholder) {
  const sourceRoot = resolve("src");
  const entries = new Map();
  // Every import() of our own code from the early bundle: a require() of the rest's entry.
  const lazyImportsToRest = {
    name: "lazy-imports-to-rest",
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== "dynamic-import") return undefined;
        const source = join(args.resolveDir, args.path).replace(/\.js$/, ".ts");
        if (!existsSync(source)) return { errors: [{ text: `cannot find ${source} for import("${args.path}")` }] };
        const name = relative(sourceRoot, source).replace(/\.ts$/, "");
        entries.set(name, source);
        return { path: name, namespace: "rest-entry" };
      });
      b.onLoad({ filter: /.*/, namespace: "rest-entry" }, (args) => ({
        loader: "js",
        contents: `module.exports = require(${JSON.stringify(REST + args.path)});`,
      }));
      b.onResolve({ filter: new RegExp(`^${REST}`) }, (args) => ({ path: args.path, external: true }));
    },
  };
  await build({
    ...common,
    entryPoints: ["src/cli/main.ts"],
    outfile: join(work, "early.cjs"),
    plugins: [...common.plugins, lazyImportsToRest],
  });
  const restEntry = [...entries]
    .map(([name, source]) => `${JSON.stringify(name)}: () => require(${JSON.stringify(source)}),`)
    .join("\n");
  await build({
    ...common,
    stdin: { contents: `module.exports = {\n${restEntry}\n};`, resolveDir: process.cwd(), loader: "js" },
    outfile: join(work, "rest.cjs"),
  });
  // The config schema's identity: the rest's code, where the schema and zod are (as in scripts/build.mjs).
  const restCode = readFileSync(join(work, "rest.cjs"), "utf8");
  const schemaId = createHash("sha256").update(restCode).digest("hex");
  for (const name of ["early", "rest"]) {
    const file = join(work, `${name}.cjs`);
    writeFileSync(file, wrap(readFileSync(file, "utf8").replaceAll(schemaIdPlaceholder, schemaId)));
  }
  const maker = join(work, "make-code-cache.cjs");
  writeFileSync(maker, MAKER);
  await trainFirstTurn(maker, work);
  const loader = join(work, "loader.cjs");
  writeFileSync(loader, LOADER);
  const asset = (file) => join(work, file);
  return {
    main: loader,
    assets: Object.fromEntries(
      ["early.cjs", "early.code-cache", "rest.cjs", "rest.code-cache"].map((file) => [file, asset(file)]),
    ),
  };
}
