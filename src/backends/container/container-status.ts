import type { ContainerWorkspace } from "./container-workspace.js";
import { describeEngine, engineHealth } from "./engine.js";

/** One line for /status and doctor: which container, which engine, and how both are doing. */
export async function describeContainerWorkspace(workspace: ContainerWorkspace): Promise<string> {
  const { record } = workspace;
  const [engine, health] = await Promise.all([
    engineHealth(workspace.docker, workspace.address),
    workspace.backend.health(),
  ]);
  const where = `${record.url} (${record.mount} mode) — container ${record.containerId.slice(0, 12)}, project at ${record.containerRoot}`;
  if (!engine.ok) return `${where}; ${describeEngine(engine)}`;
  const parts = [
    health.ok ? `helper answers in ${health.helperMs} ms` : `helper: ${health.error ?? "not answering"}`,
    health.ok ? (health.ripgrep ? "search with rg" : "search with grep/find (no rg in the image)") : undefined,
    health.reconnects > 0 ? `${health.reconnects} reconnect${health.reconnects === 1 ? "" : "s"}` : undefined,
  ].filter(Boolean);
  return `${where}; ${describeEngine(engine)}; ${parts.join(", ")}`;
}
