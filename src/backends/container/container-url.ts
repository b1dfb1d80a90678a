// `--workspace` URLs for containers: `docker://IMAGE` and `devcontainer`, each with `?mount=bind` for
// bind mode (the project mounted read-write) instead of copy mode (the project copied in; nothing
// reaches the host until applied).

export type ContainerMount = "copy" | "bind";

export type ContainerSpec =
  { kind: "docker"; image: string; mount: ContainerMount } | { kind: "devcontainer"; mount: ContainerMount };

export function isContainerUrl(url: string): boolean {
  return url.startsWith("docker://") || url === "devcontainer" || url.startsWith("devcontainer?");
}

/** Throws with a message meant for the user. */
export function parseContainerUrl(url: string): ContainerSpec {
  const [head, query = ""] = splitOnce(url, "?");
  const params = new URLSearchParams(query);
  let mount: ContainerMount = "copy";
  for (const [key, value] of params) {
    if (key !== "mount") throw new Error(`unknown option "${key}" in ${url} (only mount=copy|bind)`);
    if (value !== "copy" && value !== "bind") throw new Error(`mount must be "copy" or "bind" (got "${value}")`);
    mount = value;
  }
  if (head === "devcontainer") return { kind: "devcontainer", mount };
  if (!head.startsWith("docker://"))
    throw new Error(`"${url}" is not a container workspace (docker://IMAGE or devcontainer, with ?mount=bind)`);
  const image = head.slice("docker://".length);
  if (!/^[a-z0-9][a-z0-9._\-/:@]*$/i.test(image) || image.includes("//"))
    throw new Error(`"${image || "(empty)"}" is not an image name (docker://IMAGE, e.g. docker://node:22)`);
  return { kind: "docker", image, mount };
}

export function formatContainerUrl(spec: ContainerSpec): string {
  const suffix = spec.mount === "bind" ? "?mount=bind" : "";
  return spec.kind === "docker" ? `docker://${spec.image}${suffix}` : `devcontainer${suffix}`;
}

function splitOnce(text: string, separator: string): [string, string?] {
  const at = text.indexOf(separator);
  return at === -1 ? [text] : [text.slice(0, at), text.slice(at + 1)];
}
