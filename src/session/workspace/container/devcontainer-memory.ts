import { createDevContainerTrust } from "../../../backends/container/devcontainer/devcontainer-trust.js";
import type { DevContainerConsent } from "../../../backends/container/devcontainer/devcontainer-consent.js";
import { createRemembered, rememberedKey, type RememberedStore } from "../../../gate/memory/remembered.js";
import { canonicalRoot } from "../../../util/path-within.js";

// Dev container "always" answers as a backing of the one store of remembered decisions
// (gate/memory/remembered.ts), kept in devcontainer_trust.json by the plan's fingerprint (a changed
// definition or Dockerfile has another one, so it asks again) for this project's root.

export function devContainerBacking(stateDir: string, projectRoot: string): RememberedStore {
  const root = canonicalRoot(projectRoot);
  const containers = createDevContainerTrust(stateDir);
  return {
    kind: "devcontainer",
    scope: "project",
    read: async (fingerprint, binding) =>
      (await containers.isTrusted({ fingerprint, root: String(binding?.["root"] ?? root) })) ? "allow" : undefined,
    write: (fingerprint, _decision, _label, binding) =>
      containers.trust({
        fingerprint,
        root: String(binding?.["root"] ?? root),
        definition: String(binding?.["definition"] ?? ""),
      }),
    list: async () =>
      (await containers.list())
        .filter((entry) => canonicalRoot(entry.root) === root)
        .map((entry) => ({
          id: entry.fingerprint,
          decision: "allow" as const,
          label: `dev container of ${entry.root}${entry.definition ? ` (${entry.definition})` : ""}`,
          scope: "project" as const,
        })),
    forget: (fingerprint) => containers.forget(fingerprint),
  };
}

/** What a dev container's consent reads and keeps, through the one store. */
export function devContainerMemory(stateDir: string, projectRoot: string): NonNullable<DevContainerConsent["memory"]> {
  const remembered = createRemembered([devContainerBacking(stateDir, projectRoot)]);
  return {
    // The plan's root is the real root the container holds (what the file has always been keyed by).
    allowed: async (plan) =>
      (await remembered.lookup(rememberedKey("devcontainer", plan.fingerprint), { root: plan.root })) === "allow",
    remember: (plan) =>
      remembered.remember(
        rememberedKey("devcontainer", plan.fingerprint),
        "allow",
        "project",
        `dev container of ${plan.root} (${plan.dev.file})`,
        { root: plan.root, definition: plan.dev.file },
      ),
  };
}
