import { PassThrough, type Duplex } from "node:stream";
import { engineError, type Docker } from "./engine.js";
import { ChannelLostError, createHelperChannel, type HelperChannel } from "./helper-channel.js";

// The agent's hold on one session container: attach to its stdin/stdout, start it, and talk to the
// helper. Holding the attach connection is what keeps the container running; letting go (close, the
// process exiting, the engine connection dropping) stops it. After a loss the next operation starts it
// again (reconnect), so a session survives an engine restart; calls in flight at the loss fail with
// the reason.

export type ContainerLinkOptions = {
  docker: Docker;
  containerId: string;
  /** The engine's address, for messages. */
  address: string;
  /** How long a container still running without us (a holder that just went away) may take to stop. Default 10 s. */
  stopWaitMs?: number;
  logger?: { warn(message: string): void };
};

export type ContainerLink = {
  /** The live channel, starting the container (again) if needed. */
  channel(): Promise<HelperChannel>;
  /** The channel if one is live, without starting anything. */
  current(): HelperChannel | undefined;
  readonly reconnects: number;
  readonly lastLoss: string | undefined;
  /** Lets go: the helper exits and the container stops (it is not removed). */
  close(): Promise<void>;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createContainerLink(options: ContainerLinkOptions): ContainerLink {
  const { docker, containerId, address } = options;
  const container = docker.getContainer(containerId);
  let live: Promise<HelperChannel> | undefined;
  let channelNow: HelperChannel | undefined;
  let opened = 0;
  let lastLoss: string | undefined;
  let closed = false;

  async function waitUntilStopped(): Promise<void> {
    const deadline = Date.now() + (options.stopWaitMs ?? 10_000);
    for (;;) {
      const state = (await container.inspect()).State;
      if (!state.Running) return;
      if (Date.now() > deadline)
        throw new Error(
          `container ${containerId.slice(0, 12)} is running without this process: another deep-acp holds this session's workspace`,
        );
      await sleep(100);
    }
  }

  async function open(): Promise<HelperChannel> {
    if (closed) throw new ChannelLostError("the workspace was closed");
    try {
      await waitUntilStopped();
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404)
        throw new Error(
          `the session's container ${containerId.slice(0, 12)} no longer exists (removed outside deep-acp)`,
        );
      if (
        (error as { statusCode?: number }).statusCode === undefined &&
        !(error instanceof Error && /another deep-acp/.test(error.message))
      )
        throw engineError(address, error);
      throw error;
    }
    const stream = (await container.attach({
      stream: true,
      stdin: true,
      stdout: true,
      stderr: true,
      hijack: true,
    })) as unknown as Duplex;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    docker.modem.demuxStream(stream, stdout, stderr);
    stream.on("end", () => stdout.end());
    stderr.on("data", (chunk: Buffer) => options.logger?.warn(`container helper: ${chunk.toString().trim()}`));
    const channel = createHelperChannel({
      input: stream,
      output: stdout,
      describeLoss: () => `the connection to the container engine at ${address} was lost`,
      onClose: () => {
        if (channelNow === channel) {
          channelNow = undefined;
          live = undefined;
          lastLoss = channel.lost;
        }
      },
    });
    try {
      await container.start();
      await channel.request("ping");
    } catch (error) {
      channel.close();
      throw error instanceof ChannelLostError
        ? new Error(
            `the workspace helper in container ${containerId.slice(0, 12)} did not start (does the image have perl?)`,
          )
        : error;
    }
    opened++;
    channelNow = channel;
    return channel;
  }

  return {
    channel() {
      if (channelNow && !channelNow.lost) return Promise.resolve(channelNow);
      live ??= open().catch((error: unknown) => {
        live = undefined;
        throw error;
      });
      return live;
    },
    current: () => (channelNow && !channelNow.lost ? channelNow : undefined),
    get reconnects() {
      return Math.max(0, opened - 1);
    },
    get lastLoss() {
      return lastLoss;
    },
    async close() {
      closed = true;
      const channel = channelNow ?? (await live?.catch(() => undefined));
      channel?.close();
      // Closing stdin stops the helper; stop() makes sure even if the engine missed the close.
      await container.stop({ t: 2 }).catch(() => undefined);
    },
  };
}
