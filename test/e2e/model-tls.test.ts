// The model stream over HTTPS, end to end: the built agent talks to a real TLS server whose
// certificate is signed by nobody the system trusts, as behind a company proxy. With the certificate
// in NODE_EXTRA_CA_CERTS (the way users hand Node their CA) the answer streams; without it the
// prompt fails at once with a message that says what to do, instead of retrying a certificate that
// will not change. Through HTTPS_PROXY it goes by CONNECT, the certificate still checked against the
// model server's own name.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { createFakeModelServer, type FakeModelServer } from "../support/fake-model/index.js";
import { renderAnthropic } from "../support/fake-model/render.js";
import { startTestProxy } from "../support/test-proxy.js";

const suite = useAgentSuite({ name: "tls" });

let dir: string;
let server: Server;
let baseUrl: string;
const requests: Array<{ key: string | undefined; model: string }> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "deep-acp-tls-"));
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=deep-acp test"],
      ...[
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:model.test",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
    ],
    { stdio: "ignore" },
  );
  server = createServer(
    { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
    (request, response) => {
      let body = "";
      request.setEncoding("utf8").on("data", (part: string) => (body += part));
      request.on("end", () => {
        requests.push({ key: request.headers["x-api-key"] as string | undefined, model: JSON.parse(body).model });
        const rendered = renderAnthropic(
          { parts: [{ type: "text", text: "hello over TLS" }] },
          { model: "m", requestBytes: body.length, includeUsage: false, sequence: requests.length },
        );
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end([...rendered.parts, ...rendered.tail].join(""));
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const texts = (updates: any[]) =>
  updates
    .filter((update) => update.sessionUpdate === "agent_message_chunk")
    .map((update) => update.content.text)
    .join("");

describe("model stream over HTTPS", () => {
  it("streams the answer when the server's CA is given in NODE_EXTRA_CA_CERTS", async () => {
    const sessionId = await suite.startSession({
      env: { ANTHROPIC_BASE_URL: baseUrl, NODE_EXTRA_CA_CERTS: join(dir, "cert.pem") },
    });
    const before = requests.length;
    const answer = await suite.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(answer.result.stopReason).toBe("end_turn");
    expect(texts(suite.agent.updates(sessionId))).toBe("hello over TLS");
    expect(requests.slice(before)).toHaveLength(1);
    expect(requests.at(-1)!.key).toBe(suite.env().ANTHROPIC_API_KEY);
  });

  it("tunnels through HTTPS_PROXY, checking the certificate against the model server's name", async () => {
    const proxy = await startTestProxy();
    try {
      const port = new URL(baseUrl).port;
      const sessionId = await suite.startSession({
        env: {
          ANTHROPIC_BASE_URL: `https://model.test:${port}`,
          HTTPS_PROXY: proxy.url,
          NODE_EXTRA_CA_CERTS: join(dir, "cert.pem"),
        },
      });
      const answer = await suite.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "hi" }],
      });
      expect(answer.result.stopReason).toBe("end_turn");
      expect(texts(suite.agent.updates(sessionId))).toBe("hello over TLS");
      expect(proxy.seen).toEqual([`CONNECT model.test:${port}`]);
    } finally {
      await proxy.close();
    }
  });

  it("reaches Bedrock (the AWS SDK's own HTTP handler) through HTTPS_PROXY too", async () => {
    const proxy = await startTestProxy();
    let bedrock: FakeModelServer | undefined;
    try {
      bedrock = await createFakeModelServer({
        tls: { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
        turns: [{ parts: [{ type: "text", text: "hello from Bedrock" }] }],
      });
      const port = new URL(bedrock.origin).port;
      const agent = await suite.start({
        api: "none",
        args: ["--model", "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0"],
        env: {
          AWS_ACCESS_KEY_ID: "AKIDTEST",
          AWS_SECRET_ACCESS_KEY: "secret",
          AWS_REGION: "us-east-1",
          AWS_ENDPOINT_URL_BEDROCK_RUNTIME: `https://model.test:${port}`,
          AWS_EC2_METADATA_DISABLED: "true",
          HTTPS_PROXY: proxy.url,
          NODE_EXTRA_CA_CERTS: join(dir, "cert.pem"),
        },
      });
      await agent.initialize({});
      const created = await agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const sessionId = created.result.sessionId;
      const answer = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      expect(answer.result?.stopReason, JSON.stringify(answer) + agent.stderr).toBe("end_turn");
      expect(texts(agent.updates(sessionId))).toBe("hello from Bedrock");
      expect(proxy.seen).toEqual([`CONNECT model.test:${port}`]);
      expect(bedrock.requests).toHaveLength(1);
    } finally {
      await bedrock?.close();
      await proxy.close();
    }
  });

  it.each(["direct", "through HTTPS_PROXY"])(
    "fails at once, saying how to trust the CA, when the certificate cannot be verified (%s)",
    async (route) => {
      const proxy = await startTestProxy();
      try {
        const port = new URL(baseUrl).port;
        const env =
          route === "direct"
            ? { ANTHROPIC_BASE_URL: baseUrl }
            : { ANTHROPIC_BASE_URL: `https://model.test:${port}`, HTTPS_PROXY: proxy.url };
        const sessionId = await suite.startSession({ env });
        const before = requests.length;
        const answer = await suite.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "hi" }],
        });
        const shown = JSON.stringify([answer, suite.agent.updates(sessionId)]);
        expect(shown).toContain("Cannot verify the TLS certificate of Anthropic API");
        expect(shown).toContain("NODE_EXTRA_CA_CERTS");
        // Refused during the handshake: the request never reached the server, and was not retried.
        expect(requests.length).toBe(before);
        expect(suite.agent.stderr).not.toContain("retrying");
        expect(proxy.seen).toEqual(route === "direct" ? [] : [`CONNECT model.test:${port}`]);
      } finally {
        await proxy.close();
      }
    },
  );
});
