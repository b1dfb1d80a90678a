import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadHooksConfig, sha256Hex } from "../../../src/hooks/config-loader.js";
import { FIXTURES, makeTempDir } from "./helpers.js";

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(async () => {
  await tmp.cleanup();
});

describe("loadHooksConfig", () => {
  it("reports every invalid entry by file and path and still loads the valid ones", async () => {
    const file = join(FIXTURES, "mixed-validity.json");
    const { items, diagnostics, files } = await loadHooksConfig([{ scope: "user", file }]);

    expect(items.map((i) => [i.event, i.path, i.handler.command ?? i.handler.argv])).toEqual([
      ["PreToolUse", "hooks.PreToolUse[0].hooks[0]", "echo ok-1"],
      ["PreToolUse", "hooks.PreToolUse[0].hooks[3]", ["/usr/bin/env", "true"]],
      ["UserPromptSubmit", "hooks.UserPromptSubmit[1].hooks[0]", "echo ok-3"],
    ]);
    expect(items[0]!.handler).toEqual({ command: "echo ok-1", timeoutSec: 5, statusMessage: "Checking" });
    expect(files).toEqual([
      { scope: "user", file, exists: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), itemCount: 3 },
    ]);

    const byPath = diagnostics.map((d) => {
      expect(d.source).toBe(file);
      return d.message.split(":")[0];
    });
    expect(byPath).toEqual([
      "hooks.PreToolUse[0].hooks[1]",
      "hooks.PreToolUse[0].hooks[2]",
      "hooks.PreToolUse[1].matcher",
      "hooks.PreToolUse[2].hooks[0]",
      "hooks.PreToolUse[2].hooks[1]",
      "hooks.PreToolUse[2].hooks[2]",
      "hooks.PreToolUse[2].hooks[3]",
      "hooks.PreToolUse[3]",
      "hooks.UserPromptSubmit[0].matcher",
      "hooks.preToolUse",
      "hooks.Stop",
      "hooks.SessionEnd[0].hooks",
    ]);
    const text = diagnostics.map((d) => d.message).join("\n");
    expect(text).toContain(`"async": true is not supported`);
    expect(text).toContain(`handler type "http" is not supported`);
    expect(text).toContain("invalid regular expression");
    expect(text).toContain("UserPromptSubmit takes no matcher");
    expect(text).toContain("did you mean PreToolUse?");
    expect(diagnostics.find((d) => d.message.startsWith("hooks.preToolUse"))!.severity).toBe("warning");
  });

  it("orders items project, then user, then plugin, whatever the source order", async () => {
    const write = async (name: string, command: string) => {
      const file = join(tmp.dir, name);
      await writeFile(file, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command }] }] } }));
      return file;
    };
    const plugin = await write("plugin.json", "plugin");
    const user = await write("user.json", "user");
    const project = await write("project.json", "project");
    const { items } = await loadHooksConfig([
      { scope: "plugin", file: plugin, pluginId: "p@m" },
      { scope: "user", file: user },
      { scope: "project", file: project },
    ]);
    expect(items.map((i) => i.handler.command)).toEqual(["project", "user", "plugin"]);
  });

  it("treats a missing file as no hooks and bad JSON as one diagnostic", async () => {
    const bad = join(tmp.dir, "bad.json");
    await writeFile(bad, "{ hooks: ");
    const { items, diagnostics, files } = await loadHooksConfig([
      { scope: "project", file: join(tmp.dir, "missing.json") },
      { scope: "user", file: bad },
    ]);
    expect(items).toEqual([]);
    expect(files.map((f) => f.exists)).toEqual([false, true]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ severity: "error", source: bad, code: "invalid_config" });
    expect(diagnostics[0]!.message).toContain("invalid JSON");
  });

  it("rejects the legacy list format with a pointer to the new one", async () => {
    const file = join(tmp.dir, "legacy.json");
    await writeFile(file, JSON.stringify({ hooks: [{ command: ["notify-send"], events: ["session.start"] }] }));
    const { items, diagnostics } = await loadHooksConfig([{ scope: "user", file }]);
    expect(items).toEqual([]);
    expect(diagnostics[0]!.message).toContain("legacy list format");
  });

  it("accepts a plugin manifest's inline hooks object", async () => {
    const manifest = join(tmp.dir, "plugin.json");
    const { items, files } = await loadHooksConfig([
      {
        scope: "plugin",
        file: manifest,
        pluginId: "fmt@local",
        content: { hooks: { PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "fmt" }] }] } },
      },
    ]);
    expect(items.map((i) => [i.event, i.source.pluginId, i.matcher.kind])).toEqual([
      ["PostToolUse", "fmt@local", "exact"],
    ]);
    expect(files[0]!.sha256).toBeUndefined();
  });

  it("fingerprints the exact bytes it parsed", async () => {
    const file = join(tmp.dir, "hooks.json");
    const text = JSON.stringify({ hooks: {} });
    await writeFile(file, text);
    const { files } = await loadHooksConfig([{ scope: "project", file }]);
    expect(files[0]!.sha256).toBe(sha256Hex(Buffer.from(text)));
  });
});
