import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { checkBwrapAvailable, createBwrapSandboxBackend } from "../../../src/backends/sandbox/bwrap-sandbox.js";
import { createCompositeBackend } from "../../../src/backends/routes/composite-backend.js";
import { createEditorBackend } from "../../../src/backends/editor/editor-backend.js";
import { createFilesystemBackend } from "../../../src/backends/local/filesystem-backend.js";
import { createLocalShellBackend } from "../../../src/backends/local/local-shell.js";
import { createStateBackend } from "../../../src/backends/state/state-backend.js";
import { createStoreBackend } from "../../../src/backends/state/store-backend.js";
import { describeBackendConformance, type ConformanceSubject } from "./conformance.js";
import { createFakeEditorBridge } from "./fake-editor-bridge.js";

async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "deep-acp-conf-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

for (const ripgrep of [undefined, false] as const) {
  const label = ripgrep === false ? "JS walk" : "ripgrep";

  describeBackendConformance(`filesystem (real paths, ${label})`, async (): Promise<ConformanceSubject> => {
    const { dir, cleanup } = await tempDir();
    return { backend: createFilesystemBackend({ rootDir: dir, ripgrep }), base: dir, disk: true, cleanup };
  });

  describeBackendConformance(`filesystem (virtual mode, ${label})`, async (): Promise<ConformanceSubject> => {
    const { dir, cleanup } = await tempDir();
    return {
      backend: createFilesystemBackend({ rootDir: dir, virtualMode: true, ripgrep }),
      base: "/",
      disk: true,
      cleanup,
    };
  });
}

describeBackendConformance("filesystem (glob through rg --files)", async (): Promise<ConformanceSubject> => {
  const { dir, cleanup } = await tempDir();
  return { backend: createFilesystemBackend({ rootDir: dir, globWith: "ripgrep" }), base: dir, disk: true, cleanup };
});

describeBackendConformance("state", async () => ({
  backend: createStateBackend(),
  base: "/",
  disk: false,
  cleanup: async () => {},
}));

describeBackendConformance("store", async () => {
  const { dir, cleanup } = await tempDir();
  return { backend: createStoreBackend({ dir, namespace: ["agent", "memories"] }), base: "/", disk: true, cleanup };
});

describeBackendConformance("composite (default route on disk)", async () => {
  const { dir, cleanup } = await tempDir();
  const backend = createCompositeBackend(createFilesystemBackend({ rootDir: dir }), { "/mem/": createStateBackend() });
  return { backend, base: dir, disk: true, cleanup };
});

describeBackendConformance("composite (state route)", async () => {
  const { dir, cleanup } = await tempDir();
  const backend = createCompositeBackend(createFilesystemBackend({ rootDir: dir }), { "/mem/": createStateBackend() });
  return { backend, base: "/mem/t", disk: false, cleanup };
});

describeBackendConformance("composite (store route)", async () => {
  const { dir, cleanup } = await tempDir();
  const store = createStoreBackend({ dir: join(dir, "store") });
  const backend = createCompositeBackend(createFilesystemBackend({ rootDir: join(dir, "work") }), {
    "/memories/": store,
  });
  return { backend, base: "/memories/t", disk: true, cleanup };
});

describeBackendConformance("local shell", async () => {
  const { dir, cleanup } = await tempDir();
  return { backend: createLocalShellBackend({ rootDir: dir }), base: dir, disk: true, cleanup };
});

describeBackendConformance("editor (fake bridge over disk)", async () => {
  const { dir, cleanup } = await tempDir();
  const bridge = createFakeEditorBridge();
  const backend = createEditorBackend({ bridge, roots: [dir], fallback: createFilesystemBackend({ rootDir: dir }) });
  return { backend, base: dir, disk: true, cleanup };
});

const bwrap = await checkBwrapAvailable();
if (bwrap.ok) {
  describeBackendConformance("bwrap sandbox", async () => {
    const { dir, cleanup } = await tempDir();
    return { backend: createBwrapSandboxBackend({ roots: [dir] }), base: dir, disk: true, cleanup };
  });
} else {
  describe("backend conformance: bwrap sandbox", () => {
    it.skip(`skipped: ${bwrap.reason}`, () => {});
  });
}
