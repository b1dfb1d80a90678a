import type { BackendProtocol, SandboxBackendProtocol } from "../../backends/protocol.js";
import type { RealPathFs } from "../../backends/paths/real-path.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import type { UserPaths } from "../../config/paths.js";
import type { HostSurfaceCache } from "../../gate/surfaces/host-surface-cache.js";
import type { ProtectedPaths } from "../../gate/surfaces/protected-paths.js";
import type { PromptBlock } from "../../tools/types.js";
import type { Diagnostic } from "../../util/diagnostics.js";
import type { ApplyOptions, ApplyReport } from "./container-changes.js";
import type { EditorBridge } from "../../backends/editor/editor-bridge.js";
import type { StateSnapshot } from "../../backends/state/state-backend.js";
import type { HostKey } from "../../backends/ssh/ssh-connection.js";
import type { HostKeyAnswer } from "../../backends/ssh/ssh-host-trust.js";
import type { PlanAnswer } from "../../backends/container/devcontainer/devcontainer-consent.js";
import type { DevContainerPlan } from "../../backends/container/devcontainer/devcontainer-plan.js";
import type { Logger } from "../../util/logger.js";
import type { SessionFlags } from "../services.js";

// One interface for every place a session's files and commands can live (this machine, bubblewrap,
// an SSH host, a container). Each kind is one folder beside this file and one line in place-kinds.ts;
// the session holds a Place and never asks which kind it is: what differs is in the members, and
// what only some kinds have (changes to apply, a status line, mapped mentions) is an optional member.

export type WorkspaceOptions = {
  cwd: string;
  roots: readonly string[];
  config: DeepAcpConfig;
  flags: SessionFlags;
  paths: UserPaths;
  editor?: EditorBridge;
  logger: Logger;
  /** Files of the session-scoped routes, saved with the session (by route prefix). */
  stateSnapshots?: Record<string, StateSnapshot>;
  /** The session's id (its container is labelled with it) and project root (what a container holds). */
  sessionId: string;
  projectRoot: string;
  /** The editor's dialog for an unknown SSH host key (remote workspaces); absent when nobody can answer. */
  askHostKey?: (key: HostKey, url: string) => Promise<HostKeyAnswer>;
  /** The editor's dialog for what a dev container will do; absent when nobody can answer. */
  askDevContainer?: (plan: DevContainerPlan) => Promise<PlanAnswer>;
};

/** What every kind's open() reads, and the diagnostics it adds to. */
export type PlaceSetup = {
  options: WorkspaceOptions;
  limits: { defaultTimeoutMs: number; maxOutputChars: number };
  env: { passEnv: string[] };
  protectedPaths: ProtectedPaths;
  /** The host's answer to what decides what runs on it (a place may translate it, or have none). */
  surfaces: HostSurfaceCache;
  diagnostics: Diagnostic[];
};

/** Where a session's files and commands are, once opened. */
export type Place = {
  /** Every file operation, before the agent's own routes and the file rules. */
  files: BackendProtocol;
  /** Where commands run; absent when they cannot (a sandbox was asked for but is unavailable). */
  shell?: SandboxBackendProtocol;
  /** The working directory and roots the tools and the model see (the place's own paths). */
  cwd: string;
  roots: string[];
  /** Where the gate follows links; absent: the files are this machine's disk. */
  realPathFs?: RealPathFs;
  /** What decides what runs on the host, for this place's paths; absent when nothing here can. */
  surfaces?: HostSurfaceCache;
  /** Commands run inside bubblewrap. */
  sandboxed: boolean;
  /** The editor may serve the files (its buffers); `terminals`: and run the commands. Absent: never. */
  editor?: { terminals: boolean };
  /** The URL the editor is told once the place is ready (session_info.workspace). */
  announce?: string;
  /** File mentions arrive as local paths; a place elsewhere names them by its own. */
  mentions?(blocks: readonly PromptBlock[], localCwd: string): PromptBlock[];
  /** For /status: where the session works and how that is doing (connects if needed). */
  status?(): Promise<{ label: string; text: string }>;
  /** /changes and /apply: a place that holds its own copy of the project. */
  changes?: PlaceChanges;
  /** Lets go of what open() took (a connection, a container); the place's files stay. */
  dispose(): Promise<void>;
};

export type PlaceChanges = {
  describe(config: DeepAcpConfig): Promise<string>;
  apply(options: Omit<ApplyOptions, "workspace">): Promise<ApplyReport>;
};

/** Where a session is when a place is chosen for it. `local`: the local root the URL stands for. */
export type PlaceAt = {
  cwd: string;
  roots: readonly string[];
  local?: string;
  /** Where the choice came from ("--workspace", a config.toml table), for /status and doctor. */
  source: string;
};

/** What `doctor` is given to check a place without a session. */
export type PlaceCheckOptions = { cwd: string; home: string; config: DeepAcpConfig; trustRemoteHost: boolean };

/** A kind's reading of one URL for one session: what open() and doctor's check start from. */
export type PlaceTarget = {
  /** The URL as the place names itself (for /status, doctor and the editor). */
  url: string;
  open(setup: PlaceSetup): Promise<Place>;
  /** doctor: whether the place answers, in one line (`title` heads doctor's section). */
  check?(options: PlaceCheckOptions): Promise<{ ok: boolean; summary: string; title: string }>;
};

/** One kind of place, registered in place-kinds.ts. */
export type PlaceKind = {
  /** The kind's name (doctor's facts, messages). */
  name: string;
  /** URL schemes it opens: "ssh" for ssh://..., "devcontainer" for devcontainer?mount=bind. */
  schemes: readonly string[];
  /** How its URLs look, for the message about a URL that names no kind. */
  usage?: string;
  /** A kind chosen when no URL is (this machine): whether it is the one for this sandbox setting. */
  here?(sandbox: string): boolean;
  /** Reads a URL (empty for a here kind); throws with a message meant for the user. */
  select(url: string, at: PlaceAt): PlaceTarget;
  /** session/delete: what the kind keeps for a session beyond its files (a container) goes. */
  forgetSession?(paths: UserPaths, sessionId: string): Promise<void>;
};
