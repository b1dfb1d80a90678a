import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMcpManager, type McpManager, type McpManagerOptions } from "../../../src/mcp/servers/manager.js";
import { createMcpTrustResolver, type McpTrustDecider } from "../../../src/mcp/trust/trust.js";
import { createMcpTrustStore } from "../../../src/mcp/trust/trust-store.js";
import type { McpServerEntry } from "../../../src/mcp/config/types.js";
import { pollUntil } from "../../support/poll.js";
import { entry, FIXTURES, findTool, makeTempDir, NODE, processAlive, run, textOf, toolContext } from "./helpers.js";

const FIXTURE = join(FIXTURES, "fixture-server.mjs");
const STUBBORN = join(FIXTURES, "stubborn-server.mjs");
const HANG = join(FIXTURES, "hang-server.mjs");

describe("server lifecycle", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let marker: string;
  const managers: McpManager[] = [];

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    marker = join(dir, "marker.log");
  });
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.close()));
    await cleanup();
  });

  function make(
    entries: McpServerEntry[],
    extra: Partial<McpManagerOptions> & { decide?: McpTrustDecider; trustProjectServers?: boolean } = {},
  ) {
    const { decide, trustProjectServers, ...rest } = extra;
    const trust = createMcpTrustResolver({
      store: createMcpTrustStore({ stateDir: join(dir, "state") }),
      projectRoot: dir,
      ...(decide ? { decide } : {}),
      ...(trustProjectServers ? { trustProjectServers } : {}),
    });
    const manager = createMcpManager({
      entries,
      trust,
      stateDir: join(dir, "state"),
      env: { PATH: process.env.PATH, FIXTURE_MARKER: marker },
      stdinGraceMs: 300,
      termGraceMs: 300,
      ...rest,
    });
    managers.push(manager);
    return manager;
  }
  const fixture = (name = "fx", extra: Record<string, unknown> = {}) =>
    entry(name, { command: NODE, args: [FIXTURE], env: { FIXTURE_MARKER: "${FIXTURE_MARKER}" }, ...extra });
  const markerLines = async () => (await readFile(marker, "utf8").catch(() => "")).split("\n").filter(Boolean);

  it("a server that exits mid-call fails that call clearly and turns to error", async () => {
    const manager = make([fixture()]);
    manager.start();
    await manager.ready();
    const changes: string[] = [];
    manager.onChange(() => changes.push(manager.describe()[0]!.status));
    const result = await run(manager.tools(), "fx_crash", {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /fx: crash failed: MCP server "fx" stopped during the call \(exited with code 3; stderr: fixture: about to crash\)/,
    );
    const report = manager.describe()[0]!;
    expect(report).toMatchObject({ status: "error", reason: expect.stringMatching(/exited with code 3/) });
    expect(changes).toContain("error");
    expect(manager.tools()).toEqual([]);
  });

  it("sends MCP cancellation when the turn aborts, and on call timeout", async () => {
    const manager = make([fixture()], { callTimeoutMs: 400 });
    manager.start();
    await manager.ready();
    const controller = new AbortController();
    const pending = run(manager.tools(), "fx_slow", {}, toolContext(controller.signal));
    await pollUntil(async () => (await markerLines()).includes("slow started"), "the slow call to start");
    controller.abort();
    expect(textOf(await pending)).toMatch(/cancelled/);
    await pollUntil(async () => (await markerLines()).includes("slow cancelled"), "the server to see the cancellation");

    const timedOut = await run(manager.tools(), "fx_slow", {});
    expect(timedOut.isError).toBe(true);
    expect(textOf(timedOut)).toMatch(/timed out/);
    await pollUntil(
      async () => (await markerLines()).filter((l) => l === "slow cancelled").length === 2,
      "the server to see the second cancellation",
    );
    expect(manager.describe()[0]!.status).toBe("ok");
  });

  it("passes isError results to the model as failures and honours coherent hints only", async () => {
    const manager = make([fixture()]);
    manager.start();
    await manager.ready();
    const failed = await run(manager.tools(), "fx_fail", {});
    expect(failed).toMatchObject({ isError: true, content: [{ type: "text", text: "the widget is broken" }] });
    expect(findTool(manager.tools(), "fx_echo").effect).toBe("read");
    expect(findTool(manager.tools(), "fx_destructive-reader").effect).toBe("external");
    expect(findTool(manager.tools(), "fx_pid").effect).toBe("external");
  });

  it("close() kills a server that ignores SIGTERM and stdin EOF, and its helper, leaving no orphan", async () => {
    const manager = make([entry("stubborn", { command: NODE, args: [STUBBORN] })]);
    manager.start();
    await manager.ready();
    const pids = JSON.parse(textOf(await run(manager.tools(), "stubborn_pids", {}))) as {
      server: number;
      helper: number;
    };
    expect(processAlive(pids.server)).toBe(true);
    expect(processAlive(pids.helper)).toBe(true);
    await manager.close();
    expect(processAlive(pids.server)).toBe(false);
    expect(processAlive(pids.helper)).toBe(false);
  });

  it("a hanging server times out without blocking the others", async () => {
    const manager = make([entry("hang", { command: NODE, args: [HANG] }), fixture()], { connectTimeoutMs: 5000 });
    manager.start();
    await manager.ready();
    const [hang, fx] = manager.describe();
    // Generous: the healthy server must start within the same limit on a loaded machine.
    expect(hang).toMatchObject({ status: "error", reason: "timed out after 5s" });
    expect(fx!.status).toBe("ok");
    expect(hang!.pid).toBeUndefined();
  });

  it("reports a missing command, a missing variable and an invalid definition per server", async () => {
    const manager = make([
      entry("nope", { command: "definitely-not-a-command-xyz" }),
      entry("novar", { command: NODE, args: ["${NOT_SET_ANYWHERE}"] }),
      entry("invalid", { command: 42 }),
      fixture(),
    ]);
    manager.start();
    await manager.ready();
    const byName = Object.fromEntries(manager.describe().map((r) => [r.name, r]));
    expect(byName.nope).toMatchObject({ status: "error", reason: "command not found: definitely-not-a-command-xyz" });
    expect(byName.novar).toMatchObject({
      status: "error",
      reason: "args[0]: environment variable NOT_SET_ANYWHERE is not set",
    });
    expect(byName.invalid).toMatchObject({
      status: "error",
      reason: expect.stringMatching(/invalid definition: "command" must be/),
    });
    expect(byName.fx!.status).toBe("ok");
  });

  it("names a missing working directory instead of blaming the command", async () => {
    const manager = make([fixture()], { cwd: join(dir, "does-not-exist") });
    manager.start();
    await manager.ready();
    expect(manager.describe()[0]).toMatchObject({
      status: "error",
      reason: `working directory not found: ${join(dir, "does-not-exist")}`,
    });
  });

  it("leaves disabled and unapproved project servers off, and starts them when approved", async () => {
    const project = entry("proj", { command: NODE, args: [FIXTURE] }, "project-root", join(dir, ".mcp.json"));
    const headless = make([project, fixture("off")], { disabledServers: ["off"] });
    headless.start();
    await headless.ready();
    expect(headless.describe().map((r) => [r.name, r.status, r.trust])).toEqual([
      ["proj", "untrusted", "pending"],
      ["off", "disabled", null],
    ]);
    expect(headless.tools()).toEqual([]);

    const flagged = make([project], { trustProjectServers: true });
    flagged.start();
    await flagged.ready();
    expect(flagged.describe()[0]).toMatchObject({ status: "ok", trust: "flag" });

    const asked: string[] = [];
    const interactive = make([project], { decide: async (request) => (asked.push(request.name), "allow_once") });
    interactive.start();
    await interactive.ready();
    expect(asked).toEqual(["proj"]);
    expect(interactive.describe()[0]).toMatchObject({ status: "ok", trust: "approved-once" });
  });

  it("ready(signal) returns when the signal aborts while a dialog is open", async () => {
    const project = entry("proj", { command: NODE, args: [FIXTURE] }, "project-root");
    let dialogSignal: AbortSignal | undefined;
    const manager = make([project], {
      decide: (_request, signal) =>
        new Promise(
          (resolve) => ((dialogSignal = signal), signal.addEventListener("abort", () => resolve("cancelled"))),
        ),
    });
    manager.start();
    const controller = new AbortController();
    const waiting = manager.ready(controller.signal);
    await pollUntil(() => dialogSignal !== undefined, "the trust dialog");
    expect(manager.describe()[0]).toMatchObject({ status: "untrusted", reason: "waiting for approval" });
    controller.abort();
    await waiting;
    await manager.close();
    expect(dialogSignal!.aborted).toBe(true);
  });

  it("reload restarts only changed servers, retries failed ones, and closes removed ones", async () => {
    const keep = fixture("keep");
    const change = fixture("change");
    const remove = fixture("remove");
    const broken = entry("broken", { command: NODE, args: ["${LATER}"] });
    const manager = make([keep, change, remove, broken]);
    manager.start();
    await manager.ready();
    const pidOf = (name: string) => manager.describe().find((r) => r.name === name)?.pid;
    const before = { keep: pidOf("keep")!, change: pidOf("change")!, remove: pidOf("remove")! };
    expect(manager.describe().find((r) => r.name === "broken")!.status).toBe("error");

    const changed = fixture("change", { args: [FIXTURE, "--variant"] });
    const fixedBroken = entry("broken", { command: NODE, args: [FIXTURE] });
    await manager.reload([keep, changed, fixedBroken]);
    await manager.ready();
    expect(manager.describe().map((r) => [r.name, r.status])).toEqual([
      ["keep", "ok"],
      ["change", "ok"],
      ["broken", "ok"],
    ]);
    expect(pidOf("keep")).toBe(before.keep);
    expect(pidOf("change")).not.toBe(before.change);
    expect(processAlive(before.change)).toBe(false);
    expect(processAlive(before.remove)).toBe(false);
    expect(manager.tools().some((t) => t.name.startsWith("remove_"))).toBe(false);
  });

  it("a tool obtained before a reload reports that its server was reloaded", async () => {
    const manager = make([fixture()]);
    manager.start();
    await manager.ready();
    const oldTools = manager.tools();
    await manager.reload([fixture("fx", { args: [FIXTURE, "x"] })]);
    await manager.ready();
    const stale = await run(oldTools, "fx_echo", { text: "hi" });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(/was reloaded/);
    expect(textOf(await run(manager.tools(), "fx_echo", { text: "hi" }))).toBe("echo: hi");
  });

  it("does not load the SDK or spawn anything when there are no servers", async () => {
    let loaded = false;
    const manager = make([], {
      sdk: new Proxy({} as never, {
        get: () => () => {
          loaded = true;
          throw new Error("should not load");
        },
      }),
    });
    manager.start();
    await manager.ready();
    expect(loaded).toBe(false);
    expect(manager.describe()).toEqual([]);
  });
});
