import { createServer, request, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAddressPolicy } from "../../../src/web/address-policy.js";
import { httpGet, type HttpGetOptions } from "../../../src/web/http-get.js";
import { pageText } from "../../../src/web/to-markdown.js";

let server: Server;
let base: string;
let port: number;
const hosts: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hosts.push(String(req.headers.host));
    switch (req.url) {
      case "/page":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(
          "<html><head><title>A &amp; B</title><style>p{}</style></head><body><h1>Hello</h1><p>caf\u00e9 <b>bold</b></p><script>x()</script></body></html>",
        );
        return;
      case "/gzip":
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
        res.end(gzipSync("x".repeat(100_000)));
        return;
      case "/to-page":
        res.writeHead(302, { location: "/page" });
        res.end();
        return;
      case "/to-metadata":
        res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" });
        res.end();
        return;
      case "/to-private":
        res.writeHead(307, { location: "http://10.0.0.7:8080/admin" });
        res.end();
        return;
      case "/loop":
        res.writeHead(302, { location: "/loop" });
        res.end();
        return;
      default:
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("nothing here");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const options = (extra: Partial<HttpGetOptions> = {}): HttpGetOptions => ({
  policy: createAddressPolicy({ allowPrivate: ["127.0.0.1/32"] }),
  maxBytes: 1_000_000,
  maxRedirects: 5,
  signal: new AbortController().signal,
  env: {},
  userAgent: "test",
  ...extra,
});

describe("httpGet", () => {
  it("fetches an allowed address and converts HTML to Markdown", async () => {
    const page = await httpGet(`${base}/page`, options());
    expect(page.status).toBe(200);
    const text = await pageText(page.body, page.contentType);
    expect(text).toEqual({ title: "A & B", format: "markdown", text: "# Hello\n\ncafé **bold**" });
  });

  it("refuses loopback when the config does not allow it", async () => {
    await expect(httpGet(`${base}/page`, options({ policy: createAddressPolicy() }))).rejects.toThrow(
      /Refused to fetch 127\.0\.0\.1: 127\.0\.0\.1 is a loopback address/,
    );
  });

  it("follows redirects and checks each hop", async () => {
    const page = await httpGet(`${base}/to-page`, options());
    expect(page.url).toBe(`${base}/page`);
    expect(page.redirects).toEqual([`${base}/page`]);
    await expect(httpGet(`${base}/to-metadata`, options())).rejects.toThrow(
      /Refused to fetch 169\.254\.169\.254: 169\.254\.169\.254 is a link-local address/,
    );
    await expect(httpGet(`${base}/to-private`, options())).rejects.toThrow(/Refused to fetch 10\.0\.0\.7/);
    await expect(httpGet(`${base}/loop`, options({ maxRedirects: 3 }))).rejects.toThrow(
      /Too many redirects \(more than 3\)/,
    );
  });

  it("follows a redirect on the approved host only", async () => {
    hosts.length = 0;
    // Same port, another name: another host as the user approved it.
    const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
    const to = `http://other.test:${port}/page`;
    const away = createServer((_req, res) => {
      res.writeHead(302, { location: to });
      res.end();
    });
    await new Promise<void>((done) => away.listen(0, "127.0.0.1", done));
    const awayUrl = `http://127.0.0.1:${(away.address() as AddressInfo).port}/`;
    try {
      await expect(httpGet(awayUrl, options({ resolve }))).rejects.toThrow(
        `Redirected to ${to}, on another host than 127.0.0.1:${(away.address() as AddressInfo).port}`,
      );
      expect(hosts).toEqual([]);
    } finally {
      await new Promise<void>((done) => away.close(() => done()));
    }
  });

  it("checks what a name resolves to and connects to that address only", async () => {
    const resolve = async (name: string) =>
      name === "rebind.test" ? [{ address: "10.9.9.9", family: 4 }] : [{ address: "127.0.0.1", family: 4 }];
    await expect(httpGet(`http://rebind.test:${port}/page`, options({ resolve }))).rejects.toThrow(
      /rebind\.test \(resolves to 10\.9\.9\.9\): 10\.9\.9\.9 is a private or reserved address/,
    );
    hosts.length = 0;
    const page = await httpGet(`http://good.test:${port}/page`, options({ resolve }));
    expect(page.status).toBe(200);
    expect(hosts).toEqual([`good.test:${port}`]);
  });

  it("stops reading at the byte limit, after decompression", async () => {
    const page = await httpGet(`${base}/gzip`, options({ maxBytes: 1000 }));
    expect(page.body.length).toBe(1000);
    expect(page.truncated).toBe(true);
  });

  it("refuses other schemes and credentials in URLs", async () => {
    await expect(httpGet("file:///etc/passwd", options())).rejects.toThrow(/Only http and https URLs/);
    await expect(httpGet(`http://u:p@127.0.0.1:${port}/`, options())).rejects.toThrow(/credentials/);
  });

  it("tunnels through HTTPS_PROXY to the checked address, and honours NO_PROXY", async () => {
    const connects: string[] = [];
    const proxy = createServer();
    proxy.on("connect", (req, client) => {
      connects.push(String(req.url));
      const [host, targetPort] = String(req.url).split(":");
      const upstream = connect(Number(targetPort), host!, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.pipe(client);
        client.pipe(upstream);
      });
    });
    // Plain HTTP goes to the proxy as an absolute URI.
    const forwarded: string[] = [];
    proxy.on("request", (req, res) => {
      forwarded.push(String(req.url));
      const upstream = request(String(req.url), { headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 500, r.headers);
        r.pipe(res);
      });
      upstream.end();
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
      const viaHttp = await httpGet(
        `http://site.test:${port}/page`,
        options({ resolve, env: { HTTP_PROXY: proxyUrl } }),
      );
      expect(viaHttp.status).toBe(200);
      expect(forwarded).toEqual([`http://127.0.0.1:${port}/page`]);
      const bypass = await httpGet(
        `http://site.test:${port}/page`,
        options({ resolve, env: { HTTP_PROXY: proxyUrl, NO_PROXY: "site.test" } }),
      );
      expect(bypass.status).toBe(200);
      expect(forwarded).toHaveLength(1);
      // HTTPS: the CONNECT line names the checked address; our server speaks plain HTTP, so TLS fails after the tunnel.
      await expect(
        httpGet(`https://secure.test:${port}/`, options({ resolve, env: { HTTPS_PROXY: proxyUrl } })),
      ).rejects.toThrow(/TLS with secure\.test failed/);
      expect(connects).toEqual([`127.0.0.1:${port}`]);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});
