import type { Docker } from "../engine.js";
import { IMAGE_LABELS, IMAGE_REPOSITORY } from "./devcontainer-plan.js";

// The images deep-acp built from dev containers, for `deep-acp workspaces list` and `rm`: the
// labelled ones, and the `deep-acp-devcontainer:*` tags of older versions (keyed by the context's
// path, unlabelled), which may hold whatever such a context sent. An image a container still uses
// is not removed: its container goes first.

export type BuiltImage = {
  id: string;
  tags: string[];
  /** The project it was built from ("" for an older, unlabelled image). */
  root: string;
  definition: string;
  created: string;
  size: number;
  /** Containers (any, not only deep-acp's) made from it. */
  usedBy: string[];
};

export async function listBuiltImages(docker: Docker): Promise<BuiltImage[]> {
  const [labelled, tagged] = await Promise.all([
    docker.listImages({ filters: { label: [IMAGE_LABELS.image] } }),
    docker.listImages({ filters: { reference: [IMAGE_REPOSITORY] } }),
  ]);
  const byId = new Map([...labelled, ...tagged].map((image) => [image.Id, image]));
  const containers = await docker.listContainers({ all: true });
  return [...byId.values()]
    .map((image) => {
      const labels = image.Labels ?? {};
      return {
        id: image.Id,
        tags: (image.RepoTags ?? []).filter((t) => t !== "<none>:<none>"),
        root: labels[IMAGE_LABELS.root] ?? "",
        definition: labels[IMAGE_LABELS.definition] ?? "",
        created: new Date(image.Created * 1000).toISOString(),
        size: image.Size,
        usedBy: containers.filter((c) => c.ImageID === image.Id).map((c) => c.Id),
      };
    })
    .sort((a, b) => a.created.localeCompare(b.created));
}

/** The built image `id` names: a tag, or an image id (with or without "sha256:", 6+ characters of it). */
export function findBuiltImage(images: readonly BuiltImage[], id: string): BuiltImage | undefined {
  const hex = id.replace(/^sha256:/, "");
  return images.find(
    (image) => image.tags.includes(id) || (hex.length >= 6 && image.id.replace(/^sha256:/, "").startsWith(hex)),
  );
}

/** Removes a built image no container uses; throws, naming them, when some do. */
export async function removeBuiltImage(docker: Docker, image: BuiltImage): Promise<void> {
  if (image.usedBy.length > 0)
    throw new Error(
      `image ${image.tags[0] ?? shortId(image.id)} is used by container(s) ${image.usedBy.map(shortId).join(", ")}: remove them first (deep-acp workspaces rm ID)`,
    );
  await docker.getImage(image.id).remove({ force: true });
}

export const shortId = (id: string) => id.replace(/^sha256:/, "").slice(0, 12);
