import { StringDecoder } from "node:string_decoder";
import { createCommandOutput } from "../processes/output-buffer.js";
import type { ExecuteResponse } from "../protocol.js";
import type { RemoteExecOptions, StreamRun } from "../ssh/ssh-exec.js";
import type { ContainerLink } from "./container-link.js";

// Commands inside the container, run by the helper: each in its own session (setsid), so its
// process group is its pid; stdout and stderr share one pipe, so output keeps its order. Cancel and
// timeout send TERM to the whole tree (the group, every descendant, and anything still in its
// session), then KILL after the grace period; when the command exits, what it left running in its
// group is stopped too. A lost engine connection ends the call at once, saying so.

export type ContainerExecOptions = RemoteExecOptions & {
  /** For messages: "container 1a2b3c4d5e6f". */
  target: string;
};

export async function executeInContainer(
  link: ContainerLink,
  command: string,
  options: ContainerExecOptions,
): Promise<ExecuteResponse> {
  const empty: ExecuteResponse = { output: "", exitCode: null, signal: null, truncated: false, timedOut: false };
  if (options.signal?.aborted) return { ...empty, aborted: true };
  const out = createCommandOutput(options.maxOutputChars, options.onOutput);
  const decoder = new StringDecoder("utf8");
  let running;
  try {
    const channel = await link.channel();
    running = await channel.exec(
      command,
      options.cwd,
      { mergeStderr: true, killBackground: options.killBackgroundOnExit },
      (_stream, chunk) => out.emit(decoder.write(chunk)),
    );
  } catch (error) {
    return { ...empty, output: `Failed to start command in ${options.target}: ${(error as Error).message}` };
  }
  let timedOut = false;
  let aborted = false;
  const stop = () =>
    void link
      .current()
      ?.kill(running.id, options.killGraceMs)
      .catch(() => undefined);
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    stop();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const exit = await running.exited;
  clearTimeout(timer);
  options.signal?.removeEventListener("abort", onAbort);
  out.emit(decoder.end());
  if ("lost" in exit) out.lost(exit.lost);
  const { output, truncated } = out.result();
  return {
    output,
    exitCode: "lost" in exit ? null : exit.code,
    signal: "lost" in exit ? null : exit.signal,
    truncated,
    timedOut,
    ...(aborted ? { aborted: true } : {}),
  };
}

/** A helper command for search (grep, find, rg): stdout streamed, stderr kept apart. */
export async function streamInContainer(
  link: ContainerLink,
  command: string,
  timeoutMs: number,
  onStdout: (chunk: Buffer, stop: () => void) => void,
): Promise<StreamRun> {
  const channel = await link.channel();
  let stderr = "";
  let stopped = false;
  let timedOut = false;
  let id = 0;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    void channel.kill(id, 0).catch(() => undefined);
  };
  const running = await channel.exec(command, "/", { mergeStderr: false, killBackground: true }, (stream, chunk) => {
    if (stream === 2) {
      if (stderr.length < 4000) stderr += chunk.toString("utf8");
    } else if (!stopped) onStdout(chunk, stop);
  });
  id = running.id;
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutMs);
  const exit = await running.exited;
  clearTimeout(timer);
  if ("lost" in exit) return { code: null, stderr, timedOut, lost: exit.lost };
  return { code: exit.code, stderr, timedOut };
}
