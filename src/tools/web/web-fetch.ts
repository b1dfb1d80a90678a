import { z } from "zod";
import { createAddressPolicy, type AddressPolicy } from "../../web/address-policy.js";
import { httpGet, WebFetchError, type Resolver } from "../../web/http-get.js";
import type { ProxyEnv } from "../../web/proxy.js";
import { pageText } from "../../web/to-markdown.js";
import { defineTool } from "../define-tool.js";
import type { ToolResult } from "../types.js";

const schema = z.object({
  url: z.string().min(1).describe("The http(s) URL to fetch"),
});

export type WebFetchToolOptions = {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** CIDRs of private networks that may be fetched (config `[web_fetch] allow_private_networks`). */
  allowPrivateNetworks: readonly string[];
  /** HTTPS_PROXY, HTTP_PROXY, NO_PROXY (either case). */
  env: ProxyEnv;
  userAgent: string;
  resolve?: Resolver;
};

/** `web_fetch {url}`: one page as Markdown (HTML) or text; asks once per host unless "always" was chosen. */
export function createWebFetchTool(options: WebFetchToolOptions) {
  let policy: AddressPolicy | Error | undefined;
  const addressPolicy = () =>
    (policy ??= safely(() => createAddressPolicy({ allowPrivate: options.allowPrivateNetworks })));
  return defineTool({
    name: "web_fetch",
    hookName: "WebFetch",
    kind: "fetch",
    effect: "network",
    schema,
    description: [
      "Fetches an http(s) URL and returns the page as Markdown (HTML is converted; text and JSON are returned as is).",
      `Follows up to ${options.maxRedirects} redirects on the same host (a redirect to another host is reported, not followed); reads at most ${Math.round(options.maxBytes / 1000)} kB within ${Math.round(options.timeoutMs / 1000)} s.`,
      "Addresses on the local machine or private networks are refused. Each new host needs the user's approval.",
    ].join("\n"),
    present(input) {
      return { title: `Fetch ${input.url}` };
    },
    async execute(input, ctx): Promise<ToolResult> {
      const resolvedPolicy = addressPolicy();
      if (resolvedPolicy instanceof Error) return failure(`Error: ${resolvedPolicy.message}`);
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(options.timeoutMs)]);
      try {
        const page = await httpGet(input.url, {
          policy: resolvedPolicy,
          maxBytes: options.maxBytes,
          maxRedirects: options.maxRedirects,
          signal,
          env: options.env,
          userAgent: options.userAgent,
          resolve: options.resolve,
        });
        const text = await pageText(page.body, page.contentType);
        if (!text)
          return failure(
            `Error: ${page.url} returned ${page.contentType || "an unknown type"}, which is not text; it was not fetched into the conversation.`,
          );
        const header = [
          ...(text.title ? [`# ${text.title}`] : []),
          `URL: ${page.url}${page.redirects.length > 0 ? ` (redirected from ${input.url})` : ""}`,
          ...(page.status >= 400 ? [`HTTP ${page.status} ${page.statusText}`] : []),
          ...(page.truncated ? [`[Only the first ${page.body.length} bytes were read]`] : []),
        ].join("\n");
        return {
          content: [{ type: "text", text: `${header}\n\n${text.text}` }],
          isError: page.status >= 400,
          rawOutput: {
            url: page.url,
            status: page.status,
            contentType: page.contentType,
            bytes: page.body.length,
            truncated: page.truncated,
            redirects: page.redirects,
          },
        };
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        if (signal.aborted)
          return failure(`Error: fetching ${input.url} timed out after ${Math.round(options.timeoutMs / 1000)} s`);
        if (error instanceof WebFetchError) return failure(`Error: ${error.message}`);
        return failure(`Error: fetching ${input.url} failed: ${(error as Error).message}`);
      }
    },
  });
}

function failure(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function safely<T>(make: () => T): T | Error {
  try {
    return make();
  } catch (error) {
    return error as Error;
  }
}
