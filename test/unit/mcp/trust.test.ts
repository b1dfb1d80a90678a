import { readFile, stat, writeFile, mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMcpTrustResolver, type McpTrustDecision } from "../../../src/mcp/trust/trust.js";
import type { McpTrustRequest } from "../../../src/mcp/trust/trust-request.js";
import { createMcpTrustStore } from "../../../src/mcp/trust/trust-store.js";
import { entry, makeTempDir } from "./helpers.js";

describe("MCP project trust", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let stateDir: string;
  let root: string;

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    stateDir = join(dir, "home", ".deepagents", ".state");
    root = join(dir, "project");
    await mkdir(root, { recursive: true });
  });
  afterEach(() => cleanup());

  const project = (raw: unknown = { command: "node", args: ["srv.js", "--port", "1"], env: { SECRET: "${TOKEN}" } }) =>
    entry("db", raw, "project-root", join(root, ".mcp.json"));

  /** A resolver whose dialog answers from a script and records what it was shown. */
  function resolverWith(answers: Array<McpTrustDecision | "cancelled">, extra: { trustProjectServers?: boolean } = {}) {
    const shown: McpTrustRequest[] = [];
    const store = createMcpTrustStore({ stateDir });
    const resolver = createMcpTrustResolver({
      store,
      projectRoot: root,
      ...extra,
      decide: async (request) => {
        shown.push(request);
        const answer = answers.shift();
        if (!answer) throw new Error("unexpected dialog");
        return answer;
      },
    });
    return { resolver, shown, store };
  }

  async function savedFile() {
    return JSON.parse(await readFile(join(stateDir, "mcp_trust.json"), "utf8"));
  }

  it("trusts user, flag, editor and plugin servers without asking", async () => {
    const { resolver, shown } = resolverWith([]);
    for (const source of ["user", "flag", "editor", "plugin"] as const) {
      expect(await resolver.resolve(entry("x", { command: "x" }, source))).toMatchObject({
        state: "trusted",
        allowed: true,
      });
    }
    expect(shown).toEqual([]);
  });

  it("shows where a server comes from and exactly what it runs, as written", async () => {
    const { resolver, shown } = resolverWith(["reject", "reject"]);
    await resolver.resolve(project());
    await resolver.resolve(
      entry(
        "api",
        { url: "https://api.test/mcp?k=${KEY}", headers: { "X-Api-Key": "${KEY}", Accept: "x" }, auth: undefined },
        "project",
        join(root, ".deepagents/.mcp.json"),
      ),
    );
    expect(shown[0]).toMatchObject({
      name: "db",
      source: "project-root",
      origin: join(root, ".mcp.json"),
      transport: "stdio",
      command: "node",
      args: ["srv.js", "--port", "1"],
      envNames: ["SECRET"],
      changed: false,
    });
    expect(shown[0]!.detail).toContain("Runs: node srv.js --port 1");
    expect(shown[1]).toMatchObject({
      transport: "http",
      url: "https://api.test/mcp?k=${KEY}",
      headerNames: ["X-Api-Key", "Accept"],
    });
    expect(shown[0]!.detail).toContain("SECRET=${TOKEN}");
    expect(shown[0]!.detail).toContain("Not given: TOKEN (not in [mcp] project_env); the server will not start");
    expect(shown[1]!.detail).toContain("X-Api-Key: ${KEY}");
    expect(shown[1]!.detail).not.toContain("hidden");
  });

  it("allow once: runs now, asks nothing more this session, persists nothing", async () => {
    const { resolver, shown } = resolverWith(["allow_once"]);
    expect(await resolver.resolve(project())).toMatchObject({ state: "approved-once", allowed: true });
    expect(await resolver.resolve(project())).toMatchObject({ state: "approved-once", allowed: true });
    expect(shown).toHaveLength(1);
    const fresh = createMcpTrustResolver({ store: createMcpTrustStore({ stateDir }), projectRoot: root });
    expect(await fresh.resolve(project())).toMatchObject({ state: "pending", allowed: false });
  });

  it("allow always: persists root + name + fingerprint in a 0600 file in a 0700 dir", async () => {
    const { resolver } = resolverWith(["allow_always"]);
    expect(await resolver.resolve(project())).toMatchObject({ state: "approved-once", allowed: true });
    const saved = await savedFile();
    expect(saved.approvals).toEqual([
      { projectRoot: root, name: "db", fingerprint: project().fingerprint, approvedAt: expect.any(String) },
    ]);
    expect((await stat(join(stateDir, "mcp_trust.json"))).mode & 0o777).toBe(0o600);
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);
    // A new session (headless, no dialog) runs it.
    const later = createMcpTrustResolver({ store: createMcpTrustStore({ stateDir }), projectRoot: root });
    expect(await later.resolve(project())).toMatchObject({ state: "approved", allowed: true });
    // Another project with the same server name is not approved.
    const other = createMcpTrustResolver({
      store: createMcpTrustStore({ stateDir }),
      projectRoot: join(dir, "elsewhere"),
    });
    expect(await other.resolve(project())).toMatchObject({ state: "pending" });
  });

  it("a changed definition asks again and says so", async () => {
    const { resolver, shown } = resolverWith(["allow_always", "allow_always"]);
    await resolver.resolve(project());
    const changed = project({ command: "node", args: ["evil.js"] });
    const headless = createMcpTrustResolver({ store: createMcpTrustStore({ stateDir }), projectRoot: root });
    expect(await headless.resolve(changed)).toMatchObject({
      state: "pending",
      allowed: false,
      reason: "definition or the files it runs changed since it was approved",
    });
    expect(await resolver.resolve(changed)).toMatchObject({ allowed: true });
    expect(shown[1]).toMatchObject({ changed: true, args: ["evil.js"] });
    expect(shown[1]!.detail).toContain("changed");
    // Only the latest approval of a name is kept.
    expect((await savedFile()).approvals).toHaveLength(1);
  });

  it("reject: stays off for this session without asking again, and is not persisted", async () => {
    const { resolver, shown } = resolverWith(["reject"]);
    expect(await resolver.resolve(project())).toMatchObject({ state: "rejected", allowed: false });
    expect(await resolver.resolve(project())).toMatchObject({ state: "rejected", allowed: false });
    expect(shown).toHaveLength(1);
    const { resolver: next, shown: nextShown } = resolverWith(["allow_once"]);
    expect(await next.resolve(project())).toMatchObject({ allowed: true });
    expect(nextShown).toHaveLength(1);
  });

  it("never: persisted, beats an existing approval and --trust-project-mcp, survives definition changes", async () => {
    const { resolver: first } = resolverWith(["allow_always"]);
    await first.resolve(project());
    const { resolver: second } = resolverWith(["never"]);
    await second.record(project(), "never");
    const saved = await savedFile();
    expect(saved.denied).toEqual([{ projectRoot: root, name: "db", deniedAt: expect.any(String) }]);
    expect(saved.approvals).toEqual([]);

    // Even if an approval row reappears (another process, hand edit), "never" wins.
    const store = createMcpTrustStore({ stateDir });
    await writeFile(
      join(stateDir, "mcp_trust.json"),
      JSON.stringify({
        ...saved,
        approvals: [{ projectRoot: root, name: "db", fingerprint: project().fingerprint, approvedAt: "x" }],
      }),
    );
    const flagged = createMcpTrustResolver({
      store,
      projectRoot: root,
      trustProjectServers: true,
      decide: async () => "allow_once",
    });
    expect(await flagged.resolve(project())).toMatchObject({ state: "denied", allowed: false });
    expect(await flagged.resolve(project({ command: "other" }))).toMatchObject({ state: "denied", allowed: false });
  });

  it("headless: skips unapproved project servers unless trustProjectServers is set", async () => {
    const headless = createMcpTrustResolver({ store: createMcpTrustStore({ stateDir }), projectRoot: root });
    expect(await headless.resolve(project())).toMatchObject({ state: "pending", allowed: false });
    const flagged = createMcpTrustResolver({
      store: createMcpTrustStore({ stateDir }),
      projectRoot: root,
      trustProjectServers: true,
    });
    expect(await flagged.resolve(project())).toMatchObject({ state: "flag", allowed: true });
    // The flag is never persisted.
    await expect(readFile(join(stateDir, "mcp_trust.json"))).rejects.toThrow();
  });

  it("a dismissed dialog leaves the server off and asks again next time", async () => {
    const { resolver, shown } = resolverWith(["cancelled", "allow_once"]);
    expect(await resolver.resolve(project())).toMatchObject({
      state: "pending",
      allowed: false,
      reason: "approval dialog dismissed",
    });
    expect(await resolver.resolve(project())).toMatchObject({ allowed: true });
    expect(shown).toHaveLength(2);
  });

  it("shows one dialog at a time", async () => {
    let open = 0;
    let maxOpen = 0;
    const resolver = createMcpTrustResolver({
      store: createMcpTrustStore({ stateDir }),
      projectRoot: root,
      decide: async () => {
        open++;
        maxOpen = Math.max(maxOpen, open);
        // The dialog stays open a while, so a second one opened meanwhile would be counted.
        await new Promise((r) => setTimeout(r, 10));
        open--;
        return "allow_once";
      },
    });
    const names = ["a", "b", "c"].map((name) => entry(name, { command: name }, "project"));
    const verdicts = await Promise.all(names.map((e) => resolver.resolve(e)));
    expect(verdicts.every((v) => v.allowed)).toBe(true);
    expect(maxOpen).toBe(1);
  });

  it("fails closed on a corrupt store: no flag trust, decisions not written over it", async () => {
    await mkdir(stateDir, { recursive: true });
    await writeFile(join(stateDir, "mcp_trust.json"), "{ corrupt");
    const flagged = createMcpTrustResolver({
      store: createMcpTrustStore({ stateDir }),
      projectRoot: root,
      trustProjectServers: true,
    });
    expect(await flagged.resolve(project())).toMatchObject({ state: "pending", allowed: false });
    const { resolver } = resolverWith(["allow_always"]);
    expect(await resolver.resolve(project())).toMatchObject({ allowed: true });
    expect(await readFile(join(stateDir, "mcp_trust.json"), "utf8")).toBe("{ corrupt");
  });

  it("binds approvals to the real project root", async () => {
    const link = join(dir, "link");
    await symlink(root, link);
    const { resolver } = resolverWith(["allow_always"]);
    await resolver.resolve(project());
    const viaLink = createMcpTrustResolver({ store: createMcpTrustStore({ stateDir }), projectRoot: link });
    expect(await viaLink.resolve(project())).toMatchObject({ state: "approved" });
  });
});
