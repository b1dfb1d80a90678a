import { createRequire } from "node:module";
import { startEarlyHandshake } from "../acp/early/early-handshake.js";
import { earlySessionNewResult } from "../acp/early/early-session.js";
import { hideSecretsFromProcEnviron } from "../util/hide-environ.js";
import { createLogger, type Logger } from "../util/logger.js";
import { HELP, parseCliArgs, UsageError, type CliOptions } from "./args/args.js";
import { createCoreServices } from "./services/core-services.js";
import { VERSION } from "./args/version.js";

/** Entry point. Subcommands are imported on demand so serving ACP loads as little as possible. */
async function main(argv: string[]): Promise<number> {
  // Before anything else: a command the user approves can read /proc/<this pid>/environ.
  const hidden = hideSecretsFromProcEnviron();
  const logger = createLogger();
  if (hidden.error) logger.debug(`secrets stay readable in /proc/${process.pid}/environ: ${hidden.error}`);
  let cli;
  try {
    cli = parseCliArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`deep-acp: ${error.message}\nRun deep-acp --help for usage.\n`);
      return 2;
    }
    throw error;
  }
  if (cli.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (cli.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (cli.prompt !== undefined) {
    const { runHeadless } = await import("./headless.js");
    return runHeadless(cli, logger);
  }
  const [command, ...rest] = cli.command;
  if (command === undefined) return serveAcp(cli, logger);
  const run = Object.hasOwn(SUBCOMMANDS, command) ? SUBCOMMANDS[command] : undefined;
  if (run) return run(cli, rest, logger);
  process.stderr.write(`deep-acp: unknown command "${[command, ...rest].join(" ")}"\nRun deep-acp --help for usage.\n`);
  return 2;
}

/** `deep-acp` alone: ACP on stdio, what editors launch. */
async function serveAcp(cli: CliOptions, logger: Logger): Promise<number> {
  // What an editor waits for is initialize and session/new answered; both are answered from
  // here when plain, with the light core services, and the ACP SDK (most of a cold start) and
  // the rest load only after them, or when a request needs them (see early-handshake.ts).
  const options = { cli, env: process.env, logger };
  // Only for the early answers: this bundle's modules are not the rest's (see scripts/build.mjs),
  // so the SDK path builds its own services, taking over the config read here (plain data, its
  // problems reported here, where it is read right after initialize).
  const core = createCoreServices(options);
  const context = { services: core, remote: cli.remote ?? cli.workspace, maxMessageBytes: cli.maxMessageBytes };
  const early = process.stdin.isTTY
    ? undefined
    : startEarlyHandshake({
        input: process.stdin,
        output: process.stdout,
        version: VERSION,
        afterInitialize: () => void core.config().catch(() => undefined),
        sessionNew: (params, sessionId, bytes) => earlySessionNewResult(context, params, sessionId, bytes),
      });
  await early?.settled;
  const [{ serve }, { createServices }] = await Promise.all([import("./serve.js"), import("./services/services.js")]);
  return serve(cli, VERSION, logger, createServices({ ...options, firstConfigRead: core.config() }), early);
}

type Subcommand = (cli: CliOptions, rest: string[], logger: Logger) => Promise<number>;

/** The subcommands, each imported only when it runs. */
const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  login: async (cli) => (await import("./subcommands/login.js")).runLogin(cli),
  logout: async (cli) => (await import("./subcommands/login.js")).runLogout(cli),
  mcp: async (cli, rest) => (await import("./subcommands/extension-commands.js")).runMcpCommand(cli, rest),
  skills: async (cli, rest) => (await import("./subcommands/extension-commands.js")).runSkillsCommand(cli, rest),
  plugins: async (cli, rest) => (await import("./subcommands/extension-commands.js")).runPluginsCommand(cli, rest),
  sessions: async (cli, rest, logger) =>
    (await import("./subcommands/sessions.js")).runSessionsCommand(cli, rest, logger),
  setup: async (cli) => (await import("./subcommands/setup.js")).runSetup(cli),
  workspaces: async (cli, rest) => (await import("./subcommands/workspaces.js")).runWorkspacesCommand(cli, rest),
  doctor: async (cli) => (await import("./doctor/doctor.js")).runDoctorCommand(cli),
};

function run(): void {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`deep-acp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

// The standalone binary is built from a V8 startup snapshot of this bundle (scripts/build-binary.mjs):
// while the snapshot is built, the modules an ACP session needs are loaded (their code compiled and
// their top level run into the heap) and main waits for the binary's start. node:v8 is required only
// then (`node --experimental-sea-config` or `--build-snapshot` is building): every other start skips its load.
if (process.execArgv.some((arg) => arg === "--build-snapshot" || arg.startsWith("--experimental-sea-config"))) {
  const { startupSnapshot } = createRequire(import.meta.url)("node:v8") as typeof import("node:v8");
  if (startupSnapshot.isBuildingSnapshot()) {
    void Promise.all([import("./serve.js"), import("./services/services.js")]);
    startupSnapshot.setDeserializeMainFunction(run);
  } else run();
} else run();
