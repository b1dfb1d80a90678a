// Out-of-turn changes reach every editor: a client without the `session.notices` capability (Zed)
// sees what a /reload would apply in the /reload entry of its command list, at once; a client with
// it gets a notice. Nothing is added to the conversation outside a turn.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { type Harness } from "../support/acp-harness.js";
import { gitProject, useHarnessSuite } from "../support/harness-suite.js";
import { textTurn } from "../support/fake-model/index.js";

const suite = useHarnessSuite({ name: "reload", prepare: gitProject });

async function writeSkill(name: string) {
  const dir = join(suite.project, ".deepagents", "skills", name);
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
  const { sessionId } = await h.newSession(suite.project);
  h.model.enqueue(textTurn("ok"));
  await h.prompt(sessionId, "hi");
  await h.waitFor(() => commandLists(h).some((list) => list.some((c) => c.name === "skill:first-skill")));
  await h.watchersReady();
  return sessionId;
}

it("without session.notices (Zed), the /reload entry says what is pending, and returns to normal after /reload", async () => {
  const h = await suite.start();
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
  const h = await suite.start({ clientCapabilities: { session: { notices: {} } } });
  const sessionId = await openSession(h);
  const normal = reloadEntry(commandLists(h).at(-1)!);
  const outsideTurn = h.updates.length;
  await writeSkill("second-skill");
  await h.waitFor(() => h.updates.some((u) => u.update.sessionUpdate === "notice"));
  // A round trip first: whatever else the change made the agent send has arrived by the turn's end.
  const turn = await h.prompt(sessionId, "/status");
  // /status answers with a message only: any command list in it came from the change.
  const inTurn = new Set(turn.updates);
  expect(turn.updates.some((u) => u.sessionUpdate === "available_commands_update")).toBe(false);
  expect(
    new Set(
      h.updates
        .slice(outsideTurn)
        .filter((u) => !inTurn.has(u.update))
        .map((u) => u.update.sessionUpdate),
    ),
  ).toEqual(new Set(["notice"]));
  expect(commandLists(h).every((list) => reloadEntry(list) === normal)).toBe(true);
});
