import type { Diagnostic } from "../../util/diagnostics.js";
import type { SessionServices } from "../services.js";
import { createWorkspace, type Workspace, type WorkspaceOptions } from "./workspace.js";

export type WorkspaceSlotOptions = Pick<
  WorkspaceOptions,
  "cwd" | "roots" | "editor" | "stateSnapshots" | "askHostKey" | "askDevContainer" | "sessionId" | "projectRoot"
> & {
  /** Told once a place that names itself to the editor is ready, with its URL (the editor shows which workspace a session uses). */
  onAnnounce?: (url: string) => void;
  services: SessionServices;
  /** Runs alongside the first build (the remembered approvals load then). */
  alongside?: () => Promise<unknown>;
  /** Problems found while building it (sandbox, routes, remote), for the next turn to show. */
  onDiagnostics(diagnostics: readonly Diagnostic[]): void;
};

/**
 * The session's workspace, built on first use from config.toml and replaced after /reload (file
 * rules, sandbox, routes and the remote come from there).
 */
export function createWorkspaceSlot(options: WorkspaceSlotOptions) {
  const { services } = options;
  let current: Promise<Workspace> | undefined;
  return {
    get(): Promise<Workspace> {
      current ??= services.config().then(async ({ config }) => {
        const { cwd, roots, editor, stateSnapshots, askHostKey, askDevContainer, sessionId, projectRoot } = options;
        const base = {
          cwd,
          roots,
          sessionId,
          projectRoot,
          config,
          flags: services.flags,
          paths: services.paths,
          editor,
          logger: services.logger,
          stateSnapshots,
        };
        const [workspace] = await Promise.all([
          createWorkspace({
            ...base,
            ...(askHostKey ? { askHostKey } : {}),
            ...(askDevContainer ? { askDevContainer } : {}),
          }),
          options.alongside?.(),
        ]);
        options.onDiagnostics(workspace.diagnostics);
        if (workspace.place.announce) options.onAnnounce?.(workspace.place.announce);
        return workspace;
      });
      return current;
    },
    /** The workspace if one was built (and did not fail). */
    async built(): Promise<Workspace | undefined> {
      return current?.catch(() => undefined);
    },
    /** Forgets the workspace; the next use builds a new one. A remote connection is closed. */
    reset(): void {
      const previous = current;
      current = undefined;
      void previous?.then((w) => w.dispose()).catch(() => undefined);
    },
    async dispose(): Promise<void> {
      await (await this.built())?.dispose();
    },
    /**
     * Where the session works when it is not this machine's disk, and how that is doing (connects
     * if needed), for /status; undefined for a local session. A workspace that fails to open says why.
     */
    async workspaceStatus(): Promise<{ label: string; text: string } | undefined> {
      let workspace: Workspace;
      try {
        workspace = await this.get();
      } catch (error) {
        return { label: "Workspace", text: `not available: ${(error as Error).message}` };
      }
      return workspace.place.status?.();
    },
  };
}

export type WorkspaceSlot = ReturnType<typeof createWorkspaceSlot>;
