// Every provider's credential variables are kept out of commands, hooks and MCP servers: the
// providers table (model/providers.ts) and the lists util/secret-env.ts filters by must agree.
import { describe, expect, it } from "vitest";
import { PROVIDERS } from "../../../src/model/catalog/providers.js";
import { buildShellEnv } from "../../../src/backends/processes/shell-env.js";
import { CLOUD_CREDENTIAL_VARS, MODEL_KEY_VARS } from "../../../src/util/secret-env.js";

const credentials = [
  ...new Set(Object.values(PROVIDERS).flatMap((info) => [...info.keyVars, ...(info.credentialVars ?? [])])),
];

describe("provider credentials in the environment of commands", () => {
  it("lists every key and credential variable of the providers table", () => {
    const filtered = new Set([...MODEL_KEY_VARS, ...CLOUD_CREDENTIAL_VARS]);
    expect(credentials.filter((name) => !filtered.has(name))).toEqual([]);
  });

  it.each(credentials)("%s does not reach a command unless [shell] pass_env names a cloud credential", (name) => {
    const base = { PATH: "/usr/bin", [name]: "secret-value" };
    expect(buildShellEnv({ baseEnv: base })[name]).toBeUndefined();
    const passed = buildShellEnv({ baseEnv: base, passEnv: [name] })[name];
    expect(passed).toBe(MODEL_KEY_VARS.includes(name) ? undefined : "secret-value");
  });
});
