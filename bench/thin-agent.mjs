// The thinnest streaming agent the stream benchmark compares against: plain Node, no dependencies.
// It reads ndjson requests on stdin; for each `session/prompt` it POSTs one streaming request to
// THIN_AGENT_BASE_URL/v1/messages (the fake model's Anthropic endpoint), reads the SSE, JSON.parses
// every event and, in "relay" mode, writes one `session/update` agent_message_chunk line per text
// delta (one write per network read), then answers the prompt with `end_turn`. In "parse" mode it
// writes nothing per delta: a raw fetch-and-parse of the same SSE, the burst benchmark's floor.
// The event framing is the fake model's ("event: x\ndata: {json}\n\n"); nothing else is handled.
import { createInterface } from "node:readline";

const base = process.env.THIN_AGENT_BASE_URL;
const relay = process.env.THIN_AGENT_MODE !== "parse";

async function prompt(id, sessionId) {
  const response = await fetch(`${base}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model: "claude-sonnet-4-5",
      max_tokens: 16384,
      stream: true,
      messages: [{ role: "user", content: "talk" }],
    }),
  });
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const bytes of response.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let out = "";
    let start = 0;
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n", start)) {
      const data = buffer.indexOf("data: ", start);
      const event = JSON.parse(buffer.slice(data + 6, end));
      start = end + 2;
      if (relay && event.type === "content_block_delta" && event.delta.type === "text_delta") {
        const update = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.delta.text } };
        out += `${JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update } })}\n`;
      }
    }
    buffer = buffer.slice(start);
    if (out) process.stdout.write(out);
  }
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, result: { stopReason: "end_turn" } })}\n`);
}

for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  if (message.method === "session/prompt") await prompt(message.id, message.params.sessionId);
}
