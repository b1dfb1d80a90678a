import type * as acp from "@agentclientprotocol/sdk/unstable";
import { SESSION_MODES, type SessionMode } from "../gate/decide/modes.js";
import type { ModelChoice } from "../model/client/resolve.js";
import type { SessionServices } from "../session/index.js";
import { THOUGHT_LEVEL_NAMES, thoughtSupport, type ThoughtLevel } from "../model/catalog/thought-level.js";

export function modeState(mode: SessionMode): acp.SessionModeState {
  return {
    currentModeId: mode,
    availableModes: SESSION_MODES.map((m) => ({ id: m.id, name: m.name, description: m.description })),
  };
}

/** The full option list; ACP requires every response and update to carry all of them. */
export function configOptions(
  mode: SessionMode,
  modelSpec: string,
  choices: readonly ModelChoice[],
  thoughtLevel?: ThoughtLevel,
): acp.SessionConfigOption[] {
  const thought = thoughtSupport(modelSpec);
  const models = choices.some((c) => c.spec === modelSpec)
    ? choices
    : [{ spec: modelSpec, name: modelSpec, description: "" }, ...choices];
  return [
    {
      id: "mode",
      name: "Mode",
      description: "What the agent may do without asking",
      category: "mode",
      type: "select",
      currentValue: mode,
      options: SESSION_MODES.map((m) => ({ value: m.id, name: m.name, description: m.description })),
    },
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: modelSpec,
      options: models.map((c) => ({
        value: c.spec,
        name: c.name,
        ...(c.description ? { description: c.description } : {}),
      })),
    },
    // Only for models that take a thinking budget or reasoning effort.
    ...(thought
      ? [
          {
            id: "thought_level",
            name: "Thinking",
            description: "How much the model reasons before answering (more is slower and costs more)",
            category: "thought_level",
            type: "select" as const,
            currentValue: thoughtLevel && thought.levels.includes(thoughtLevel) ? thoughtLevel : thought.defaultLevel,
            options: thought.levels.map((level) => ({ value: level, name: THOUGHT_LEVEL_NAMES[level] })),
          },
        ]
      : []),
  ];
}

/** What session/new, load and resume answer besides the id: the modes and the full option list. */
export async function sessionConfigState(
  models: SessionServices["models"],
  mode: SessionMode,
  modelSpec: string,
  thoughtLevel: ThoughtLevel | undefined,
) {
  const choices = await models.choices(modelSpec).catch(() => []);
  return { modes: modeState(mode), configOptions: configOptions(mode, modelSpec, choices, thoughtLevel) };
}
