import { parseModelSpec } from "../../model/catalog/spec.js";
import type { ProviderName } from "../../model/types.js";

// A project subagent's `model:` comes from the repository, and the task description it would be
// sent is the user's work (code, secrets the model has seen). It may only name a provider the user
// set up themselves (a key, token or base URL, a stored login, or their own config naming it): a
// hostile `model: ollama:x` must not send the task to whatever listens on 127.0.0.1:11434. The
// user's own subagents and the parent's model are the user's choice.

/** Why a subagent may not use `spec`, or undefined. */
export function subagentModelRefusal(
  spec: string,
  source: "builtin" | "user" | "project",
  configured: ReadonlySet<ProviderName>,
): string | undefined {
  if (source !== "project") return undefined;
  let provider: ProviderName;
  try {
    provider = parseModelSpec(spec).provider;
  } catch (error) {
    return (error as Error).message;
  }
  if (configured.has(provider)) return undefined;
  return `the project's subagent names ${spec}, but provider ${provider} is not configured by you (no key, base URL or login, and your config does not name it); the task was not sent there`;
}
