import type { EmscriptenModuleLoaderOptions, QuickJSSyncVariant, QuickJSWASMModule } from "quickjs-emscripten-core";
import type { Logger } from "../../util/logger.js";
import { silentLogger } from "../../util/logger.js";
import { quickjsWasmBytes } from "./wasm-file.js";

// Nothing here runs at import time: the QuickJS packages are imported and the .wasm compiled on
// the first interpreter a session asks for, then reused by every later one in the process.

type Core = typeof import("quickjs-emscripten-core");

// The project compiles without DOM typings, so the few WebAssembly members used are typed here.
type WasmModule = object;
export type WasmMemory = { readonly buffer: ArrayBuffer };
type WasmApi = {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
};
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

type LoadedQuickJS = { core: Core; variant: QuickJSSyncVariant; wasm: WasmModule };

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
    const wasm = await wasmApi.compile(await quickjsWasmBytes());
    return { core, variant: unwrapDefault(variantModule) as QuickJSSyncVariant, wasm };
  })();
  // A failed load (missing package, unreadable file) must not poison later attempts.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

export type EngineInstance = {
  module: QuickJSWASMModule;
  memory: WasmMemory;
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
  const memory = new wasmApi.Memory({ initial: INITIAL_PAGES, maximum });
  // Emscripten's default print goes to console.log, i.e. stdout, which belongs to the ACP stream.
  const emscriptenModule = {
    print: (text: string) => logger.debug(`quickjs: ${text}`),
    printErr: (text: string) => logger.debug(`quickjs: ${text}`),
  } as EmscriptenModuleLoaderOptions;
  const module = await core.newQuickJSWASMModuleFromVariant(
    // The library's option types name WebAssembly.Module/Memory, which this project's libs lack.
    core.newVariant(variant, { wasmModule: wasm, wasmMemory: memory, emscriptenModule } as Parameters<
      Core["newVariant"]
    >[1]),
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
