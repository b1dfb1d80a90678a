import { createHash } from "node:crypto";
import { realpath } from "node:fs/promises";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { DevContainer } from "./devcontainer.js";
import { packTree } from "../project-archive.js";
import { holdsHome, homeRootMessage } from "../../../util/home-root.js";
import { isWithin, relativeWithin } from "../../../util/path-within.js";

// What a dev container may hand to the engine: the project and nothing else. Every input (the
// definition, the Dockerfile, the build context) is checked on its real path, links resolved, to be
// inside the project's real root: `build.context: "../../.."`, or a context that is a link to a
// folder outside, would otherwise send that folder (HOME, with ~/.ssh and the stored model keys) to
// the engine, where a `COPY . /x` keeps it in an image. Links *inside* the context are archived as
// links (project-archive.ts) and the engine resolves them inside the context, so they reach nothing.

/** Folders never sent as part of a build context (as in the copy of the project: large, or the host's). */
export const CONTEXT_SKIPPED = [".git", "node_modules"] as const;

/** An input outside the project, or a project root that is (or holds) HOME: nothing is built or started. */
export class ContainerInputError extends Error {
  override name = "ContainerInputError";
}

async function real(path: string, what: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    throw new ContainerInputError(`${what} ${path} cannot be resolved: ${(error as Error).message}`);
  }
}

/** The real project root of a container workspace; refuses HOME and any folder holding it. */
export async function containerProjectRoot(root: string, home: string): Promise<string> {
  const realRoot = await real(root, "the project root");
  if (await holdsHome(realRoot, home))
    throw new ContainerInputError(homeRootMessage(realRoot, home, "a container workspace"));
  return realRoot;
}

/**
 * The definition with its inputs replaced by their real paths, each checked to be inside `realRoot`
 * (and the Dockerfile inside the context). Throws ContainerInputError naming the input and where it leads.
 */
export async function checkDevContainerInputs(realRoot: string, dev: DevContainer): Promise<DevContainer> {
  const inside = async (path: string, what: string) => {
    const resolved = await real(path, `${dev.file}: ${what}`);
    if (!isWithin(resolved, realRoot))
      throw new ContainerInputError(
        `${dev.file}: ${what} ${path}${resolved === path ? "" : ` (resolves to ${resolved})`} is outside the project ${realRoot}; ` +
          `nothing of the host but the project goes to the engine: keep it inside the project`,
      );
    return resolved;
  };
  const file = await inside(dev.file, "the definition");
  if (!dev.build) return { ...dev, file };
  const context = await inside(dev.build.context, "the build context");
  const dockerfile = await inside(dev.build.dockerfile, "the Dockerfile");
  if (relativeWithin(context, dockerfile) === undefined)
    throw new ContainerInputError(
      `${dev.file}: the Dockerfile ${dockerfile} must be inside the build context ${context}`,
    );
  return { ...dev, file, build: { ...dev.build, context, dockerfile } };
}

/**
 * A hash of what the build context holds (names, modes, contents, link targets; not times), read the
 * way it is sent: links as links, CONTEXT_SKIPPED left out.
 */
export async function contextHash(context: string): Promise<string> {
  const { stream, done } = await packTree(context, { prefix: "", skip: CONTEXT_SKIPPED });
  await pipeline(stream, new Writable({ write: (_chunk, _encoding, next) => next() }));
  const baseline = await done;
  const entries = Object.keys(baseline)
    .sort()
    .map((path) => {
      const e = baseline[path]!;
      return e.type === "link" ? [path, "link", e.target] : [path, e.mode, e.sha256];
    });
  return createHash("sha256").update(JSON.stringify(entries)).digest("hex");
}
