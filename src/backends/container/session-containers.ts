import { findSessionContainer, LABELS } from "./container-workspace.js";
import { engineAddress, engineError, loadDocker, type EngineOptions } from "./engine.js";
import { archiveTree, diffTree, type Change } from "./workspace-changes.js";
import { createWorkspaceStateStore } from "./workspace-state.js";

// The session containers as a whole: listing them with what each holds that the host does not
// (`deep-acp workspaces list`), and removing one (`workspaces rm`, `session/delete`, `sessions delete`).
// Only containers carrying the deep-acp.session label are ever touched, each by its id.

export type SessionContainer = {
  containerId: string;
  sessionId: string;
  state: string;
  url: string;
  mount: string;
  hostRoot: string;
  containerRoot: string;
  created: string;
  /** Copy mode: what differs from what was copied in (undefined: cannot tell). */
  unapplied?: Change[];
  note?: string;
};

export async function listSessionContainers(stateDir: string, engine: EngineOptions = {}): Promise<SessionContainer[]> {
  const address = engineAddress(engine);
  const docker = await loadDocker(engine);
  const state = createWorkspaceStateStore(stateDir);
  let list;
  try {
    list = await docker.listContainers({ all: true, filters: { label: [LABELS.session] } });
  } catch (error) {
    throw engineError(address, error);
  }
  return Promise.all(
    list.map(async (c): Promise<SessionContainer> => {
      const labels = c.Labels ?? {};
      const sessionId = labels[LABELS.session] ?? "";
      const record = await state.load(sessionId).catch(() => undefined);
      const containerRoot = labels[LABELS.folder] ?? labels[LABELS.root] ?? "";
      const item: SessionContainer = {
        containerId: c.Id,
        sessionId,
        state: c.State,
        url: labels[LABELS.url] ?? c.Image,
        mount: labels[LABELS.mount] ?? "copy",
        hostRoot: labels[LABELS.root] ?? "",
        containerRoot,
        created: new Date(c.Created * 1000).toISOString(),
      };
      if (item.mount === "bind") return item;
      if (!record?.baseline || record.containerId !== c.Id)
        return { ...item, note: "no record of what was copied in: unapplied changes unknown" };
      try {
        return { ...item, unapplied: await diffTree(record.baseline, await archiveTree(docker, c.Id, containerRoot)) };
      } catch (error) {
        return { ...item, note: `could not read its files: ${(error as Error).message}` };
      }
    }),
  );
}

/**
 * Removes the container of a session (and what the agent kept about it). Contacts the engine only
 * when the agent made a container for that session. Resolves with the removed container's id.
 */
export async function removeSessionContainer(
  stateDir: string,
  sessionId: string,
  engine: EngineOptions = {},
): Promise<string | undefined> {
  const state = createWorkspaceStateStore(stateDir);
  const record = await state.load(sessionId).catch(() => undefined);
  if (!record) return undefined;
  const docker = await loadDocker(engine);
  const found = await findSessionContainer(docker, sessionId).catch((error: unknown) => {
    throw engineError(engineAddress(engine), error);
  });
  if (found) await docker.getContainer(found.Id).remove({ force: true, v: true });
  await state.remove(sessionId);
  return found?.Id;
}
