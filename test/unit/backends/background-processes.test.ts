import { describe, expect, it } from "vitest";
import { createBackgroundProcesses } from "../../../src/backends/processes/background-processes.js";

const sh = (script: string) => ({
  file: "/bin/sh",
  args: ["-c", script],
  cwd: process.cwd(),
  env: { PATH: process.env.PATH ?? "" },
});

describe("background processes", () => {
  it("refuses more than the limit and returns only new output on each read", async () => {
    const processes = createBackgroundProcesses({ maxProcesses: 1, keepChars: 1000 });
    const exits: unknown[] = [];
    const first = processes.start("printf", sh("printf 'one\\n'; printf 'two\\n'"), { onExit: (e) => exits.push(e) });
    expect(() => processes.start("second", sh("true"))).toThrow(
      "1 background processes are already running; stop one first (process_stop)",
    );
    await new Promise<void>((resolve) => processes.listen(first.id, { onExit: () => resolve() }));
    expect(processes.read(first.id, 100)).toMatchObject({ output: "one\ntwo\n", skipped: 0 });
    expect(processes.read(first.id, 100)).toMatchObject({ output: "", skipped: 0 });
    expect(exits).toEqual([{ exitCode: 0, signal: null, stopped: false }]);
    const second = processes.start("long", sh("sleep 30"));
    expect(await processes.stop(second.id)).toEqual({ exitCode: null, signal: "SIGTERM", stopped: true });
  });

  it("keeps the newest output within the window and says how much was skipped", async () => {
    const processes = createBackgroundProcesses({ maxProcesses: 2, keepChars: 10 });
    const p = processes.start("seq", sh("seq 1 100"));
    await new Promise<void>((resolve) => processes.listen(p.id, { onExit: () => resolve() }));
    const read = processes.read(p.id, 8)!;
    expect(read.output).toBe("\n99\n100\n");
    expect(read.skipped).toBe(292 - 8);
  });
});
