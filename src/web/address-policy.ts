import { BlockList, isIP } from "node:net";
import { parseCidr } from "../util/cidr.js";

// Which addresses web_fetch may connect to. Loopback, link-local (cloud metadata at 169.254.169.254),
// private, carrier-grade NAT, multicast and reserved ranges are refused unless config.toml lists them
// under [web_fetch] allow_private_networks, so a page (or a redirect, or a DNS answer) cannot point
// the agent at services on the user's machine or network.

const SPECIAL_V4 = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const;

const SPECIAL_V6 = [
  ["::", 128],
  ["::1", 128],
  // IPv4-compatible (::a.b.c.d) and 6to4 (2002:aabb:ccdd::) spell IPv4 addresses, loopback included.
  ["::", 96],
  ["2002::", 16],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const;

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

export interface AddressPolicy {
  check(address: string): AddressVerdict;
}

export type AddressPolicyOptions = {
  /** CIDRs ("127.0.0.1/32", "10.0.0.0/8", "::1/128") or single addresses that may be reached although special. */
  allowPrivate?: readonly string[];
};

/** Throws for a malformed `allowPrivate` entry, naming it. */
export function createAddressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  const special = new BlockList();
  for (const [net, prefix] of SPECIAL_V4) special.addSubnet(net, prefix, "ipv4");
  for (const [net, prefix] of SPECIAL_V6) special.addSubnet(net, prefix, "ipv6");
  const allowed = new BlockList();
  for (const entry of options.allowPrivate ?? []) {
    const parsed = parseCidr(entry);
    if (!parsed) throw new Error(`[web_fetch] allow_private_networks: "${entry}" is not an IP address or CIDR`);
    allowed.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return {
    check(raw) {
      const address = unmapIpv4(raw);
      const family = isIP(address);
      if (family === 0) return { allowed: false, reason: `${raw} is not an IP address` };
      const type = family === 4 ? "ipv4" : "ipv6";
      if (!special.check(address, type)) return { allowed: true };
      if (allowed.check(address, type)) return { allowed: true };
      return { allowed: false, reason: `${raw} is a ${describe(address, family)} address` };
    },
  };
}

/** `::ffff:10.0.0.1` is 10.0.0.1 on the wire. */
function unmapIpv4(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match ? match[1]! : address.replace(/^\[|\]$/g, "");
}

function describe(address: string, family: number): string {
  if (family === 4) {
    if (address.startsWith("127.")) return "loopback";
    if (address.startsWith("169.254.")) return "link-local";
    return "private or reserved";
  }
  const lower = address.toLowerCase();
  if (lower === "::1") return "loopback";
  if (/^fe[89ab]/.test(lower)) return "link-local";
  return "private or reserved";
}
