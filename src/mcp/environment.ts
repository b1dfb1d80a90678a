// The environment a stdio server starts with: a small allowlist of the parent's variables plus the
// server's own `env`. API keys and tokens in the parent environment (ANTHROPIC_API_KEY, GITHUB_TOKEN,
// ...) never reach a server unless its definition names them.
//
// Kept: what locates programs and the user (PATH, HOME, USER, LOGNAME, SHELL), terminal and locale
// (TERM, LANG, LC_*, TZ), temp and XDG dirs, proxy and CA settings (`npx` must reach the registry
// through corporate proxies), and the Windows basics. Dropped on purpose: NODE_OPTIONS (our own
// debugging or --require flags must not leak into Node-based servers) and everything else.

const EXACT = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TEMP",
  "TMP",
  "XDG_RUNTIME_DIR",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  // Windows
  "SYSTEMROOT",
  "SystemRoot",
  "COMSPEC",
  "PATHEXT",
  "APPDATA",
  "LOCALAPPDATA",
  "USERPROFILE",
  "HOMEDRIVE",
  "HOMEPATH",
  "PROGRAMFILES",
  "ProgramFiles",
]);

export function isInheritedVariable(name: string): boolean {
  return EXACT.has(name) || name.startsWith("LC_");
}

/** Allowlisted parent variables, then the server's configured `env` on top. */
export function stdioServerEnvironment(parent: Record<string, string | undefined>, configured: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    // Exported shell functions (`BASH_FUNC_x%%=() {...}`) never match, but values starting with
    // "()" are skipped too, as the MCP SDK does, against Shellshock-style parsing.
    if (value === undefined || !isInheritedVariable(name) || value.startsWith("()")) continue;
    env[name] = value;
  }
  return { ...env, ...configured };
}
