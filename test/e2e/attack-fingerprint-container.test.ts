// Attack suite, round 4 (issue 34, item 4) in a container workspace, on the real engine: in copy mode
// the container's Makefile is not the host's, so a fingerprint read on the host would still match
// after an approved command rewrote the container's copy. It is read through the workspace (inside the
// container): the next `make build` asks, and the editor's rejection keeps it from running.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { checkDockerAvailable, containersOfSession, createContainerTracker, TEST_IMAGE } from "../support/docker.js";
import { createFakeEditor } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { poll } from "../support/poll.js";

const availability = await checkDockerAvailable();
const env = process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {};
const commandOf = (m: JsonRpcMessage) => String(m.params.toolCall.rawInput?.command ?? "");

(availability.ok ? describe : describe.skip)("attack: remembered command in a container workspace", () => {
  const docker = availability.ok ? availability.docker : (undefined as never);
  const suite = useAgentSuite({ name: "fingerprint-container" });
  const tracker = createContainerTracker(docker);
  afterEach(async () => {
    await Promise.resolve()
      .then(() => suite.agent.stop())
      .catch(() => undefined);
    await tracker.removeAll();
  });

  it("a command rewrites the container's Makefile: the next `make build` asks", async () => {
    await writeFile(join(suite.project, "Makefile"), "build:\n\t@echo built\n");
    await writeFile(join(suite.project, "Makefile.next"), "build:\n\t@touch pwned\n");
    const dialogs: JsonRpcMessage[] = [];
    const editor = createFakeEditor({
      permission: (m) => {
        dialogs.push(m);
        const command = commandOf(m);
        const kind =
          command === "make build" && dialogs.length === 1
            ? "allow_always"
            : command === "cp Makefile.next Makefile"
              ? "allow_once"
              : "reject_once";
        const option = m.params.options.find((o: { kind: string }) => o.kind === kind);
        return { outcome: { outcome: "selected", optionId: option.optionId } };
      },
    });
    const commands = ["make build", "make build", "cp Makefile.next Makefile", "make build"];
    suite.model.enqueue(...commands.map((command) => toolTurn("execute", { command })), textTurn("Done."));
    const sessionId = await suite.startSession({
      env,
      args: ["--workspace", `docker://${TEST_IMAGE}`],
      onRequest: editor.handle,
    });
    await suite.agent.request("session/set_mode", { sessionId, modeId: "accept-edits" });
    const response = await suite.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "build" }],
    });
    await poll(async () => (await containersOfSession(docker, sessionId)).length > 0);
    for (const c of await containersOfSession(docker, sessionId)) tracker.add(c.Id);
    expect(response.result.stopReason).toBe("end_turn");
    expect(dialogs.map(commandOf)).toEqual(["make build", "cp Makefile.next Makefile", "make build"]);
    const why = JSON.stringify(dialogs[2]!.params.toolCall.content);
    expect(why).toContain("`Makefile` changed since you allowed `make build` always");
    // The rejected call did not run: the model was told so.
    const last = suite.model.requests
      .at(-1)!
      .messages.filter((m) => m.role === "tool")
      .at(-1)!;
    expect(last.text).toContain("The user rejected this execute call");
  });
});
