// Checks captured ACP traffic against the SDK's own JSON schema (v1 with its unstable additions), so
// a test can prove that every message the agent sent is one a strict client accepts. Each message is
// checked against the exact type its method names: a notification or request by its method, a
// response by the method of the request it answers. Extension methods (`_`-prefixed) carry no
// schema; the drafts we serve before the SDK has them (quota) are checked against their RFD shape.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";

const require = createRequire(import.meta.url);
const SCHEMA_PATH = require.resolve("@agentclientprotocol/sdk/schema/v1/schema.unstable.json");

type Def = { "x-method"?: string; "x-side"?: string };
type Schema = { $defs: Record<string, Def> };

/** A JSON-RPC message as captured (raw, before any client-side parsing). */
export type WireMessage = {
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
};

// The quotas-and-limits RFD (docs/rfds/quotas-and-limits.mdx): not in SDK 2.4.0's schema yet.
const QUANTITY = {
  type: "object",
  required: ["value"],
  properties: { value: { type: "string", pattern: "^-?[0-9]+(\\.[0-9]+)?$" }, unit: { type: ["string", "null"] } },
};
const QUOTA_METER = {
  type: "object",
  required: ["id"],
  anyOf: [{ required: ["usedPercent"] }, { required: ["used"] }, { required: ["remaining"] }, { required: ["status"] }],
  properties: {
    id: { type: "string" },
    label: { type: ["string", "null"] },
    usedPercent: { type: ["number", "null"], minimum: 0 },
    used: { anyOf: [QUANTITY, { type: "null" }] },
    limit: { anyOf: [QUANTITY, { type: "null" }] },
    remaining: { anyOf: [QUANTITY, { type: "null" }] },
    window: { type: ["string", "null"] },
    resetsAt: { type: ["string", "null"], format: "date-time" },
    status: { type: ["string", "null"] },
  },
};
const QUOTA_SNAPSHOT = {
  type: "object",
  required: ["pools", "updatedAt"],
  properties: {
    updatedAt: { type: "string", format: "date-time" },
    pools: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "meters"],
        properties: {
          id: { type: "string" },
          label: { type: ["string", "null"] },
          state: { type: ["string", "null"] },
          meters: { type: "array", items: QUOTA_METER },
        },
      },
    },
  },
};
const QUOTA_UPDATE_NOTIFICATION = {
  type: "object",
  required: ["sessionId", "update"],
  properties: {
    sessionId: { type: "string" },
    update: {
      allOf: [
        QUOTA_SNAPSHOT,
        {
          type: "object",
          required: ["sessionUpdate"],
          properties: { sessionUpdate: { const: "quota_update" } },
        },
      ],
    },
  },
};

let compiled: ReturnType<typeof compile> | undefined;

function compile() {
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8")) as Schema;
  // strict off: the schema carries `x-` annotations; formats like "uint64" are the generator's own.
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  ajv.addSchema(schema, "acp");
  const byName = (name: string) => ajv.getSchema(`acp#/$defs/${name}`)!;
  const find = (side: string, method: string, suffix: string): ValidateFunction | undefined => {
    const name = Object.keys(schema.$defs).find(
      (key) =>
        schema.$defs[key]!["x-side"] === side && schema.$defs[key]!["x-method"] === method && key.endsWith(suffix),
    );
    return name ? byName(name) : undefined;
  };
  return {
    /** A request the agent sent (handled by the client). */
    clientRequest: (method: string) => find("client", method, "Request") ?? find("protocol", method, "Notification"),
    clientNotification: (method: string) => find("client", method, "Notification") ?? find("protocol", method, ""),
    /** The result of an agent method. */
    agentResponse: (method: string) => find("agent", method, "Response"),
    error: byName("Error"),
    quotaUpdate: ajv.compile(QUOTA_UPDATE_NOTIFICATION),
    quotaSnapshot: ajv.compile(QUOTA_SNAPSHOT),
  };
}

const describe = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`).join("; ");

/**
 * Everything the agent sent that the schema rejects, as readable lines (empty: all valid).
 * `sent` is what the client wrote (to know which method each response answers).
 */
export function acpViolations(received: readonly WireMessage[], sent: readonly WireMessage[]): string[] {
  compiled ??= compile();
  const v = compiled;
  const methods = new Map(sent.filter((m) => m.method && m.id != null).map((m) => [String(m.id), m.method!]));
  const out: string[] = [];
  const check = (what: string, validate: ValidateFunction | undefined, value: unknown) => {
    if (!validate) return void out.push(`${what}: no schema for it`);
    if (!validate(value)) out.push(`${what}: ${describe(validate.errors)} in ${JSON.stringify(value).slice(0, 400)}`);
  };
  for (const message of received) {
    if (message.method !== undefined) {
      if (message.method.startsWith("_")) continue;
      const kind = message.id == null ? "notification" : "request";
      const update = (message.params as { update?: { sessionUpdate?: string } } | undefined)?.update;
      if (message.method === "session/update" && update?.sessionUpdate === "quota_update")
        check(`quota_update`, v.quotaUpdate, message.params);
      else
        check(
          `${kind} ${message.method}`,
          kind === "request" ? v.clientRequest(message.method) : v.clientNotification(message.method),
          message.params ?? {},
        );
      continue;
    }
    const method = methods.get(String(message.id));
    if (message.error !== undefined) {
      check(`error answering ${method ?? message.id}`, v.error, message.error);
      continue;
    }
    if (method === undefined || method.startsWith("_")) continue;
    if (method === "quota/read") check(`result of quota/read`, v.quotaSnapshot, message.result);
    else check(`result of ${method}`, v.agentResponse(method), message.result);
  }
  return out;
}
