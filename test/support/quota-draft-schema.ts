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
export const QUOTA_SNAPSHOT = {
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
export const QUOTA_UPDATE_NOTIFICATION = {
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
