// Standalone fake model server for e2e tests and benchmarks:
//   npx tsx test/support/fake-model/serve.ts [--script turns.json]
// Prints {"anthropicBaseUrl":…,"openaiBaseUrl":…} as its first stdout line, then serves until killed.
// The script is a JSON array of FakeTurn (or {"turns": [...]}); once it runs out, every request gets
// the "no scripted turn" answer.
import { readFile } from "node:fs/promises";
import { createFakeModelServer } from "./server.js";
import type { FakeTurn } from "./types.js";

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf("--script");
  let turns: FakeTurn[] = [];
  if (at !== -1) {
    const file = args[at + 1];
    if (!file) throw new Error("--script needs a file path");
    const parsed = JSON.parse(await readFile(file, "utf8")) as FakeTurn[] | { turns: FakeTurn[] };
    turns = Array.isArray(parsed) ? parsed : parsed.turns;
  }
  const server = await createFakeModelServer({ turns });
  process.stdout.write(
    `${JSON.stringify({ anthropicBaseUrl: server.anthropicBaseUrl, openaiBaseUrl: server.openaiBaseUrl })}\n`,
  );
  const stop = () => void server.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`fake model server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
