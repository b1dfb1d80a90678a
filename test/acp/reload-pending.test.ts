// Out-of-turn changes reach every editor: a client without the `session.notices` capability (Zed)
// sees what a /reload would apply in the /reload entry of its command list, at once; a client with
// it gets a notice. Nothing is added to the conversation outside a turn.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startHarness, type Harness } from "../support/acp-harness.js";
import { textTurn } from "../support/fake-model/index.js";

let h: Harness;
let project: string;
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), "deep-acp-reload-"));
  await mkdir(join(project, ".git"));
});
afterEach(async () => {
  await h?.close();
  await rm(project, { recursive: true, force: true });
});

async function writeSkill(name: string) {
  const dir = join(project, ".deepagents", "skills", name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: The ${name}\n---\n\nDo it.\n`);
}

type Command = { name: string; description: string };
const commandLists = (h: Harness) =>
  h.updates
    .filter((u) => u.update.sessionUpdate === "available_commands_update")
    .map((u) => (u.update as { availableCommands: Command[] }).availableCommands);
const reloadEntry = (commands: Command[]) => commands.find((c) => c.name === "reload")!.description;

async function openSession(h: Harness) {
  await writeSkill("first-skill");
  const { sessionId } = await h.newSession(project);
  h.model.enqueue(textTurn("ok"));
  await h.prompt(sessionId, "hi");
  await h.waitFor(() => commandLists(h).some((list) => list.some((c) => c.name === "skill:first-skill")));
  await h.watchersReady();
  return sessionId;
}

it("without session.notices (Zed), the /reload entry says what is pending, and returns to normal after /reload", async () => {
  h = await startHarness();
  const sessionId = await openSession(h);
  const normal = reloadEntry(commandLists(h).at(-1)!);
  const outsideTurn = h.updates.length;
  await writeSkill("second-skill");
  await h.waitFor(() => commandLists(h).some((list) => reloadEntry(list).includes("skill second-skill added")));
  const pending = commandLists(h).at(-1)!;
  expect(reloadEntry(pending)).toBe("Pending: skill second-skill added. Run /reload to apply");
  expect(pending.map((c) => c.name)).toContain("skill:first-skill");
  // Only the command list changed while no turn was running.
  expect(new Set(h.updates.slice(outsideTurn).map((u) => u.update.sessionUpdate))).toEqual(
    new Set(["available_commands_update"]),
  );

  await h.prompt(sessionId, "/reload");
  const after = commandLists(h).at(-1)!;
  expect(reloadEntry(after)).toBe(normal);
  expect(after.map((c) => c.name)).toEqual(expect.arrayContaining(["skill:first-skill", "skill:second-skill"]));
});

it("with session.notices, the editor gets a notice outside the turn and the /reload entry stays as it is", async () => {
  h = await startHarness({ clientCapabilities: { session: { notices: {} } } });
  await openSession(h);
  const normal = reloadEntry(commandLists(h).at(-1)!);
  const outsideTurn = h.updates.length;
  await writeSkill("second-skill");
  await h.waitFor(() => h.updates.some((u) => u.update.sessionUpdate === "notice"));
  expect(new Set(h.updates.slice(outsideTurn).map((u) => u.update.sessionUpdate))).toEqual(new Set(["notice"]));
  expect(commandLists(h).every((list) => reloadEntry(list) === normal)).toBe(true);
});
