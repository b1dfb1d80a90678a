import { isIP } from "node:net";

/** "10.0.0.0/8", "::1/128" or a bare address (a /32 or /128); undefined when malformed. */
export function parseCidr(entry: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | undefined {
  const [address = "", prefixText] = entry.trim().split("/");
  const family = isIP(address);
  if (family === 0) return undefined;
  const max = family === 4 ? 32 : 128;
  if (prefixText === "") return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) return undefined;
  return { address, prefix, family: family === 4 ? "ipv4" : "ipv6" };
}
