import { startEarlyHandshake } from "../acp/early/early-handshake.js";
import { earlySessionNewResult } from "../acp/early/early-session.js";
import { hideSecretsFromProcEnviron } from "../util/hide-environ.js";
import { createLogger } from "../util/logger.js";
import { HELP, parseCliArgs, UsageError } from "./args.js";
import { createCoreServices } from "./core-services.js";
import { VERSION } from "./version.js";

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
  switch (command) {
    case undefined: {
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
      const [{ serve }, { createServices }] = await Promise.all([import("./serve.js"), import("./services.js")]);
      return serve(cli, VERSION, logger, createServices({ ...options, firstConfigRead: core.config() }), early);
    }
    case "login": {
      const { runLogin } = await import("./login.js");
      return runLogin(cli);
    }
    case "mcp": {
      const { runMcpCommand } = await import("./extension-commands.js");
      return runMcpCommand(cli, rest);
    }
    case "skills": {
      const { runSkillsCommand } = await import("./extension-commands.js");
      return runSkillsCommand(cli, rest);
    }
    case "plugins": {
      const { runPluginsCommand } = await import("./extension-commands.js");
      return runPluginsCommand(cli, rest);
    }
    case "sessions": {
      const { runSessionsCommand } = await import("./sessions.js");
      return runSessionsCommand(cli, rest, logger);
    }
    case "setup": {
      const { runSetup } = await import("./setup.js");
      return runSetup(cli);
    }
    case "workspaces": {
      const { runWorkspacesCommand } = await import("./workspaces.js");
      return runWorkspacesCommand(cli, rest);
    }
    case "doctor": {
      const { runDoctorCommand } = await import("./doctor.js");
      return runDoctorCommand(cli);
    }
    case "logout": {
      const { runLogout } = await import("./login.js");
      return runLogout(cli);
    }
    default:
      process.stderr.write(
        `deep-acp: unknown command "${[command, ...rest].join(" ")}"\nRun deep-acp --help for usage.\n`,
      );
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`deep-acp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
