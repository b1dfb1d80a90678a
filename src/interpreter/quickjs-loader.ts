import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import type { Logger } from "../util/logger.js";
import { silentLogger } from "../util/logger.js";

// Nothing here runs at import time: the QuickJS packages are imported and the .wasm compiled on
// the first interpreter a session asks for, then reused by every later one in the process.

type Core = typeof import("quickjs-emscripten-core");
type Variant = Parameters<Core["newVariant"]>[0];
type EmscriptenOverrides = NonNullable<Parameters<Core["newVariant"]>[1]["emscriptenModule"]>;

type LoadedQuickJS = { core: Core; variant: Variant; wasm: WebAssembly.Module };

let loading: Promise<LoadedQuickJS> | undefined;

const WASM_PAGE = 64 * 1024;
/** Initial pages the sync release build declares for its memory import (16 MiB). */
const INITIAL_PAGES = 256;

/** Imports the QuickJS packages and compiles the .wasm once per process. */
export function loadQuickJS(): Promise<LoadedQuickJS> {
  loading ??= (async () => {
    const [core, variantModule] = await Promise.all([
      import("quickjs-emscripten-core"),
      import("@jitl/quickjs-wasmfile-release-sync"),
    ]);
    const wasmPath = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
    const wasm = await WebAssembly.compile(await readFile(wasmPath));
    return { core, variant: unwrapDefault(variantModule) as Variant, wasm };
  })();
  // A failed load (missing package, unreadable file) must not poison later attempts.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

export type EngineInstance = {
  module: QuickJSWASMModule;
  memory: WebAssembly.Memory;
  core: Core;
  /** Bytes the memory may grow to. */
  maxBytes: number;
};

export type EngineInstanceOptions = {
  memoryLimitBytes: number;
  /** Receives anything the C code prints. Default: silent. */
  logger?: Logger;
};

/**
 * A fresh WASM instance with its own capped memory. `setMemoryLimit` alone does not hold (QuickJS
 * undercounts string storage), so the cap on the WebAssembly.Memory is the real limit; a separate
 * instance also means a runaway script cannot grow or corrupt memory another interpreter uses.
 */
export async function createEngineInstance(options: EngineInstanceOptions): Promise<EngineInstance> {
  const { core, variant, wasm } = await loadQuickJS();
  const logger = options.logger ?? silentLogger;
  const maximum = Math.max(INITIAL_PAGES, Math.floor(options.memoryLimitBytes / WASM_PAGE));
  const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum });
  // Emscripten's default print goes to console.log, i.e. stdout, which belongs to the ACP stream.
  const emscriptenModule = {
    print: (text: string) => logger.debug(`quickjs: ${text}`),
    printErr: (text: string) => logger.debug(`quickjs: ${text}`),
  } as EmscriptenOverrides;
  const module = await core.newQuickJSWASMModuleFromVariant(
    core.newVariant(variant, { wasmModule: wasm, wasmMemory: memory, emscriptenModule }),
  );
  return { module, memory, core, maxBytes: maximum * WASM_PAGE };
}

function unwrapDefault(value: unknown): unknown {
  let current = value;
  while (current && typeof current === "object" && "default" in current && (current as { default: unknown }).default) {
    current = (current as { default: unknown }).default;
  }
  return current;
}
