// Checks what the agent sends against the JSON schema the ACP SDK ships for the negotiated protocol
// version (schema/v1 or schema/v2, the unstable file: it holds every type the stable one has plus the
// unstable additions we use). Requests and notifications are checked by their method's params type,
// responses by the response type of the request they answer, errors against `Error`. The drafts we
// serve before the SDK has them (quota_update, quota/read, v2's history_truncated, session/rewind and
// session/edit_prompt) are checked against their RFD's shape.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { QUOTA_SNAPSHOT, QUOTA_UPDATE_NOTIFICATION } from "./quota-draft-schema.js";
import { EDIT_PROMPT_RESPONSE, HISTORY_TRUNCATED_NOTIFICATION, REWIND_RESPONSE } from "./rewind-draft-schema.js";

export type ProtocolVersion = 1 | 2;

type Definition = { "x-method"?: string; "x-side"?: string };
type Message = { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };

const require = createRequire(import.meta.url);
const validators = new Map<ProtocolVersion, ReturnType<typeof compile>>();

function compile(version: ProtocolVersion) {
  const path = require.resolve(`@agentclientprotocol/sdk/schema/v${version}/schema.unstable.json`);
  const schema = JSON.parse(readFileSync(path, "utf8")) as { $defs: Record<string, Definition> };
  // The schema uses vendor keywords (x-method, discriminator) and Rust integer formats (uint64).
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema(schema, "acp");
  const byName = new Map<string, ValidateFunction>();
  const get = (name: string) => {
    let fn = byName.get(name);
    if (!fn) byName.set(name, (fn = ajv.getSchema(`acp#/$defs/${name}`)!));
    return fn;
  };
  const find = (method: string, side: string, suffix: "Request" | "Response" | "Notification") =>
    Object.entries(schema.$defs).find(
      ([name, def]) => def["x-method"] === method && def["x-side"] === side && name.endsWith(suffix),
    )?.[0];
  const quota = { update: ajv.compile(QUOTA_UPDATE_NOTIFICATION), snapshot: ajv.compile(QUOTA_SNAPSHOT) };
  const rewind = {
    truncated: ajv.compile(HISTORY_TRUNCATED_NOTIFICATION),
    "session/rewind": ajv.compile(REWIND_RESPONSE),
    "session/edit_prompt": ajv.compile(EDIT_PROMPT_RESPONSE),
  };
  return { get, find, quota, rewind };
}

export class SchemaViolation extends Error {
  override name = "SchemaViolation";
}

/**
 * Validates one direction of a connection: `fromAgent(message)` for each message the agent sent,
 * `fromClient(message)` for each one the client sent (only recorded, so the agent's responses can be
 * matched to the request they answer). Violations are collected in `violations` and thrown by
 * `assertValid()`.
 */
export function createSchemaCheck(version: ProtocolVersion) {
  let compiled = validators.get(version);
  if (!compiled) validators.set(version, (compiled = compile(version)));
  const { get, find, quota, rewind } = compiled;
  const clientRequests = new Map<string, string>();
  const violations: string[] = [];
  let checked = 0;

  const check = (defName: string | ValidateFunction | undefined, value: unknown, what: string) => {
    if (!defName) return violations.push(`${what}: no schema type`);
    checked++;
    const validate = typeof defName === "string" ? get(defName) : defName;
    if (!validate(value)) {
      const errors = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || "/"} ${e.message}`);
      violations.push(
        `${what} is not a valid ${typeof defName === "string" ? defName : "draft shape"}: ${errors.join("; ")}\n${JSON.stringify(value).slice(0, 600)}`,
      );
    }
  };

  return {
    fromClient(message: unknown): void {
      const m = message as Message;
      if (typeof m.method === "string" && m.id !== undefined) clientRequests.set(JSON.stringify(m.id), m.method);
    },
    fromAgent(message: unknown): void {
      const m = message as Message;
      if (typeof m.method === "string") {
        // Our own extension methods (`_deep-acp/...`) have no schema type.
        if (m.method.startsWith("_")) return;
        const update = (m.params as { update?: { sessionUpdate?: string } } | undefined)?.update;
        if (m.method === "session/update" && update?.sessionUpdate === "quota_update")
          return void check(quota.update, m.params, "quota_update");
        if (m.method === "session/update" && update?.sessionUpdate === "history_truncated")
          return void check(rewind.truncated, m.params, "history_truncated");
        const side = m.method.startsWith("$/") ? "protocol" : "client";
        const suffix = m.id === undefined ? "Notification" : "Request";
        check(find(m.method, side, suffix), m.params, `${m.method} ${suffix.toLowerCase()}`);
        return;
      }
      const method = clientRequests.get(JSON.stringify(m.id));
      if ("error" in m) return void check("Error", m.error, `error answering ${method ?? "?"}`);
      if (!method || method.startsWith("_")) return;
      if (method === "quota/read") return void check(quota.snapshot, m.result, "quota/read response");
      if (method === "session/rewind" || method === "session/edit_prompt")
        return void check(rewind[method], m.result, `${method} response`);
      check(find(method, "agent", "Response"), m.result, `${method} response`);
    },
    violations,
    get checked() {
      return checked;
    },
    assertValid(): void {
      if (violations.length > 0) throw new SchemaViolation(violations.join("\n\n"));
    },
  };
}

export type SchemaCheck = ReturnType<typeof createSchemaCheck>;

/** Message streams between an in-process client and agent, every message passing through `check`. */
export function checkedPipe(check: SchemaCheck) {
  const toAgent = new TransformStream<unknown, unknown>({
    transform(message, controller) {
      check.fromClient(message);
      controller.enqueue(message);
    },
  });
  const toClient = new TransformStream<unknown, unknown>({
    transform(message, controller) {
      check.fromAgent(message);
      controller.enqueue(message);
    },
  });
  return {
    agentSide: { readable: toAgent.readable, writable: toClient.writable },
    clientSide: { readable: toClient.readable, writable: toAgent.writable },
  };
}
