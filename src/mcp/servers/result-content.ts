// MCP CallToolResult -> ToolResult: what the model reads and what the editor shows.

import type { UserContent } from "../../model/types.js";
import type { ToolDisplay, ToolResult } from "../../tools/types.js";

type McpContent = { type: string; [key: string]: unknown };

export type McpCallResult = {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  /** Old protocol versions return `toolResult` instead of `content`. */
  toolResult?: unknown;
};

export function convertCallResult(result: McpCallResult, label: string): ToolResult {
  const items = Array.isArray(result.content) ? (result.content as McpContent[]) : [];
  const content: UserContent[] = [];
  const display: ToolDisplay[] = [];
  const text = (value: string) => {
    content.push({ type: "text", text: value });
    display.push({ type: "text", text: value });
  };
  const image = (mimeType: string, data: string) => {
    content.push({ type: "image", mimeType, data });
    display.push({ type: "image", mimeType, data });
  };

  for (const item of items) {
    switch (item.type) {
      case "text":
        text(String(item.text ?? ""));
        break;
      case "image":
        if (typeof item.data === "string" && typeof item.mimeType === "string") image(item.mimeType, item.data);
        else text("[image without data]");
        break;
      case "audio":
        text(`[audio ${String(item.mimeType ?? "")}, ${base64Bytes(item.data)} bytes: not shown to the model]`);
        break;
      case "resource":
        embeddedResource(item.resource, text, image);
        break;
      case "resource_link": {
        const description = typeof item.description === "string" ? ` - ${item.description}` : "";
        const mime = typeof item.mimeType === "string" ? ` (${item.mimeType})` : "";
        text(`[resource link] ${String(item.name ?? item.uri)}: ${String(item.uri)}${mime}${description}`);
        break;
      }
      default:
        text(`[unsupported MCP content type "${item.type}"]`);
    }
  }

  if (content.length === 0 && result.structuredContent !== undefined)
    text(JSON.stringify(result.structuredContent, null, 2));
  if (content.length === 0 && result.toolResult !== undefined)
    text(typeof result.toolResult === "string" ? result.toolResult : JSON.stringify(result.toolResult));
  const isError = result.isError === true;
  if (content.length === 0) text(isError ? `${label} failed without a message` : `${label} returned no content`);

  return {
    content,
    display,
    ...(isError ? { isError: true } : {}),
    ...(result.structuredContent !== undefined ? { rawOutput: result.structuredContent } : {}),
  };
}

function embeddedResource(
  resource: unknown,
  text: (value: string) => void,
  image: (mime: string, data: string) => void,
): void {
  if (typeof resource !== "object" || resource === null) {
    text("[embedded resource without content]");
    return;
  }
  const r = resource as Record<string, unknown>;
  const uri = String(r.uri ?? "");
  const mime = typeof r.mimeType === "string" ? r.mimeType : undefined;
  if (typeof r.text === "string") {
    text(`[resource ${uri}${mime ? ` (${mime})` : ""}]\n${r.text}`);
  } else if (typeof r.blob === "string") {
    if (mime?.startsWith("image/")) image(mime, r.blob);
    else if (mime && isTextual(mime))
      text(`[resource ${uri} (${mime})]\n${Buffer.from(r.blob, "base64").toString("utf8")}`);
    else text(`[resource ${uri}${mime ? ` (${mime})` : ""}: ${base64Bytes(r.blob)} bytes of binary data not shown]`);
  } else {
    text(`[resource ${uri}]`);
  }
}

function isTextual(mime: string): boolean {
  return mime.startsWith("text/") || /\b(json|xml|yaml|javascript|csv)\b/.test(mime);
}

function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
