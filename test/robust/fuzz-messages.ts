// Seeded generator of hostile ACP traffic. Each method has a valid params template (from the ACP
// schema: the fields each request takes); messages are made by mutating templates (drop a field,
// wrong type, huge or deep value, null), plus lines that are not valid JSON-RPC at all. Every line
// says what answer it deserves, so the test can check that each request is answered exactly once.

export type FuzzLine = {
  text: string;
  /** The id a response must carry (exactly one response), or undefined when none is owed. */
  expectId?: string;
  /** A response with `id: null` is owed (unreadable id, bad JSON). */
  expectNull?: boolean;
  kind: string;
};

export function createRandom(seed: number) {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: fast, deterministic, good enough for choosing mutations.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x100000000;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}

export type Random = ReturnType<typeof createRandom>;

export const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

function nestedObject(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

export type FuzzContext = { cwd: string; sessions: string[]; maxDepth: number; hugeBytes: number };

function templates(ctx: FuzzContext, rnd: Random): Record<string, () => Record<string, unknown>> {
  const session = () => (ctx.sessions.length && rnd.chance(0.8) ? rnd.pick(ctx.sessions) : `no-such-${rnd.int(1000)}`);
  return {
    initialize: () => ({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: rnd.chance(0.5) } },
      clientInfo: { name: "fuzz", version: "1" },
    }),
    "session/new": () => ({ cwd: ctx.cwd, mcpServers: [] }),
    "session/list": () => (rnd.chance(0.5) ? {} : { cwd: ctx.cwd }),
    "session/prompt": () => ({ sessionId: session(), prompt: [{ type: "text", text: `fuzz ${rnd.int(1e6)}` }] }),
    "session/set_mode": () => ({
      sessionId: session(),
      modeId: rnd.pick(["default", "plan", "bypass", "accept-edits", "nope"]),
    }),
    "session/set_config_option": () => ({
      sessionId: session(),
      configId: rnd.pick(["mode", "model", "thought_level", "x"]),
      value: rnd.pick(["plan", "default", "x", 3]),
    }),
    "session/load": () => ({ sessionId: session(), cwd: ctx.cwd, mcpServers: [] }),
    "session/resume": () => ({ sessionId: session(), cwd: ctx.cwd, mcpServers: [] }),
    "session/fork": () => ({ sessionId: session(), cwd: ctx.cwd, mcpServers: [] }),
    "session/close": () => ({ sessionId: session() }),
    "session/delete": () => ({ sessionId: `no-such-${rnd.int(1000)}` }),
    authenticate: () => ({ methodId: rnd.pick(["deep-acp-login", "x"]) }),
    "_deep-acp/session/rewind": () => ({ sessionId: session(), messageId: "m" }),
    "no/such/method": () => ({}),
  };
}

function mutate(params: Record<string, unknown>, ctx: FuzzContext, rnd: Random): Record<string, unknown> {
  const keys = Object.keys(params);
  const out: Record<string, unknown> = { ...params };
  const key = keys.length ? rnd.pick(keys) : "extra";
  switch (rnd.int(7)) {
    case 0:
      delete out[key];
      break;
    case 1:
      out[key] = rnd.pick([42, true, null, [], {}, "", -1.5]);
      break;
    case 2:
      out[key] = "z".repeat(rnd.int(200_000));
      break;
    case 3:
      out[key] = nestedObject(1 + rnd.int(Math.min(ctx.maxDepth - 4, 200)));
      break;
    case 4:
      out._meta = { junk: nestedObject(rnd.int(50)), list: Array.from({ length: rnd.int(2000) }, (_, i) => i) };
      break;
    case 5:
      out[`unknown_${rnd.int(100)}`] = "?";
      break;
    default:
      break;
  }
  return out;
}

/** The next line of traffic. `n` makes ids unique. */
export function nextFuzzLine(n: number, ctx: FuzzContext, rnd: Random): FuzzLine {
  const id = `f${n}`;
  const roll = rnd.next();
  const table = templates(ctx, rnd);
  const methods = Object.keys(table);
  if (roll < 0.55) {
    const method = rnd.pick(methods);
    const params = rnd.chance(0.6) ? mutate(table[method]!(), ctx, rnd) : table[method]!();
    return { text: JSON.stringify({ jsonrpc: "2.0", id, method, params }), expectId: id, kind: `request ${method}` };
  }
  if (roll < 0.62) {
    const method = rnd.pick(["session/cancel", "$/cancel_request", "no/such/notification"]);
    return {
      text: JSON.stringify({
        jsonrpc: "2.0",
        method,
        params: { sessionId: rnd.pick([...ctx.sessions, "x"]), requestId: `f${rnd.int(n + 1)}` },
      }),
      kind: "notification",
    };
  }
  if (roll < 0.68)
    return {
      text: `{"jsonrpc":"2.0","id":${deepArray(ctx.maxDepth + 1 + rnd.int(5000))},"method":"session/list"}`,
      expectNull: true,
      kind: "deep id",
    };
  if (roll < 0.74)
    return {
      text: `{"jsonrpc":"2.0","id":"${id}","method":"session/list","params":{"_meta":${deepArray(ctx.maxDepth + 1 + rnd.int(5000))}}}`,
      expectId: id,
      kind: "deep body",
    };
  if (roll < 0.79) {
    const valid = JSON.stringify({ jsonrpc: "2.0", id, method: "session/list", params: {} });
    const cut = 1 + rnd.int(valid.length - 2);
    // Cut after its id, the line was read as far as the id: the parse error carries it.
    const idRead = cut >= valid.indexOf(`"${id}"`) + id.length + 2;
    return { text: valid.slice(0, cut), ...(idRead ? { expectId: id } : { expectNull: true }), kind: "truncated JSON" };
  }
  if (roll < 0.83)
    return {
      text: JSON.stringify(rnd.pick([[1, 2], "str", 7, null, true, [{ jsonrpc: "2.0", id, method: "session/list" }]])),
      expectNull: true,
      kind: "not an object",
    };
  if (roll < 0.9)
    return {
      text: JSON.stringify({
        jsonrpc: "2.0",
        id: rnd.pick([rnd.int(1e6), `spoof-${n}`]),
        ...(rnd.chance(0.5) ? { result: { junk: true } } : { error: { code: 1, message: "spoofed" } }),
      }),
      kind: "spoofed response",
    };
  if (roll < 0.93)
    return {
      text: JSON.stringify({ jsonrpc: rnd.pick(["1.0", 2, undefined]), id, method: "session/list" }),
      expectId: id,
      kind: "bad envelope",
    };
  if (roll < 0.96 && ctx.hugeBytes > 0) {
    return {
      text: `{"jsonrpc":"2.0","id":"${id}","method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"${"h".repeat(ctx.hugeBytes)}"}]}}`,
      expectId: id,
      kind: "over the size limit",
    };
  }
  return {
    text: JSON.stringify({ jsonrpc: "2.0", id, method: "session/list", params: { cwd: ctx.cwd } }),
    expectId: id,
    kind: "plain list",
  };
}
