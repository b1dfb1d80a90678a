import type { SubagentRequest } from "../../tools/types.js";

const KEYS: Record<string, keyof SubagentRequest> = {
  description: "description",
  subagentType: "subagentType",
  subagent_type: "subagentType",
  responseSchema: "responseSchema",
  response_schema: "responseSchema",
};

const USAGE = "task({ description: string, subagentType: string, responseSchema?: object })";

/** Validates what code passed to `task()`; camelCase and snake_case keys are both accepted. */
export function parseTaskRequest(json: string): SubagentRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new TypeError(`task() expects ${USAGE}`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new TypeError(`task() expects ${USAGE}`);
  const unknown = Object.keys(raw).filter((key) => !(key in KEYS));
  if (unknown.length > 0) throw new TypeError(`task() got unknown key(s) ${unknown.join(", ")}; expected ${USAGE}`);
  const fields: Partial<Record<keyof SubagentRequest, unknown>> = {};
  for (const [key, value] of Object.entries(raw)) {
    const field = KEYS[key]!;
    if (fields[field] !== undefined) throw new TypeError(`task() got both spellings of ${field}`);
    fields[field] = value;
  }
  const { description, subagentType, responseSchema } = fields;
  if (typeof description !== "string" || description.trim() === "") {
    throw new TypeError(`task() needs a non-empty description; expected ${USAGE}`);
  }
  if (typeof subagentType !== "string" || subagentType.trim() === "") {
    throw new TypeError(`task() needs a subagentType; expected ${USAGE}`);
  }
  if (
    responseSchema !== undefined &&
    (responseSchema === null || typeof responseSchema !== "object" || Array.isArray(responseSchema))
  ) {
    throw new TypeError("task() responseSchema must be a JSON Schema object");
  }
  return responseSchema === undefined
    ? { description, subagentType }
    : { description, subagentType, responseSchema: responseSchema as Record<string, unknown> };
}

export class LimiterClosedError extends Error {
  override name = "LimiterClosedError";
}

/** Runs at most `max` jobs at once; `close()` drops the queued ones (the eval that made them ended). */
export class ConcurrencyLimiter {
  private active = 0;
  private readonly queue: Array<{ start: () => void; fail: (error: Error) => void }> = [];
  private closed: Error | null = null;

  constructor(private readonly max: number) {}

  run<T>(job: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(this.closed);
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.active += 1;
        job()
          .then(resolve, reject)
          .finally(() => {
            this.active -= 1;
            this.next();
          });
      };
      if (this.active < this.max) start();
      else this.queue.push({ start, fail: reject });
    });
  }

  close(reason: string): void {
    this.closed = new LimiterClosedError(reason);
    for (const entry of this.queue.splice(0)) entry.fail(this.closed);
  }

  private next(): void {
    if (this.closed) return;
    const entry = this.queue.shift();
    if (entry) entry.start();
  }
}
