import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { timeInitialize } from "./startup.bench.js";
import { createFakeModelServer } from "../test/support/fake-model/index.js";
const model = await createFakeModelServer();
const home = mkdtempSync(join(tmpdir(), "rss-"));
const env = { PATH: process.env.PATH, HOME: home, ANTHROPIC_API_KEY: "bench-key", ANTHROPIC_BASE_URL: model.anthropicBaseUrl };
for (const b of process.argv.slice(2)) {
  const r = [];
  for (let i = 0; i < 5; i++) { const x = await timeInitialize(b, b === process.execPath ? ["dist/deep-acp.js"] : [], env); r.push(`${x.rssAtAnswer.toFixed(1)}/${x.rss.toFixed(1)}`); }
  console.log(b, r.join(" "));
}
await model.close();
