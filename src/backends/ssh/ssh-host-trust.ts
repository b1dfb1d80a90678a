import type { HostKey, HostKeyVerdict } from "./ssh-connection.js";
import { hostPatternName, type KnownHostsFile } from "./ssh-known-hosts.js";

// Whom to trust: keys in known_hosts connect; a changed or revoked key is refused with an
// explanation and never asked about; an unknown key is asked about (the editor's permission dialog
// with the fingerprint: allow once, or always = appended to known_hosts), or accepted for this run
// with --trust-remote-host, or refused with what to do.

export type HostKeyAnswer = "once" | "always" | "reject";

export type HostTrustOptions = {
  knownHosts: KnownHostsFile;
  /** --trust-remote-host: accept an unknown key for this run (known_hosts is not changed). */
  trustUnknown?: boolean;
  /** Asks the human about an unknown key; absent when nobody can answer (headless). */
  ask?: (key: HostKey) => Promise<HostKeyAnswer>;
  /** The other ways to trust an unknown key, said after known_hosts; "" where there are none (an engine connection). */
  otherWays?: string;
};

export type HostTrust = {
  verify(key: HostKey): Promise<HostKeyVerdict>;
  confirm(key: HostKey): Promise<boolean>;
};

export function describeHostKey(key: HostKey): string {
  return `${key.type} key ${key.fingerprint}`;
}

export function createHostTrust(options: HostTrustOptions): HostTrust {
  const path = options.knownHosts.path;
  const otherWays = options.otherWays ?? "accept it in the editor's dialog, or run with --trust-remote-host";
  return {
    async verify(key) {
      const name = hostPatternName(key.host, key.port);
      const status = await options.knownHosts.check(key);
      switch (status) {
        case "trusted":
          return { trusted: true };
        case "revoked":
          return {
            refused: `The host key of ${name} (${describeHostKey(key)}) is marked @revoked in ${path}; not connecting.`,
          };
        case "changed":
          return {
            refused:
              `The host key of ${name} has CHANGED: it offered ${describeHostKey(key)}, but ${path} holds a different ${key.type} key for it. ` +
              `Someone may be intercepting the connection (man in the middle), or the host was reinstalled. Not connecting. ` +
              `If the change is expected, remove the old key with: ssh-keygen -R '${name}' -f '${path}'`,
          };
        case "unknown":
          if (options.trustUnknown) return { trusted: true };
          return {
            unknown:
              `The host key of ${name} is not known (${describeHostKey(key)}). Check the fingerprint with the host's owner, then add it to ${path} ` +
              `(connect once with ssh)${otherWays ? `, ${otherWays}` : ""}.`,
          };
      }
    },
    async confirm(key) {
      if (!options.ask) return false;
      const answer = await options.ask(key);
      if (answer === "always") await options.knownHosts.add(key);
      return answer === "once" || answer === "always";
    },
  };
}
