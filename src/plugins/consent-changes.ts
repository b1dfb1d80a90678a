import { describeDigestChanges } from "../util/file-digest.js";
import type { PluginInspection } from "./inspect.js";
import type { PluginState } from "./state.js";

const MAX_LISTED = 5;

/**
 * Why an enabled plugin no longer matches the consent it was given, e.g. "hooks/check.sh changed",
 * for the messages of `deep-acp plugins` and of the session that refuses to load it.
 */
export function consentChanges(state: PluginState, id: string, plugin: PluginInspection): string[] {
  const before = state.consentFiles[id];
  if (!before) return ["the consent now covers every file of the plugin, not only its hook and MCP definitions"];
  const changes = describeDigestChanges(before, plugin.files);
  if (changes.length === 0) return ["its hook or MCP definitions changed"];
  return changes.length > MAX_LISTED
    ? [...changes.slice(0, MAX_LISTED), `${changes.length - MAX_LISTED} more`]
    : changes;
}
