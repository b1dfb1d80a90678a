// esbuild plugins and options shared by the package build (build.mjs) and the standalone binary's
// (build-binary.mjs).
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// jsonc-parser's "main" is a UMD build whose inner require()s esbuild cannot follow; use its ESM build.
// Absolute, so a build from another folder (the packaging test's stage) finds it too.
export const jsoncParserEsm = {
  "jsonc-parser": fileURLToPath(new URL("../node_modules/jsonc-parser/lib/esm/main.js", import.meta.url)),
};

// dockerode is bundled (into the rest, loaded with the first container workspace), but two of its
// require()s run only when used: its BuildKit support (gRPC and protobuf, which deep-acp never uses)
// and docker-modem's ssh:// transport (ssh2). Required at load, they made dockerode take ~5x as
// long to import (80 vs 400 ms here), all of it on the way to a container session's first answer.
export const deferDockerRequires = {
  name: "defer-docker-requires",
  setup(build) {
    const deferred = {
      "./session": ["dockerode", "dockerode/lib/session.js"],
      "./buildkit": ["dockerode", "dockerode/lib/buildkit.js"],
      "./ssh": ["docker-modem", "docker-modem/lib/ssh.js"],
    };
    build.onResolve({ filter: /^\.\/(session|buildkit|ssh)$/ }, (args) => {
      const [pkg, file] = deferred[args.path];
      if (!args.importer.includes(`${join("node_modules", pkg)}/`)) return undefined;
      return { path: file, namespace: "deferred-require", pluginData: { pkg } };
    });
    build.onLoad({ filter: /.*/, namespace: "deferred-require" }, (args) => ({
      loader: "js",
      // Resolved from dockerode's own folder, wherever npm put docker-modem.
      contents: `const { createRequire } = require("node:module");
let loaded;
module.exports = function (...args) {
  loaded ??= createRequire(require.resolve("dockerode"))(${JSON.stringify(args.path)});
  return loaded.apply(this, args);
};`,
    }));
  },
};

// zod re-exports every message locale (~260 KB, more than half of zod) for `z.locales.*`; nothing
// here uses them and the default (English) is imported directly, so they are left out of the bundle.
export const onlyEnglishZodLocales = {
  name: "only-english-zod-locales",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      loader: "js",
      resolveDir: fileURLToPath(new URL("../node_modules/zod/v4/locales", import.meta.url)),
    }));
  },
};
