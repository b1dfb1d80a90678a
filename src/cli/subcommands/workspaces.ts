import {
  listSessionContainers,
  removeSessionContainer,
  type SessionContainer,
} from "../../backends/container/session-containers.js";
import { userPaths } from "../../config/paths.js";
import type { CliOptions } from "../args/args.js";
import { terminalSafeIo } from "../../util/terminal-text.js";

export type WorkspacesIo = { stdout: (text: string) => void; stderr: (text: string) => void };
const defaultIo: WorkspacesIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
};

const usage = (io: WorkspacesIo) => {
  io.stderr("usage: deep-acp workspaces list [--json] | rm ID [--force] (ID: a container, session or built image)\n");
  return 2;
};

/**
 * Why `workspaces rm` without --force keeps `item`, or undefined when removing it loses nothing: a
 * copy-mode container whose changes were all applied, or a bind-mode one (its files are the host's).
 * Unknown counts as unapplied: no record here (made under another HOME, or the record is lost) or
 * files that could not be read.
 */
export function whyNotRemove(item: SessionContainer): string | undefined {
  if (item.mount === "bind") return undefined;
  const rerun = "or rerun with --force to discard it";
  if (item.unapplied === undefined)
    return `may hold unapplied work (${item.note ?? "unapplied changes unknown"}); open its session (HOME of the user who made it) and /apply, ${rerun}`;
  if (item.unapplied.length === 0) return undefined;
  return `holds ${item.unapplied.length} unapplied change(s): ${item.unapplied.map((c) => c.path).join(", ")}; apply them (/apply in its session) ${rerun}`;
}

/** The images built from dev containers (devcontainer-images.ts). */
async function builtImages() {
  const [{ loadDocker }, { listBuiltImages }] = await Promise.all([
    import("../../backends/container/engine.js"),
    import("../../backends/container/devcontainer/devcontainer-images.js"),
  ]);
  return listBuiltImages(await loadDocker());
}

function printImages(images: Awaited<ReturnType<typeof builtImages>>, io: WorkspacesIo): void {
  if (images.length === 0) return;
  io.stdout("Images built from dev containers:\n");
  for (const image of images) {
    const name = image.tags[0] ?? "<untagged>";
    const from = image.root ? `from ${image.root}` : "from an older deep-acp (unlabelled: origin unknown)";
    const used = image.usedBy.length > 0 ? `, used by ${image.usedBy.map((c) => c.slice(0, 12)).join(", ")}` : "";
    io.stdout(
      `${image.id.replace(/^sha256:/, "").slice(0, 12)}  ${name}  ${Math.round(image.size / 1e6)} MB  ${from}${used}\n`,
    );
  }
}

/** `rm` of a built image (by tag or id); false when `id` names none. */
async function removeImage(id: string, io: WorkspacesIo): Promise<boolean> {
  const { findBuiltImage, removeBuiltImage, shortId } =
    await import("../../backends/container/devcontainer/devcontainer-images.js");
  const image = findBuiltImage(await builtImages(), id);
  if (!image) return false;
  const { loadDocker } = await import("../../backends/container/engine.js");
  await removeBuiltImage(await loadDocker(), image);
  io.stdout(`Removed image ${image.tags[0] ?? shortId(image.id)} (${shortId(image.id)}).\n`);
  return true;
}

/** `deep-acp workspaces list [--json] | rm ID [--force]`: the session containers and built images on the engine. */
export async function runWorkspacesCommand(
  cli: CliOptions,
  args: string[],
  io: WorkspacesIo = defaultIo,
): Promise<number> {
  // File names come from inside the container, labels from whoever made it.
  io = terminalSafeIo(io);
  const { stateDir } = userPaths(cli.agent);
  const [action, id] = args;
  try {
    if (action === undefined || action === "list") {
      const items = await listSessionContainers(stateDir);
      const images = await builtImages();
      if (cli.json) {
        io.stdout(
          JSON.stringify(
            [
              ...items.map((i) => ({ ...i, unapplied: i.unapplied?.map((c) => ({ path: c.path, kind: c.kind })) })),
              ...images.map((image) => ({ kind: "image", ...image })),
            ],
            null,
            2,
          ) + "\n",
        );
        return 0;
      }
      if (items.length === 0) io.stdout("No session containers.\n");
      for (const i of items) {
        io.stdout(`${i.containerId.slice(0, 12)}  ${i.state}  ${i.url}  ${i.hostRoot}  session ${i.sessionId}\n`);
        if (i.note) io.stdout(`  ${i.note}\n`);
        else if (i.unapplied?.length)
          io.stdout(
            `  unapplied changes (${i.unapplied.length}): ${i.unapplied.map((c) => `${c.kind} ${c.path}`).join(", ")}\n`,
          );
        else if (i.unapplied) io.stdout("  no unapplied changes\n");
      }
      printImages(images, io);
      return 0;
    }
    if (action === "rm") {
      if (!id) return usage(io);
      const items = await listSessionContainers(stateDir);
      const item = items.find((i) => i.sessionId === id || (id.length >= 6 && i.containerId.startsWith(id)));
      if (!item && (await removeImage(id, io))) return 0;
      if (!item) {
        io.stderr(`deep-acp: no session container ${id} (deep-acp workspaces list shows them)\n`);
        return 1;
      }
      const refusal = cli.force ? undefined : whyNotRemove(item);
      if (refusal) {
        io.stderr(`deep-acp: container ${item.containerId.slice(0, 12)} ${refusal}\n`);
        return 1;
      }
      await removeSessionContainer(stateDir, item.sessionId);
      // A container without a record (made elsewhere, or its record lost) goes by its id all the same.
      const { loadDocker } = await import("../../backends/container/engine.js");
      await (
        await loadDocker()
      )
        .getContainer(item.containerId)
        .remove({ force: true, v: true })
        .catch(() => undefined);
      io.stdout(`Removed container ${item.containerId.slice(0, 12)} (session ${item.sessionId}).\n`);
      return 0;
    }
    return usage(io);
  } catch (error) {
    io.stderr(`deep-acp: ${(error as Error).message}\n`);
    return 1;
  }
}
