// Checks captured ACP v1 traffic against the SDK's own JSON schema (support/schema-check.ts), so a
// test can prove that every message the agent sent is one a strict client accepts.
import { createSchemaCheck } from "./schema-check.js";

/** A JSON-RPC message as captured (raw, before any client-side parsing). */
export type WireMessage = {
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
};

/**
 * Everything the agent sent that the schema rejects, as readable lines (empty: all valid).
 * `sent` is what the client wrote (to know which method each response answers).
 */
export function acpViolations(received: readonly WireMessage[], sent: readonly WireMessage[]): string[] {
  const check = createSchemaCheck(1);
  for (const message of sent) check.fromClient(message);
  for (const message of received) check.fromAgent(message);
  return [...check.violations];
}
