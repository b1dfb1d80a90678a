import { DEFAULT_INTERPRETER_LIMITS } from "./limits.js";
import { loadQuickJS } from "./quickjs-loader.js";
import { createSandbox } from "./sandbox.js";
import { preloadTransform } from "./transform.js";

/**
 * Loads QuickJS and the transform and runs one throwaway eval, so the engine's code is compiled
 * (V8 compiles WASM functions lazily, on first use) before the first eval a user waits for.
 */
export async function warmUp(): Promise<void> {
  await Promise.all([loadQuickJS(), preloadTransform()]);
  const sandbox = await createSandbox({ limits: DEFAULT_INTERPRETER_LIMITS });
  const refuse = async () => {
    throw new Error("unavailable");
  };
  try {
    await sandbox.run("const warm: number[] = [1]; console.log(JSON.stringify(warm.map((n) => n + 1)))", {
      callTool: refuse,
      runTask: refuse,
      isCancelled: () => false,
      onCancel: () => () => undefined,
    });
  } finally {
    sandbox.dispose();
  }
}
