// Seeded generator of requests whose ids and lines are hostile: ids thousands of characters long,
// full of escapes and non-ASCII text, numbers no double holds exactly; lines nested too deep, cut
// off, broken after (or before) the id, not UTF-8, over the size limit, unicode-heavy. Each line
// says, as raw JSON text, which id its one answer must carry: JSON-RPC wants the request's own id
// whenever the line can be read as far as its id, and `null` only when it cannot. The answer must
// echo the id exactly as written (a 30-digit number is not the double it parses to).

import { deepArray, type Random } from "./fuzz-messages.js";

export type HostileLine = {
  bytes: Buffer;
  /** The raw JSON text of the id the one answer must carry ("null" included); undefined: nothing is owed. */
  expectId?: string;
  kind: string;
};

export type HostileContext = {
  cwd: string;
  /** Sessions requests may name (never the one holding the slow prompt, which would queue behind it). */
  sessions: string[];
  /** The session whose prompt is held: requests other than prompts may still name it. */
  busySession?: string;
  maxDepth: number;
  maxMessageBytes: number;
};

const UNICODE = ["é", "中", "😀", "‮", "\u2028", "\u0301", "ß", "𝔘", "\u00a0", "ﷺ"];
const ESCAPES = ['\\"', "\\\\", "\\/", "\\n", "\\t", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\u0000", "\\u2028"];

/** JSON string text (quotes included) of about `chars` characters, mixing ASCII, non-ASCII and escapes. */
function hostileString(rnd: Random, unique: string, chars: number): string {
  let text = unique;
  while (text.length < chars) {
    const roll = rnd.next();
    if (roll < 0.5) text += "abcdefghijklmnopqrstuvwxyz0123456789-_".charAt(rnd.int(38)).repeat(1 + rnd.int(40));
    else if (roll < 0.8) text += rnd.pick(UNICODE);
    else text += rnd.pick(ESCAPES);
  }
  return `"${text}"`;
}

/** The raw text of an id; unique within a run (`n`), in every form JSON-RPC allows. */
function idText(n: number, rnd: Random): { text: string; form: string } {
  const roll = rnd.int(12);
  if (roll < 3) return { text: `"h${n}"`, form: "short" };
  if (roll < 6) return { text: hostileString(rnd, `L${n}-`, 1000 + rnd.int(7000)), form: "long string" };
  if (roll === 6) return { text: hostileString(rnd, `u${n}-`, 20 + rnd.int(200)), form: "escaped string" };
  if (roll === 7) return { text: `${n}${"7".repeat(20 + rnd.int(40))}`, form: "big integer" };
  if (roll === 8) return { text: rnd.pick([`${n}.50`, `${n}.0`, `${n}e0`, `-${n}`, `${n}E+00`]), form: "number" };
  if (roll === 9) return { text: `${1_000_000 + n}`, form: "integer" };
  if (roll === 10) return { text: `"${"x".repeat(60_000 + rnd.int(20_000))}${n}"`, form: "huge string" };
  return { text: "null", form: "null" };
}

const UNREADABLE_IDS = ["{}", '{"a":1}', "[1]", "true", "false", deepArray(3)];

function unicodeText(rnd: Random, chars: number): string {
  let text = "";
  while (text.length < chars) text += rnd.pick(UNICODE).repeat(1 + rnd.int(30));
  return text;
}

/** Params the ACP schema takes for each method, some of them deliberately wrong. */
function params(method: string, ctx: HostileContext, rnd: Random): unknown {
  const sessionId = () =>
    rnd.chance(0.85) && ctx.sessions.length ? rnd.pick(ctx.sessions) : `no-such-${rnd.int(1000)}`;
  const anySession = () => (ctx.busySession && rnd.chance(0.3) ? ctx.busySession : sessionId());
  switch (method) {
    case "session/prompt":
      return { sessionId: sessionId(), prompt: [{ type: "text", text: unicodeText(rnd, 1 + rnd.int(3000)) }] };
    case "session/list":
      return rnd.chance(0.5) ? {} : { cwd: ctx.cwd };
    case "session/set_mode":
      return { sessionId: anySession(), modeId: rnd.pick(["default", "plan", "nope"]) };
    case "session/set_config_option":
      return { sessionId: anySession(), configId: rnd.pick(["mode", "thought_level", "x"]), value: "plan" };
    case "session/new":
      return { cwd: ctx.cwd, mcpServers: [] };
    case "session/load":
    case "session/resume":
      return { sessionId: `no-such-${rnd.int(1000)}`, cwd: ctx.cwd, mcpServers: [] };
    case "initialize":
      return { protocolVersion: 1, clientCapabilities: {} };
    case "_deep-acp/session/rewind": // rewinding cancels the running turn: never the held one
      return { sessionId: sessionId(), messageId: unicodeText(rnd, 50) };
    default:
      return { sessionId: anySession(), _meta: { note: unicodeText(rnd, 50) } };
  }
}

const METHODS = [
  "session/prompt",
  "session/list",
  "session/list",
  "session/set_mode",
  "session/set_config_option",
  "session/new",
  "session/load",
  "session/resume",
  "initialize",
  "no/such/method",
  "_deep-acp/session/rewind",
];

const utf8 = (text: string) => Buffer.from(text, "utf8");

/** `{"jsonrpc":"2.0","id":ID,"method":...,"params":...}`, with the id first or last, spaced or not. */
function request(id: string, method: string, body: string, rnd: Random): string {
  const sp = rnd.chance(0.2) ? " \t" : "";
  const idMember = `"id"${sp}:${sp}${id}`;
  const rest = `"jsonrpc":"2.0",${sp}"method":${JSON.stringify(method)},"params":${body}`;
  return rnd.chance(0.7) ? `{${sp}${idMember},${rest}}` : `{${rest},${sp}${idMember}${sp}}`;
}

/** The next hostile line; `n` makes ids unique. */
export function nextHostileLine(n: number, ctx: HostileContext, rnd: Random): HostileLine {
  const { text: id, form } = idText(n, rnd);
  const method = rnd.pick(METHODS);
  const body = JSON.stringify(params(method, ctx, rnd));
  const roll = rnd.next();
  const kind = (shape: string) => `${shape} (${form} id)`;
  if (roll < 0.4) return { bytes: utf8(request(id, method, body, rnd)), expectId: id, kind: kind("request") };
  if (roll < 0.47)
    return {
      bytes: utf8(request(id, "session/list", `{"_meta":${deepArray(ctx.maxDepth + 1 + rnd.int(3000))}}`, rnd)),
      expectId: id,
      kind: kind("deep body"),
    };
  if (roll < 0.55) {
    // Broken after the id: the id was read, so the parse error carries it.
    const whole = `{"jsonrpc":"2.0","id":${id},"method":"session/list","params":{"cwd":${JSON.stringify(ctx.cwd)}}}`;
    const head = `{"jsonrpc":"2.0","id":${id},`;
    const broken = rnd.pick([
      () => whole.slice(0, head.length + rnd.int(whole.length - head.length - 1)),
      () => `${whole}}x`,
      () => `${head}"method":"session/list","params":{"a":1,,}}`,
      () => `${head}"method":"session/list","params":{"a":"tab\there"}}`,
      () => `${head}"method":"session/list","params":{"a":"\\x41"}}`,
      () => `${head}"method":"session/list" "params":{}}`,
    ])();
    return { bytes: utf8(broken), expectId: id, kind: kind("malformed after the id") };
  }
  if (roll < 0.6) {
    // The id cannot be read: the line breaks inside it, before it, or it is not a scalar.
    const broken = rnd.pick([
      () => `{"jsonrpc":"2.0","method":"session/list","id":"cut-${n}`,
      () => `xx{"jsonrpc":"2.0","id":${id},"method":"session/list"}`,
      () => `{"jsonrpc":"2.0","id":${rnd.pick(UNREADABLE_IDS)},"method":"session/list"}`,
      () => `{"jsonrpc":"2.0",,"id":${id},"method":"session/list"`,
    ])();
    // A line that breaks before its id might have been a notification; it is still answered once.
    return { bytes: utf8(broken), expectId: "null", kind: "unreadable id" };
  }
  if (roll < 0.66) {
    // Not UTF-8 after the id (the id can be read), or inside the id (it cannot: echoing it would be invalid).
    const inside = rnd.chance(0.3);
    const bad = Buffer.from([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]);
    if (inside)
      return {
        bytes: Buffer.concat([utf8(`{"jsonrpc":"2.0","id":"bad-${n}`), bad, utf8('","method":"session/list"}')]),
        expectId: "null",
        kind: "invalid UTF-8 in the id",
      };
    return {
      bytes: Buffer.concat([
        utf8(`{"jsonrpc":"2.0","id":${id},"method":"session/list","params":{"x":"`),
        bad,
        utf8('"}}'),
      ]),
      expectId: id,
      kind: kind("invalid UTF-8 after the id"),
    };
  }
  if (roll < 0.72) {
    const prompt = `{"sessionId":${JSON.stringify(rnd.pick(ctx.sessions.length ? ctx.sessions : ["x"]))},"prompt":[{"type":"text","text":${JSON.stringify(unicodeText(rnd, 20_000 + rnd.int(60_000)))}}]}`;
    return {
      bytes: utf8(request(id, "session/prompt", prompt, rnd)),
      expectId: id,
      kind: kind("unicode-heavy prompt"),
    };
  }
  if (roll < 0.75) {
    const filler = `{"_meta":{"blob":"${"b".repeat(ctx.maxMessageBytes)}"}}`;
    return { bytes: utf8(request(id, "session/list", filler, rnd)), expectId: id, kind: kind("over the size limit") };
  }
  if (roll < 0.77) {
    // A quarter of a million empty objects: parsed, they would hold the thread for a while.
    const wide = `{"_meta":{"x":[${"{},".repeat(125_000)}{}]}}`;
    return { bytes: utf8(request(id, "session/list", wide, rnd)), expectId: id, kind: kind("many values") };
  }
  if (roll < 0.79)
    return {
      bytes: utf8(`\ufeff{"jsonrpc":"2.0","id":${id},"method":"session/list","params":{}}\r`),
      expectId: id,
      kind: kind("byte-order mark and CRLF"),
    };
  if (roll < 0.86) {
    const method = rnd.pick(["session/cancel", "$/cancel_request", "no/such/notification"]);
    const target = rnd.pick([`"h${rnd.int(n + 1)}"`, `${1_000_000 + rnd.int(n + 1)}`, "null"]);
    const notification = `{"jsonrpc":"2.0","method":"${method}","params":{"sessionId":${JSON.stringify(rnd.pick([...ctx.sessions, "x"]))},"requestId":${target}}}`;
    return { bytes: utf8(notification), kind: "notification" };
  }
  if (roll < 0.9)
    return {
      bytes: utf8(`{"jsonrpc":"2.0","method":"session/cancel","params":{"x":${deepArray(ctx.maxDepth + 10)}}}`),
      kind: "deep notification",
    };
  if (roll < 0.95)
    return {
      bytes: utf8(
        `{"jsonrpc":"2.0","id":${id},${rnd.chance(0.5) ? '"result":{"junk":true}' : '"error":{"code":1,"message":"x"}'}}`,
      ),
      kind: "spoofed response",
    };
  return {
    bytes: utf8(`{"jsonrpc":"2.0","id":${id},"method":"session/list","params":{"cwd":${JSON.stringify(ctx.cwd)}}}`),
    expectId: id,
    kind: kind("plain list"),
  };
}

/**
 * The raw text of a top-level member of one JSON line the agent wrote (which is valid JSON), e.g.
 * `"abc"` or `123456789012345678901234567890` for "id"; undefined when absent.
 */
export function rawMember(line: string, key: string): string | undefined {
  let depth = 0;
  let found: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      const start = i;
      for (i++; line[i] !== '"'; i++) if (line[i] === "\\") i++;
      if (depth === 1 && line[i + 1] === ":" && line.slice(start + 1, i) === key) {
        const from = i + 2;
        let end = from;
        if (line[from] === '"') {
          for (end = from + 1; line[end] !== '"'; end++) if (line[end] === "\\") end++;
          end++;
        } else while (end < line.length && !",}]".includes(line[end]!)) end++;
        found = line.slice(from, end);
        i = end - 1;
      }
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
  }
  return found;
}
