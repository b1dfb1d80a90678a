// Attack suite, round 3: rules and providers. A deny rule holds for every name of the denied file (a
// hard link in the project is the same device and inode), in every mode and whatever the editor
// answers; and a project subagent's `model:` cannot send the task to a provider the user never
// configured (here Ollama's default port on this machine). Built binary, fake model.
import { createServer, type Server } from "node:http";
import { link, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  homeWithKeyAndRepository,
  runAttack,
  SSH_SECRET,
  useAttackSession,
  type AttackMode,
} from "../support/attack-harness.js";

const s = useAttackSession("deep-acp-attack-rules-", async (base) => {
  const { home, project } = await homeWithKeyAndRepository(base);
  await link(join(home, ".ssh", "id_rsa"), join(project, "copy.txt"));
  await writeFile(join(project, "ok.txt"), "ordinary\n");
  return { home, project };
});

async function denySsh(): Promise<void> {
  await mkdir(join(s.home, ".deepagents"), { recursive: true });
  await writeFile(
    join(s.home, ".deepagents", "config.toml"),
    `[[permissions]]\noperations = ["read", "write"]\npaths = ["${join(s.home, ".ssh")}/**"]\nmode = "deny"\n`,
  );
}

describe("attack: a deny rule and a hard-linked copy of the denied file", () => {
  for (const mode of ["bypass", "default"] as const satisfies readonly AttackMode[]) {
    it(`${mode}: every tool is denied on the copy, even when the editor would allow it`, async () => {
      await denySsh();
      const copy = join(s.project, "copy.txt");
      const { sessionId } = await runAttack(
        s,
        mode,
        [
          ["read_file", { file_path: copy }],
          ["grep", { pattern: "SECRET", path: copy }],
          ["write_file", { file_path: copy, content: "PWNED" }],
          ["edit_file", { file_path: copy, old_string: "SECRET", new_string: "PWNED" }],
          ["read_file", { file_path: join(s.project, "ok.txt") }],
        ],
        {},
        [{ type: "text", text: "go" }],
        "allow_once",
      );
      expect(sessionId).toBeTruthy();
      const sent = JSON.stringify(s.model.requests.map((r) => r.body));
      expect(sent).not.toContain(SSH_SECRET);
      expect(sent).toContain("ordinary");
      expect(sent).toMatch(/denied/);
      expect(await readFile(join(s.home, ".ssh", "id_rsa"), "utf8")).toBe(`${SSH_SECRET}\n`);
    });
  }
});

describe("attack: a project subagent naming a provider the user never configured", () => {
  let listener: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (listener ? listener.close(resolve) : resolve(undefined)));
    listener = undefined;
  });

  it("does not send the task there; a configured provider still works", async () => {
    // Ollama's default address: the request would go here if the provider were used.
    const received: string[] = [];
    listener = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    const listening = await new Promise<boolean>((resolve) => {
      listener!.once("error", () => resolve(false));
      listener!.listen(11434, "127.0.0.1", () => resolve(true));
    });
    if (!listening) listener = undefined;
    const agents = join(s.project, ".deepagents", "agents");
    await mkdir(join(agents, "local"), { recursive: true });
    await writeFile(
      join(agents, "local", "AGENTS.md"),
      "---\nname: local\ndescription: runs on a local model\nmodel: ollama:llama3\n---\nDo it.\n",
    );
    await mkdir(join(agents, "hosted"), { recursive: true });
    await writeFile(
      join(agents, "hosted", "AGENTS.md"),
      "---\nname: hosted\ndescription: runs on the user's provider\nmodel: anthropic:claude-sonnet-4-5\n---\nDo it.\n",
    );
    await runAttack(s, "default", [
      ["task", { description: "summarize the secret plan", subagent_type: "local" }],
      ["task", { description: "say hi", subagent_type: "hosted" }],
    ]);
    expect(received).toEqual([]);
    const results = s.model.requests
      .at(-1)!
      .messages.filter((m) => m.role === "tool")
      .map((m) => m.text);
    expect(results[0]).toMatch(/ollama.*not configured/);
    expect(results[1]).not.toMatch(/not configured/);
  });
});
