import type * as acp from "@agentclientprotocol/sdk/unstable";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { PromptBlock } from "../tools/types.js";

/**
 * ACP prompt content to session prompt blocks. `resource_link`s to files (file:// or a path relative
 * to the session cwd, as Zed's tests send) become file mentions the session will read.
 */
export function toPromptBlocks(blocks: readonly acp.ContentBlock[], cwd: string): PromptBlock[] {
  const out: PromptBlock[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        out.push({ type: "text", text: block.text });
        break;
      case "image":
        out.push({
          type: "image",
          mimeType: block.mimeType,
          data: block.data,
          ...(block.uri ? { uri: block.uri } : {}),
        });
        break;
      case "audio":
        out.push({ type: "text", text: `[audio clip (${block.mimeType}) omitted: audio is not supported]` });
        break;
      case "resource_link": {
        const path = filePathOf(block.uri, cwd);
        out.push(
          path
            ? { type: "file", path, name: block.name, uri: block.uri }
            : { type: "link", uri: block.uri, name: block.name },
        );
        break;
      }
      case "resource": {
        const resource = block.resource;
        if ("text" in resource)
          out.push({
            type: "resource",
            uri: resource.uri,
            text: resource.text,
            ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
          });
        else
          out.push({
            type: "resource",
            uri: resource.uri,
            blob: resource.blob,
            ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
          });
        break;
      }
    }
  }
  return out;
}

/** Absolute path for a file URI or a scheme-less path; undefined for other schemes (http, zed, ...). */
export function filePathOf(uri: string, cwd: string): string | undefined {
  if (uri.startsWith("file://")) {
    try {
      return fileURLToPath(uri);
    } catch {
      return undefined;
    }
  }
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(uri)) return undefined;
  return isAbsolute(uri) ? uri : resolve(cwd, uri);
}

/** Session prompt blocks back to ACP content, for replaying user messages on session/load. */
export function toContentBlocks(blocks: readonly PromptBlock[]): acp.ContentBlock[] {
  return blocks.map((block): acp.ContentBlock => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text };
      case "image":
        return { type: "image", mimeType: block.mimeType, data: block.data, ...(block.uri ? { uri: block.uri } : {}) };
      case "file":
        return { type: "resource_link", uri: block.uri, name: block.name };
      case "link":
        return { type: "resource_link", uri: block.uri, name: block.name };
      case "resource":
        return block.text !== undefined
          ? {
              type: "resource",
              resource: { uri: block.uri, text: block.text, ...(block.mimeType ? { mimeType: block.mimeType } : {}) },
            }
          : {
              type: "resource",
              resource: {
                uri: block.uri,
                blob: block.blob ?? "",
                ...(block.mimeType ? { mimeType: block.mimeType } : {}),
              },
            };
    }
  });
}
