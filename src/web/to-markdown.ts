// What the model gets from a response body: HTML becomes Markdown (node-html-markdown, loaded on the
// first fetch so startup never pays for it); text formats pass through; binary types are refused.

export type PageText = { title?: string; text: string; format: "markdown" | "text" };

const TEXT_TYPES =
  /^(text\/|application\/(json|ld\+json|xml|javascript|x-javascript|ecmascript|x-yaml|yaml|toml|x-sh|x-httpd-php|graphql)|[^;]*\+(json|xml))/i;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)/i;

type Translator = { translate(html: string, options?: Record<string, unknown>): string };
let translator: Promise<Translator> | undefined;

async function loadTranslator(): Promise<Translator> {
  translator ??= import("node-html-markdown").then((mod) => {
    const exported = mod as { NodeHtmlMarkdown?: Translator; default?: { NodeHtmlMarkdown: Translator } };
    return exported.NodeHtmlMarkdown ?? exported.default!.NodeHtmlMarkdown;
  });
  return translator;
}

/** Undefined when the content type is not text we can show the model. */
export async function pageText(body: Buffer, contentType: string): Promise<PageText | undefined> {
  const type = contentType.split(";")[0]!.trim();
  const looksHtml = type === "" && /^\s*(<!doctype html|<html)/i.test(body.subarray(0, 512).toString("latin1"));
  if (!HTML_TYPES.test(type) && !looksHtml && !(type === "" || TEXT_TYPES.test(type))) return undefined;
  const text = decode(body, contentType);
  if (!HTML_TYPES.test(type) && !looksHtml) return { text, format: "text" };
  const html = text.replace(/<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi, "");
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, " ").trim();
  const body_ = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  const markdown = (await loadTranslator()).translate(body_, { maxConsecutiveNewlines: 2 }).trim();
  return { ...(title ? { title: decodeEntities(title) } : {}), text: markdown, format: "markdown" };
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] ?? sniffCharset(body) ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

function sniffCharset(body: Buffer): string | undefined {
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(body.subarray(0, 2048).toString("latin1"))?.[1];
}

function decodeEntities(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39|apos|nbsp);/g,
    (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", apos: "'", nbsp: " " })[name] ?? _,
  );
}
