// The child agent of the peers bench: raw ACP over stdio, so its own cost is the same whoever its
// editor is. A prompt "updates N" sends N message chunks, then answers; "reads N PATH" reads PATH
// N times through its editor (fs/read_text_file, one after another) and answers with the median
// round trip in milliseconds, as its own clock measured it.
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
const waiting = new Map();
let nextId = 1;
const request = (method, params) =>
  new Promise((resolve, reject) => {
    const id = `c${nextId++}`;
    waiting.set(id, { resolve, reject });
    send({ id, method, params });
  });
let session = 0;
const chunk = (sessionId, text) =>
  send({
    method: "session/update",
    params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
  });

async function prompt(message) {
  const { sessionId } = message.params;
  const [what, count, path] = message.params.prompt[0].text.split(" ");
  if (what === "updates") {
    for (let i = 0; i < Number(count); i++) chunk(sessionId, "x");
  } else {
    const times = [];
    for (let i = 0; i < Number(count); i++) {
      const start = performance.now();
      await request("fs/read_text_file", { sessionId, path });
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    chunk(sessionId, String(times[Math.floor(times.length / 2)]));
  }
  send({ id: message.id, result: { stopReason: "end_turn" } });
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === undefined) {
    const pending = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) pending?.reject(message.error);
    else pending?.resolve(message.result);
    return;
  }
  if (message.method === "initialize")
    return send({ id: message.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  if (message.method === "session/new") return send({ id: message.id, result: { sessionId: `s${++session}` } });
  if (message.method === "session/prompt") void prompt(message);
});
