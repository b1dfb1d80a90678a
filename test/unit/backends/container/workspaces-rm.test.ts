// `deep-acp workspaces rm` without --force: which containers it keeps, and the reason it gives.
import { describe, expect, it } from "vitest";
import type { SessionContainer } from "../../../../src/backends/container/session-containers.js";
import { whyNotRemove } from "../../../../src/cli/subcommands/workspaces.js";

const base: SessionContainer = {
  containerId: "0123456789abcdef",
  sessionId: "s1",
  state: "exited",
  url: "docker://img",
  mount: "copy",
  hostRoot: "/p",
  containerRoot: "/p",
  created: "2026-12-02T00:00:00.000Z",
};

describe("workspaces rm refuses work it would lose", () => {
  it("removes a copy-mode container with nothing unapplied, and any bind-mode one", () => {
    expect(whyNotRemove({ ...base, unapplied: [] })).toBeUndefined();
    expect(whyNotRemove({ ...base, mount: "bind" })).toBeUndefined();
  });

  it("keeps one with unapplied changes, naming them", () => {
    const why = whyNotRemove({ ...base, unapplied: [{ path: "a.txt", kind: "added" } as never] });
    expect(why).toMatch(/holds 1 unapplied change\(s\): a\.txt; .*--force/);
  });

  it("keeps one whose changes are unknown (no record under this HOME, unreadable files), saying why", () => {
    const note = "no record of what was copied in: unapplied changes unknown";
    expect(whyNotRemove({ ...base, note })).toMatch(
      /may hold unapplied work \(no record of what was copied in.*--force/,
    );
    expect(whyNotRemove({ ...base, note: "could not read its files: boom" })).toContain(
      "could not read its files: boom",
    );
    expect(whyNotRemove(base)).toContain("unapplied changes unknown");
  });
});
