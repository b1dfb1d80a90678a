// stdout belongs to the protocol, so every log line goes to stderr. DEEP_ACP_LOG=debug|info|warn|error|silent.

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, details?: unknown): void;
  info(message: string, details?: unknown): void;
  warn(message: string, details?: unknown): void;
  error(message: string, details?: unknown): void;
  child(scope: string): Logger;
}

export type LoggerOptions = {
  /** Default: DEEP_ACP_LOG or "warn". */
  level?: LogLevel;
  /** Default: process.stderr. */
  write?: (line: string) => void;
  scope?: string;
};

export function createLogger(options: LoggerOptions = {}): Logger {
  const envLevel = process.env.DEEP_ACP_LOG as LogLevel | undefined;
  const level = options.level ?? (envLevel && envLevel in ORDER ? envLevel : "warn");
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const scope = options.scope;
  const log = (at: LogLevel, message: string, details?: unknown) => {
    if (ORDER[at] < ORDER[level]) return;
    const prefix = scope ? `[deep-acp:${scope}]` : "[deep-acp]";
    const suffix = details === undefined ? "" : ` ${formatDetails(details)}`;
    write(`${prefix} ${at}: ${message}${suffix}\n`);
  };
  return {
    debug: (m, d) => log("debug", m, d),
    info: (m, d) => log("info", m, d),
    warn: (m, d) => log("warn", m, d),
    error: (m, d) => log("error", m, d),
    child: (child) => createLogger({ level, write, scope: scope ? `${scope}:${child}` : child }),
  };
}

function formatDetails(details: unknown): string {
  if (details instanceof Error) return details.stack ?? details.message;
  if (typeof details === "string") return details;
  try {
    return JSON.stringify(details);
  } catch {
    return String(details);
  }
}

export const silentLogger: Logger = createLogger({ level: "silent" });
