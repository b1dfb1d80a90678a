import { ModelConfigError } from "../errors.js";
import type { ProviderName } from "../types.js";
import { isStandaloneBinary } from "../../util/standalone.js";

// The AWS and Google SDKs are optional peer dependencies: the published package bundles everything
// else, and these ~100 MB are only for the few who pick a bedrock: or vertex: model. When one is
// missing, the error says which packages to install and where, instead of Node's module-not-found.

export type OptionalPackages = {
  provider: ProviderName;
  /** What needs them, for the message: "bedrock: models". */
  purpose: string;
  /** Every package the provider needs, all named in the message so one install fixes it. */
  packages: readonly string[];
};

/** `load()` (an import of one of `needs.packages`), or a ModelConfigError naming what to install. */
export async function importOptional<T>(needs: OptionalPackages, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isModuleNotFound(error, needs.packages)) throw error;
    const list = needs.packages.join(" ");
    const how = isStandaloneBinary()
      ? `the standalone binary does not carry them: use the npm package, \`npm install -g deep-acp ${list}\``
      : `which deep-acp does not install by itself: run \`npm install -g ${list}\` (beside a global deep-acp) or \`npm install ${list}\` in the project that runs it`;
    throw new ModelConfigError(
      "missing_package",
      `${needs.purpose} need ${needs.packages.join(" and ")}, ${how}`,
      needs.provider,
    );
  }
}

function isModuleNotFound(error: unknown, packages: readonly string[]): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  return typeof message === "string" && packages.some((name) => message.includes(`'${name}'`));
}
