// `npm run clients`: installs test/clients/ (acpx, the ACP client the end-to-end tests drive) with a
// Node >= 22.13, which is what those clients demand. They are kept out of the project's own dev
// dependencies so that `npm ci` on Node 20 installs nothing that asks for a newer Node; they run with
// that newer Node too (test/support/test-clients.ts), and deep-acp under them with the Node under test.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const node = process.env.DEEP_ACP_CLIENT_NODE ?? (major > 22 || (major === 22 && minor >= 13) ? process.execPath : "");
if (!node) {
  process.stderr.write(
    "The test clients need Node >= 22.13. Set DEEP_ACP_CLIENT_NODE to one, e.g. .ci/run's Node 22:\n" +
      "  DEEP_ACP_CLIENT_NODE=$(.ci/node-releases install) npm run clients\n",
  );
  process.exit(1);
}
// npm sets npm_execpath (its own npm-cli.js) for scripts; run that npm with the clients' Node.
const npm = process.env.npm_execpath;
if (!npm) {
  process.stderr.write("Run this as npm run clients.\n");
  process.exit(1);
}
const clients = fileURLToPath(new URL("../test/clients", import.meta.url));
const result = spawnSync(node, [npm, "ci", "--prefix", clients, "--no-audit", "--no-fund"], { stdio: "inherit" });
process.exit(result.status ?? 1);
