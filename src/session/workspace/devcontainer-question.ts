import type { PlanAnswer } from "../../backends/container/devcontainer/devcontainer-consent.js";
import type { DevContainerPlan } from "../../backends/container/devcontainer/devcontainer-plan.js";
import type { TrustQuestion } from "../../gate/seams/through-door.js";

// The editor's dialog before a dev container is built or started: what it will build, send to the
// engine, copy or mount, and run, and what deep-acp does not honour. Refusing fails the session's
// start with that reason; "Always" is kept by the plan's fingerprint (a changed definition or
// Dockerfile asks again).

export function devContainerQuestion(plan: DevContainerPlan): TrustQuestion {
  return {
    key: `devcontainer-${plan.fingerprint.slice(0, 24)}`,
    title: plan.build
      ? `Build and start the dev container of ${plan.root}?`
      : `Start the dev container of ${plan.root} (image ${plan.image})?`,
    body: plan.description,
    options: [
      { id: "once", name: "Build and start this time", kind: "allow_once" },
      { id: "always", name: "Always for this definition", kind: "allow_always" },
      { id: "reject", name: "Do not build or start it", kind: "reject_once" },
    ],
  };
}

export function planAnswer(optionId: string): PlanAnswer {
  return optionId === "once" || optionId === "always" ? optionId : "reject";
}
