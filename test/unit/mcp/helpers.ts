import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { editorEntry } from "../../../src/mcp/config/discovery.js";
import { fingerprintServer } from "../../../src/mcp/config/fingerprint.js";
import type { McpServerEntry, McpSource } from "../../../src/mcp/config/types.js";
import { validateServer } from "../../../src/mcp/config/validate.js";
import type { AnyTool, ToolContext, ToolProgress, ToolResult } from "../../../src/tools/types.js";

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(HERE, "../../..");
export const FIXTURES = join(REPO, "test/fixtures/mcp");
export const NODE = process.execPath;
export const EVERYTHING = join(REPO, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = join(REPO, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

export async function makeTempDir(prefix = "mcp-test-"): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

/** A merged entry as discovery would produce it, for manager and trust tests. */
export function entry(
  name: string,
  raw: unknown,
  source: McpSource = "user",
  origin = `/config/${source}.json`,
): McpServerEntry {
  const validation = validateServer(name, raw);
  return {
    name,
    source,
    origin,
    raw,
    fingerprint: fingerprintServer(raw),
    ...(validation.definition ? { definition: validation.definition } : {}),
    errors: validation.errors,
    warnings: validation.warnings,
    overrides: [],
  };
}

export { editorEntry };

export function toolContext(
  signal: AbortSignal = new AbortController().signal,
  progress: ToolProgress[] = [],
): ToolContext {
  return {
    sessionId: "s1",
    toolCallId: "call-1",
    cwd: REPO,
    roots: [REPO],
    backend: {} as ToolContext["backend"],
    signal,
    limits: { shellTimeoutMs: 1000, shellOutputChars: 1000 },
    turn: { id: "t1", state: new Map(), onEnd: () => undefined },
    progress: (event) => progress.push(event),
  };
}

export function findTool(tools: AnyTool[], name: string): AnyTool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(", ")}`);
  return tool;
}

export async function run(tools: AnyTool[], name: string, input: unknown, ctx = toolContext()): Promise<ToolResult> {
  const tool = findTool(tools, name);
  const valid = tool.validate(input);
  if (!valid.success) throw new Error(valid.error);
  return tool.execute(valid.data, ctx);
}

export function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : `[image ${part.mimeType}]`)).join("\n");
}

/** Running, i.e. existing and not a zombie (an orphan's zombie waits for PID 1 to reap it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}

/** A port free on all interfaces (server-everything binds every interface, not just 127.0.0.1). */
async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export type RunningServer = { url: string; child: ChildProcess; stop(): Promise<void> };

/** Starts server-everything in `sse` or `streamableHttp` mode and waits until it listens. */
export async function startEverything(mode: "sse" | "streamableHttp"): Promise<RunningServer> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = spawn(NODE, [EVERYTHING, mode], {
      env: { PATH: process.env.PATH ?? "", PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const started = await new Promise<boolean>((done) => {
      let output = "";
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (/listening on port|running on port/i.test(output)) done(true);
        if (/already in use/i.test(output)) done(false);
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.once("exit", () => done(false));
    });
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGKILL");
      });
    if (started) return { url: `http://127.0.0.1:${port}${mode === "sse" ? "/sse" : "/mcp"}`, child, stop };
    await stop();
  }
  throw new Error(`could not start server-everything ${mode}`);
}
