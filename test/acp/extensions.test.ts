// Skills, memory, subagents, the watcher and /reload, end to end over ACP with the fake model.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentText, toolUpdates, type Harness } from "../support/acp-harness.js";
import { gitProject, useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useHarnessSuite({ name: "ext", prepare: gitProject });

async function writeSkill(dir: string, name: string, description: string, body = "Do the thing carefully.") {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`);
}

const commandNames = (h: Harness) =>
  h.updates
    .filter((u) => u.update.sessionUpdate === "available_commands_update")
    .map((u) => (u.update as { availableCommands: Array<{ name: string }> }).availableCommands.map((c) => c.name));

describe("memory and skills", () => {
  it("puts AGENTS.md and the skill list in the system prompt, and runs /skill:", async () => {
    const h = await suite.start({
      setupHome: async (home) => {
        await mkdir(join(home, ".deepagents", "agent"), { recursive: true });
        await writeFile(join(home, ".deepagents", "agent", "AGENTS.md"), "User prefers tabs.");
      },
    });
    await writeFile(join(suite.project, "AGENTS.md"), "This project uses pnpm.");
    await writeSkill(
      join(suite.project, ".deepagents", "skills"),
      "deploy",
      "How to deploy this project",
      "Run make deploy, then verify.",
    );
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    const system = h.model.requests[0]!.system;
    expect(system).toContain("User prefers tabs.");
    expect(system).toContain("This project uses pnpm.");
    expect(system).toContain("deploy");
    expect(system).toContain("How to deploy this project");
    expect(system).not.toContain("Run make deploy"); // progressive disclosure: the body is not inlined
    await h.waitFor(() => commandNames(h).some((names) => names.includes("skill:deploy")));
    h.model.enqueue(textTurn("deploying"));
    await h.prompt(sessionId, "/skill:deploy to staging");
    const sent = JSON.stringify(h.model.requests[1]!.body);
    expect(sent).toContain("Run make deploy, then verify.");
    expect(sent).toContain("to staging");
  });

  it("tells the editor when a skill appears, and /reload brings it into the next request", async () => {
    const h = await suite.start({ clientCapabilities: { session: { notices: {} } } });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    await h.watchersReady();
    await writeSkill(join(suite.project, ".deepagents", "skills"), "lint", "Lint the project");
    await h.waitFor(() =>
      h.updates.some(
        (u) => u.update.sessionUpdate === "notice" && /skills/.test((u.update as { title: string }).title),
      ),
    );
    const reload = await h.prompt(sessionId, "/reload");
    expect(agentText(reload.updates)).toContain("+lint");
    expect(commandNames(h).at(-1)).toContain("skill:lint");
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "again");
    expect(h.model.requests.at(-1)!.system).toContain("Lint the project");
  });

  it("/reload re-reads an edited AGENTS.md", async () => {
    const h = await suite.start();
    await writeFile(join(suite.project, "AGENTS.md"), "Old rule.");
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"), textTurn("ok"));
    await h.prompt(sessionId, "one");
    await writeFile(join(suite.project, "AGENTS.md"), "New rule: always test.");
    await h.prompt(sessionId, "/reload");
    await h.prompt(sessionId, "two");
    expect(h.model.requests.at(-1)!.system).toContain("New rule: always test.");
    expect(h.model.requests.at(-1)!.system).not.toContain("Old rule.");
  });

  it("/remember runs the built-in remember skill through the normal edit path", async () => {
    const h = await suite.start({ onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(
      toolTurn("write_file", { file_path: join(suite.project, "AGENTS.md"), content: "Use pnpm." }),
      textTurn("Remembered."),
    );
    await h.prompt(sessionId, "/remember we use pnpm");
    const first = JSON.stringify(h.model.requests[0]!.body);
    expect(first).toContain("remember");
    expect(first).toContain("we use pnpm");
    expect(h.permissions).toHaveLength(1); // the edit was shown for approval
  });
});

describe("subagents", () => {
  it("runs a file-defined subagent with its own prompt and model, in parallel with another, nested under the task call", async () => {
    const h = await suite.start({ onPermission: () => "allow_once" });
    const agentDir = join(suite.project, ".deepagents", "agents", "reviewer");
    await mkdir(agentDir, { recursive: true });
    await writeFile(
      join(agentDir, "AGENTS.md"),
      "---\nname: reviewer\ndescription: Reviews code\nmodel: anthropic:claude-haiku-4-5\n---\nYou are a strict code reviewer.",
    );
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler((request) => {
      if (request.system.startsWith("You are a strict code reviewer.")) return textTurn("REVIEW: looks fine");
      if (request.system.includes("You are a subagent")) {
        return request.messages.length === 1
          ? toolTurn("execute", { command: "echo from-subagent" })
          : textTurn("GP: ran it");
      }
      if (request.messages.length === 1) {
        return {
          parts: [
            { type: "tool_call", name: "task", input: { description: "review the code", subagent_type: "reviewer" } },
            { type: "tool_call", name: "task", input: { description: "run echo", subagent_type: "general-purpose" } },
          ],
        };
      }
      return textTurn("both done");
    });
    const { updates, response } = await h.prompt(sessionId, "review and run");
    expect(response.stopReason).toBe("end_turn");
    const reviewerRequest = h.model.requests.find((r) => r.system.startsWith("You are a strict code reviewer."))!;
    expect((reviewerRequest.body as { model: string }).model).toBe("claude-haiku-4-5");
    // The subagent's shell command asked in the editor, nested under its task call.
    expect(h.permissions.map((p) => p.toolCall.title)).toEqual(["echo from-subagent"]);
    const tasks = toolUpdates(updates).filter((u) => u.sessionUpdate === "tool_call" && u.kind === "think");
    expect(tasks).toHaveLength(2);
    const nestedId = toolUpdates(updates).find((u) => u.title === "echo from-subagent")!.toolCallId;
    const nested = toolUpdates(updates).find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === nestedId)!;
    expect(tasks.map((t) => t.toolCallId)).toContain(
      (nested._meta as { "deep-acp": { parentToolCallId: string } })["deep-acp"].parentToolCallId,
    );
    const final = JSON.stringify(h.model.requests.at(-1)!.body);
    expect(final).toContain("REVIEW: looks fine");
    expect(final).toContain("GP: ran it");
  });
});
