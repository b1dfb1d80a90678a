// Another ACP agent when the session works in a container: the child (a second deep-acp) runs on this
// machine in the session's directory, and what it writes through us lands in the container, where the
// session's files are (copy mode: the host's project is untouched until /apply).
import { existsSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkDockerAvailable,
  containersOfSession,
  createContainerTracker,
  ENGINE_ENV,
  TEST_IMAGE,
} from "../support/docker.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { parentDelegates, taskResult, toolResults, usePeerSuite } from "../support/peer-suite.js";
import { claudeAgent, missing } from "../support/real-peers.js";

const availability = await checkDockerAvailable();
const claude = missing("@agentclientprotocol/claude-agent-acp", "claude-agent-acp");
const suite = usePeerSuite();

const replyText = (updates: acp.SessionUpdate[]) =>
  updates
    .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
    .join("");

describe.skipIf(!availability.ok)(
  `another ACP agent in a container workspace${availability.ok ? "" : ` (skipped: ${availability.reason})`}`,
  () => {
    const tracker = availability.ok ? createContainerTracker(availability.docker) : undefined;
    afterEach(() => tracker?.removeAll());

    it("lands the child's edit in the container, not on the host", async () => {
      const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities, {
        args: ["--workspace", `docker://${TEST_IMAGE}`],
        env: ENGINE_ENV,
      });
      parentDelegates(h, "child", "write in the workspace");
      suite.childModel.setHandler((request) =>
        toolResults(request).length === 0
          ? toolTurn("write_file", { file_path: join(suite.project, "in-container.txt"), content: "inside" })
          : textTurn("done inside"),
      );
      await h.prompt(sessionId, "delegate");
      if (availability.ok)
        for (const c of await containersOfSession(availability.docker, sessionId)) tracker!.add(c.Id);
      expect(taskResult(h).text).toBe("done inside");
      expect(existsSync(join(suite.project, "in-container.txt"))).toBe(false);
      const changes = replyText((await h.prompt(sessionId, "/changes")).updates);
      expect(changes).toContain("in-container.txt");
    }, 120_000);

    it.skipIf(claude)(
      `has claude-agent-acp's write and command, through our tools, land in the container${claude ? ` (skipped: ${claude})` : ""}`,
      async () => {
        const config = await claudeAgent(suite);
        const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities, {
          args: ["--workspace", `docker://${TEST_IMAGE}`],
          env: ENGINE_ENV,
          config,
        });
        parentDelegates(h, "claude", "write and run in the workspace");
        suite.childModel.setHandler((request) => {
          if (!request.toolNames.includes("mcp__deep-acp__write_file")) return textTurn("title");
          const done = toolResults(request).length;
          if (done === 0)
            return toolTurn("mcp__deep-acp__write_file", {
              file_path: join(suite.project, "by-claude.txt"),
              content: "inside",
            });
          if (done === 1) return toolTurn("mcp__deep-acp__execute", { command: "cat by-claude.txt" });
          return textTurn("claude done inside");
        });
        await h.prompt(sessionId, "delegate");
        if (availability.ok)
          for (const c of await containersOfSession(availability.docker, sessionId)) tracker!.add(c.Id);
        expect(taskResult(h).text).toContain("claude done inside");
        // Written in the container (the host's project untouched), and read back by a command run there.
        expect(existsSync(join(suite.project, "by-claude.txt"))).toBe(false);
        const [written, ran] = toolResults(suite.childModel.requests.at(-1)!);
        expect(written!.isError).toBeFalsy();
        expect(ran!.isError).toBeFalsy();
        expect(ran!.text).toContain("inside");
        const changes = replyText((await h.prompt(sessionId, "/changes")).updates);
        expect(changes).toContain("by-claude.txt");
      },
      180_000,
    );
  },
);
