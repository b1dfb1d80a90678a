import { readDevContainer } from "./devcontainer.js";
import { checkDevContainerInputs, ContainerInputError } from "./devcontainer-inputs.js";
import { planDevContainer, type DevContainerPlan } from "./devcontainer-plan.js";

// Before a dev container is built or started, the user decides: the editor shows the plan
// (devcontainer-plan.ts) and the user runs it once, always (remembered by the plan's fingerprint)
// or not at all. Headless, nobody can be asked: only --trust-devcontainer or an earlier "always"
// lets it run.

export type PlanAnswer = "once" | "always" | "reject";

export type DevContainerConsent = {
  /** The editor's dialog; absent when nobody can answer (headless). */
  ask?: (plan: DevContainerPlan) => Promise<PlanAnswer>;
  /** --trust-devcontainer: run it without asking (this run only). */
  trusted?: boolean;
  /**
   * Where an "always" is read and kept: the session's one store of remembered decisions
   * (session/remembered-wiring.ts). Absent: nothing is remembered, so it asks.
   */
  memory?: { allowed(plan: DevContainerPlan): Promise<boolean>; remember(plan: DevContainerPlan): Promise<void> };
};

/** The user said no: nothing was built or started. */
export class DevContainerRefusedError extends Error {
  override name = "DevContainerRefusedError";
}

/** Reads and checks the definition, and resolves with its plan once the user agreed to it. */
export async function consentedDevContainer(
  options: { hostRoot: string; realRoot: string; mount: "copy" | "bind" },
  consent: DevContainerConsent,
): Promise<DevContainerPlan> {
  const dev = await checkDevContainerInputs(options.realRoot, await readDevContainer(options.hostRoot));
  const plan = await planDevContainer(options.realRoot, dev, options.mount);
  if (consent.trusted) return plan;
  if (await consent.memory?.allowed(plan)) return plan;
  if (!consent.ask)
    throw new ContainerInputError(
      `the dev container ${dev.file} has not been approved: nobody can be asked here, so nothing was built or started; ` +
        `review it and rerun with --trust-devcontainer, or open the project in an editor and answer "Always"`,
    );
  const answer = await consent.ask(plan);
  if (answer === "reject")
    throw new DevContainerRefusedError(
      `the dev container ${dev.file} was refused: nothing was built or started; fix or review it, then start a new session`,
    );
  if (answer === "always") await consent.memory?.remember(plan);
  return plan;
}
