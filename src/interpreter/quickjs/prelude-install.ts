import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { PRELUDE_FILE } from "./output.js";
import { PRELUDE_HELPERS, PRELUDE_SOURCE, type PreludeConfig } from "./prelude.js";
import type { Helpers } from "./sandbox-host.js";

/** The host functions the prelude calls (always while guest code is running). */
export type PreludeHostFunctions = Record<string, (...args: QuickJSHandle[]) => QuickJSHandle | void>;

/** Evaluates the prelude in `ctx` with `functions` as its host object and returns the helpers it hands back. */
export function installPrelude(ctx: QuickJSContext, functions: PreludeHostFunctions, config: PreludeConfig): Helpers {
  const fn = ctx.unwrapResult(ctx.evalCode(PRELUDE_SOURCE, PRELUDE_FILE, { type: "global", strict: true }));
  const host = ctx.newObject();
  for (const [name, impl] of Object.entries(functions)) {
    const handle = ctx.newFunction(name, (...args) => impl(...args));
    ctx.setProp(host, name, handle);
    handle.dispose();
  }
  const configHandle = ctx.newString(JSON.stringify(config));
  const helpersObject = ctx.unwrapResult(ctx.callFunction(fn, ctx.undefined, host, configHandle));
  const helpers = Object.fromEntries(
    PRELUDE_HELPERS.map((name) => [name, ctx.getProp(helpersObject, name)]),
  ) as Helpers;
  for (const handle of [fn, host, configHandle, helpersObject]) handle.dispose();
  return helpers;
}
