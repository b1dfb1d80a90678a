import { homedir } from "node:os";
import { join } from "node:path";
import { loadConfigFile, type DeepAcpConfig } from "../../config/config-file.js";
import { CONFIG_SCHEMA_ID } from "../../config/schema-id.js";
import { userPaths } from "../../config/paths.js";
import { createModelService } from "../../model/client/service.js";
import type { SessionServices } from "../../session/index.js";
import { type Diagnostic, formatDiagnostic } from "../../util/diagnostics.js";
import type { Logger } from "../../util/logger.js";
import type { CliOptions } from "../args/args.js";

export type ServicesOptions = {
  cli: CliOptions;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Default: os.homedir() (so HOME=/tmp/x isolates everything). */
  home?: string;
  /**
   * A read of config.toml already made (by the early handshake's copy, which reported its problems):
   * the first config() takes it as it is.
   */
  firstConfigRead?: Promise<ConfigRead>;
};

type ConfigRead = { config: DeepAcpConfig; diagnostics: Diagnostic[] };

/** The services a first session/new needs: where things are, the config and the models. */
export type CoreServices = Pick<SessionServices, "logger" | "paths" | "env" | "config" | "reloadConfig" | "models">;

/**
 * The light part of the composition root (services.ts adds the rest): the early handshake answers
 * session/new with these before anything else loads. Nothing here touches the disk until first use.
 */
export function createCoreServices({
  cli,
  env,
  logger,
  home = homedir(),
  firstConfigRead,
}: ServicesOptions): CoreServices {
  const paths = userPaths(cli.agent, home);
  let config: Promise<ConfigRead> | undefined;
  const checked = CONFIG_SCHEMA_ID
    ? { file: join(paths.stateDir, "config-checked.json"), schemaId: CONFIG_SCHEMA_ID }
    : undefined;
  // Each read reports the file's problems: at start (here or in the early handshake) and at each reload.
  const load = () =>
    loadConfigFile(paths.configFile, checked).then((result) => {
      for (const d of result.diagnostics) logger.warn(formatDiagnostic(d));
      return result;
    });
  const core: CoreServices = {
    logger,
    paths,
    env,
    config: () => (config ??= firstConfigRead ?? load()),
    reloadConfig: () => (config = load()),
    models: createModelService({
      env,
      flag: cli.model,
      credentialsFile: paths.credentialsFile,
      config: () => core.config(),
      logger,
    }),
  };
  return core;
}
