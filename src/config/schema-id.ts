// The identity of the config schema in this build, for keeping the result of checking config.toml
// (config-file.ts). scripts/build.mjs sets it to a hash of the built code behind the start-up file, so a
// check kept by another build is never taken for this one's. From the TypeScript sources (tests,
// development) there is none, and nothing is kept.
declare const __DEEP_ACP_CONFIG_SCHEMA_ID__: string | undefined;

export const CONFIG_SCHEMA_ID: string | undefined =
  typeof __DEEP_ACP_CONFIG_SCHEMA_ID__ === "string" ? __DEEP_ACP_CONFIG_SCHEMA_ID__ : undefined;
