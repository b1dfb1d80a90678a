import type { BackendProtocol } from "../../backends/protocol.js";

/** The file's current text for a diff preview: null when it does not exist or is not text. */
export async function currentText(backend: BackendProtocol, path: string): Promise<string | null> {
  const raw = await backend.readRaw(path);
  const content = raw.data?.content;
  return typeof content === "string" ? content : null;
}
