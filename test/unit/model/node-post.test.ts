import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { streamSse } from "../../../src/model/wire/http.js";
import { ModelApiError } from "../../../src/model/errors.js";
import { startTestProxy } from "../../support/test-proxy.js";

// The model streams' default transport (node:http, src/model/wire/node-post.ts) against real local
// servers: what reaches the server, what the caller reads, and what happens on abort and redirects.

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;
const servers: Server[] = [];

async function serve(handler: Handler): Promise<{
  url: string;
  seen: Array<{ url: string; headers: IncomingMessage["headers"]; body: string }>;
  closed: Promise<void>;
}> {
  const seen: Array<{ url: string; headers: IncomingMessage["headers"]; body: string }> = [];
  let connectionClosed!: () => void;
  const closed = new Promise<void>((resolve) => (connectionClosed = resolve));
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8").on("data", (part: string) => (body += part));
    request.on("end", () => {
      seen.push({ url: request.url ?? "", headers: request.headers, body });
      response.on("close", () => connectionClosed());
      handler(request, response, body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, closed };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const sse = (data: string) => `event: message\ndata: ${data}\n\n`;

/** Reads the stream to its end or first error; `afterBatch` may abort, or return false to stop reading. */
async function read(
  url: string,
  options: { signal?: AbortSignal; afterBatch?: () => boolean | void; proxyEnv?: Record<string, string> } = {},
): Promise<{ seen: string[]; error?: unknown }> {
  const seen: string[] = [];
  const signal = options.signal ?? new AbortController().signal;
  try {
    for await (const batch of streamSse({
      url,
      headers: { "x-api-key": "secret" },
      body: { hi: 1 },
      signal,
      label: "Test API",
      proxyEnv: options.proxyEnv ?? {},
    })) {
      for (const event of batch) seen.push(event.data);
      if (options.afterBatch?.() === false) break;
    }
    return { seen };
  } catch (error) {
    return { seen, error };
  }
}

describe("node:http transport", () => {
  it("POSTs the JSON body with the caller's headers and yields the events as they arrive", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(sse("one"));
      // An event split across writes, and a multi-byte character split across them too.
      response.write("data: tw");
      response.write(Buffer.from("o é").subarray(0, 4));
      setTimeout(() => response.end(Buffer.concat([Buffer.from("o é").subarray(4), Buffer.from("\n\n")])), 20);
    });
    expect(await read(`${server.url}/v1/messages`)).toEqual({ seen: ["one", "two é"] });
    expect(server.seen).toHaveLength(1);
    expect(server.seen[0]!.url).toBe("/v1/messages");
    expect(JSON.parse(server.seen[0]!.body)).toEqual({ hi: 1 });
    expect(server.seen[0]!.headers).toMatchObject({
      "x-api-key": "secret",
      "content-type": "application/json",
      accept: "text/event-stream",
      "content-length": String(Buffer.byteLength(server.seen[0]!.body)),
    });
  });

  it("reads a stream and its headers without loading fetch's HTTP client (undici)", async () => {
    // In Node 20 the first Headers, Response or fetch loads all of undici (~25-50 ms of CPU): on a
    // cold start that sat between the first model response and the first word the editor shows.
    const dir = await mkdtemp(join(tmpdir(), "deep-acp-node-post-"));
    const script = join(dir, "read.mts");
    await writeFile(
      script,
      `import { createServer } from "node:http";
import { streamSse } from ${JSON.stringify(resolve(import.meta.dirname, "../../../src/model/wire/http.ts"))};
const server = createServer((_request, response) => {
  response.writeHead(500, { "content-type": "application/json", "X-Should-Retry": "false" });
  response.end('{"error":{"message":"no"}}');
});
await new Promise((done) => server.listen(0, "127.0.0.1", done));
const request = { headers: {}, body: {}, signal: new AbortController().signal, label: "Test API", proxyEnv: {} };
const error = await (async () => {
  for await (const _ of streamSse({ ...request, url: "http://127.0.0.1:" + server.address().port })) return undefined;
})().catch((e) => e);
server.close();
console.log(JSON.stringify({ retryable: error?.retryable, undici: process.moduleLoadList.filter((m) => m.includes("undici")) }));
`,
    );
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", script], {
        cwd: resolve(import.meta.dirname, "../../.."),
      });
      // x-should-retry read whatever the case the server wrote it in.
      expect(JSON.parse(stdout)).toEqual({ retryable: false, undici: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("turns an error status into a ModelApiError with the server's message and Retry-After", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(429, { "content-type": "application/json", "retry-after": "7" });
      response.end(JSON.stringify({ error: { type: "rate_limit_error", message: "slow down" } }));
    });
    const { error } = await read(server.url);
    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({
      message: "Test API error 429 (rate_limit_error): slow down",
      status: 429,
      retryable: true,
      retryAfterMs: 7000,
    });
  });

  it("reports a refused connection as a retryable network error", async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    for (const open of servers.splice(0)) await new Promise((resolve) => open.close(resolve));
    const { error } = await read(url);
    expect(error).toBeInstanceOf(ModelApiError);
    expect((error as ModelApiError).message).toMatch(/^Network error talking to Test API: connect ECONNREFUSED/);
    expect((error as ModelApiError).retryable).toBe(true);
  });

  it("reports a connection cut in the middle of the body as a retryable network error", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(sse("one"), () => setTimeout(() => response.socket?.destroy(), 20));
    });
    const { seen, error } = await read(server.url);
    expect(seen).toEqual(["one"]);
    expect(error).toBeInstanceOf(ModelApiError);
    expect((error as ModelApiError).retryable).toBe(true);
  });

  it("reports a connection reset in the middle of the body as a retryable network error", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(sse("one"), () => setTimeout(() => response.socket?.resetAndDestroy(), 20));
    });
    const { error } = await read(server.url);
    expect(error).toBeInstanceOf(ModelApiError);
    expect((error as ModelApiError).retryable).toBe(true);
  });

  it("closes the connection and rejects with the abort when the caller aborts mid-stream", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(sse("one"));
    });
    const controller = new AbortController();
    const { seen, error } = await read(server.url, { signal: controller.signal, afterBatch: () => controller.abort() });
    expect(seen).toEqual(["one"]);
    expect((error as Error).name).toBe("AbortError");
    await server.closed;
  });

  it("closes the connection when the caller stops reading early", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(sse("one"));
    });
    expect(await read(server.url, { afterBatch: () => false })).toEqual({ seen: ["one"] });
    await server.closed;
  });

  it("follows a 307 on the same origin, keeping the method and body", async () => {
    const server = await serve((request, response) => {
      if (request.url === "/old") {
        response.writeHead(307, { location: "/new" });
        return response.end();
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(sse("moved"));
    });
    expect(await read(`${server.url}/old`)).toEqual({ seen: ["moved"] });
    expect(server.seen.map((seen) => [seen.url, seen.body, seen.headers["x-api-key"]])).toEqual([
      ["/old", '{"hi":1}', "secret"],
      ["/new", '{"hi":1}', "secret"],
    ]);
  });

  it("does not follow a redirect to another origin, so the API key stays with the host it was meant for", async () => {
    const elsewhere = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(sse("stolen"));
    });
    const server = await serve((_request, response) => {
      response.writeHead(307, { location: `${elsewhere.url}/collect` });
      response.end();
    });
    const { error } = await read(server.url);
    expect(error).toBeInstanceOf(ModelApiError);
    expect((error as ModelApiError).message).toMatch(/^Test API error 307/);
    expect(elsewhere.seen).toEqual([]);
  });
});

describe("proxies", () => {
  it("sends plain HTTP through HTTP_PROXY as an absolute URI, with the proxy's credentials", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(sse("via proxy"));
    });
    const proxy = await startTestProxy();
    try {
      const port = new URL(server.url).port;
      const proxyUrl = proxy.url.replace("http://", "http://user:p%40ss@");
      const result = await read(`http://model.test:${port}/v1/messages`, { proxyEnv: { HTTP_PROXY: proxyUrl } });
      expect(result).toEqual({ seen: ["via proxy"] });
      expect(proxy.seen).toEqual([`POST http://model.test:${port}/v1/messages`]);
      expect(proxy.headers[0]!["proxy-authorization"]).toBe(`Basic ${Buffer.from("user:p@ss").toString("base64")}`);
      expect(server.seen[0]!.headers["x-api-key"]).toBe("secret");
    } finally {
      await proxy.close();
    }
  });

  it("asks a model server on this machine directly, whatever the proxy settings say", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(sse("direct"));
    });
    const proxy = await startTestProxy();
    try {
      const env = { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url };
      expect(await read(server.url, { proxyEnv: env })).toEqual({ seen: ["direct"] });
      const port = new URL(server.url).port;
      expect(await read(`http://localhost:${port}`, { proxyEnv: env })).toEqual({ seen: ["direct"] });
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

describe("certificate failures", () => {
  it("are not retried and say how to trust the CA, from an injected fetch too", async () => {
    const refused = Object.assign(new Error("self-signed certificate"), { code: "DEPTH_ZERO_SELF_SIGNED_CERT" });
    const failingFetch = () => Promise.reject(new TypeError("fetch failed", { cause: refused }));
    const error = await (async () => {
      for await (const batch of streamSse({
        fetch: failingFetch,
        url: "https://api.example.test",
        headers: {},
        body: {},
        signal: new AbortController().signal,
        label: "Test API",
      }))
        expect(batch).toEqual([]);
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({
      retryable: false,
      message:
        "Cannot verify the TLS certificate of Test API (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate). If a proxy or a private CA signs it, point NODE_EXTRA_CA_CERTS at that CA's PEM file.",
    });
  });
});
