import type { Logger } from "../../util/logger.js";
import type { FetchLike } from "./http.js";
import type { RetryOptions } from "./retry.js";

/** What every provider module's factory takes besides its own settings. */
export type CommonClientOptions = {
  model: string;
  fetch?: FetchLike;
  logger?: Logger;
  retry?: RetryOptions;
  contextWindow: number;
  supportsImages: boolean;
  idleTimeoutMs?: number;
};
