// Which files a command runs, read off the command line alone (for hook and MCP trust), as a table.
import { describe, expect, it } from "vitest";
import { commandFiles } from "../../../src/util/command-scripts.js";

describe("commandFiles", () => {
  it.each([
    ["node .deepagents/hook.mjs", ["/p/.deepagents/hook.mjs"]],
    ["cd .deepagents && node one.mjs", ["/p/.deepagents/one.mjs"]],
    ["cd tools; cd sub && ./run.sh", ["/p/tools/sub/run.sh"]],
    ["sh -c 'node .deepagents/two.mjs'", ["/p/.deepagents/two.mjs"]],
    ['bash -c "cd tools && exec node other.mjs"', ["/p/tools/other.mjs"]],
    ["FOO=1 exec node --require ./pre.cjs server.mjs", ["/p/pre.cjs", "/p/server.mjs"]],
    ["node --import=./loader.mjs main.mjs", ["/p/loader.mjs", "/p/main.mjs"]],
    ["python3 -u tools/serve.py --config=conf/a.json", ["/p/tools/serve.py", "/p/conf/a.json"]],
    ["node x.mjs > .deepagents/log.txt 2>&1", ["/p/x.mjs"]],
    ["./bin/server --port 3", ["/p/bin/server"]],
    ["sh scripts/check.sh", ["/p/scripts/check.sh"]],
  ])("%s runs %j", (command, files) => {
    expect(commandFiles({ command }, "/p").candidates).toEqual(files);
  });

  it("reads an argv the same way", () => {
    expect(commandFiles({ argv: ["sh", "-c", "cd tools && node s.mjs"] }, "/p").candidates).toEqual(["/p/tools/s.mjs"]);
    expect(commandFiles({ argv: ["node", "srv/index.js"] }, "/p").candidates).toEqual(["/p/srv/index.js"]);
  });

  it.each([
    ["npx -y some-mcp-server", /npx -y some-mcp-server.*resolved when it starts/],
    ["node -e 'require(\"./x\")'", /inline code/],
    ["python -m mypkg", /-m runs a module/],
    ["node $HOME/x.mjs", /shell expansion/],
    ["cd $DIR && node x.mjs", /folder named at run time/],
    ["bash", /reads its commands from its input/],
  ])("says what it cannot tell about %s", (command, why) => {
    expect(commandFiles({ command }, "/p").undetermined.join("; ")).toMatch(why);
  });
});
