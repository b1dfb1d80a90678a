import { isIP } from "node:net";

// HTTPS_PROXY / HTTP_PROXY / NO_PROXY, read the way curl and most tools read them: lower case wins,
// NO_PROXY is a comma list of host suffixes ("example.com", ".example.com"), optional ":port", or "*".

export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/** A URL's host name without the brackets an IPv6 address carries there. */
export const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, "");

/** The proxy to use for `target`, or undefined to connect directly. */
export function proxyFor(target: URL, env: ProxyEnv): URL | undefined {
  const raw = target.protocol === "https:" ? pick(env, "https_proxy") : pick(env, "http_proxy");
  if (!raw) return undefined;
  if (bypassed(target, pick(env, "no_proxy") ?? "")) return undefined;
  try {
    return new URL(raw.includes("://") ? raw : `http://${raw}`);
  } catch {
    return undefined;
  }
}

function pick(env: ProxyEnv, name: string): string | undefined {
  const value = env[name] ?? env[name.toUpperCase()];
  return value && value.trim() !== "" ? value.trim() : undefined;
}

function bypassed(target: URL, noProxy: string): boolean {
  const host = bareHost(target.hostname).toLowerCase();
  const port = target.port || (target.protocol === "https:" ? "443" : "80");
  for (const rawEntry of noProxy.split(/[\s,]+/)) {
    const entry = rawEntry.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    const [entryHost = "", entryPort] =
      isIP(entry) !== 0
        ? [entry, undefined]
        : entry.startsWith("[")
          ? [entry.slice(1, entry.indexOf("]")), entry.split("]:")[1]]
          : entry.split(":");
    if (entryPort && entryPort !== port) continue;
    const suffix = entryHost.replace(/^\*?\./, "");
    if (host === suffix || host.endsWith(`.${suffix}`)) return true;
  }
  return false;
}
