import type { Readable } from "node:stream";
import type Dockerode from "dockerode";

// Reading a container's files through the archive API, which works whether or not the container
// runs: a user's uid from /etc/passwd before the first start, and the project tree of a stopped
// container (`deep-acp workspaces list`).

export type ArchiveEntry = {
  name: string;
  type: "file" | "directory" | "symlink" | "other";
  mode: number;
  size: number;
  mtime: number;
  linkname?: string;
  data?: Buffer;
};

type Extract = Readable & {
  on(
    event: "entry",
    listener: (header: Record<string, unknown>, stream: Readable, next: (error?: Error) => void) => void,
  ): Extract;
};

/** Every entry of a tar stream, file contents included. */
export async function readArchive(archive: NodeJS.ReadableStream): Promise<ArchiveEntry[]> {
  const tar = (await import("tar-stream")) as unknown as { extract(): Extract; default?: { extract(): Extract } };
  const extract = (tar.extract ?? tar.default!.extract)();
  const entries: ArchiveEntry[] = [];
  return new Promise((resolve, reject) => {
    extract.on("entry", (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const type = header.type as string;
        entries.push({
          name: String(header.name),
          type: type === "file" || type === "directory" || type === "symlink" ? type : "other",
          mode: Number(header.mode ?? 0),
          size: Number(header.size ?? 0),
          mtime: Math.floor(((header.mtime as Date | undefined)?.getTime() ?? 0) / 1000),
          ...(header.linkname ? { linkname: String(header.linkname) } : {}),
          ...(type === "file" ? { data: Buffer.concat(chunks) } : {}),
        });
        next();
      });
      stream.resume();
    });
    extract.on("finish", () => resolve(entries));
    extract.on("error", reject);
    archive.on("error", reject);
    archive.pipe(extract as unknown as NodeJS.WritableStream);
  });
}

export async function readContainerFile(container: Dockerode.Container, path: string): Promise<Buffer | undefined> {
  const archive = await container.getArchive({ path }).catch(() => undefined);
  if (!archive) return undefined;
  const entries = await readArchive(archive);
  return entries.find((e) => e.type === "file")?.data;
}

/** uid and gid of `user` ("name", "uid", "uid:gid", "name:group") in the image; root by default. */
export async function resolveUser(
  container: Dockerode.Container,
  user: string | undefined,
): Promise<{ uid: number; gid: number }> {
  if (!user) return { uid: 0, gid: 0 };
  const [name, group] = user.split(":");
  const lookup = async (file: string, key: string) => {
    if (/^\d+$/.test(key)) return { id: Number(key), gid: undefined };
    const text = (await readContainerFile(container, file))?.toString("utf8") ?? "";
    const line = text.split("\n").find((l) => l.split(":")[0] === key);
    if (!line) throw new Error(`user or group "${key}" does not exist in the image (${file})`);
    const fields = line.split(":");
    return { id: Number(fields[2]), gid: Number(fields[3]) };
  };
  const u = await lookup("/etc/passwd", name!);
  const gid = group !== undefined ? (await lookup("/etc/group", group)).id : (u.gid ?? u.id);
  return { uid: u.id, gid };
}
