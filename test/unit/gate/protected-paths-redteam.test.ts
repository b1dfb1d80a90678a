import { describe, expect, it } from "vitest";
import { createProtectedPaths } from "../../../src/gate/surfaces/protected-paths.js";

// Red-team cases: editor project settings that start programs, and case tricks.
describe("protected paths (red team)", () => {
  const protectedPaths = createProtectedPaths();
  const root = "/p";
  it.each([
    "/p/.zed/settings.json",
    "/p/.zed/tasks.json",
    "/p/.helix/languages.toml",
    "/p/.nvim.lua",
    "/p/sub/.exrc",
    "/p/.dir-locals.el",
    "/p/.GIT/config",
    "/p/.Git/hooks/pre-commit",
    "/p/sub/.DeepAgents/hooks.json",
  ])("%s asks", (path) => {
    expect(protectedPaths.match(path, [root])).toBeDefined();
  });
  it.each(["/p/src/zed.ts", "/p/README.md", "/p/git/config"])("%s stays ordinary", (path) => {
    expect(protectedPaths.match(path, [root])).toBeUndefined();
  });
});
