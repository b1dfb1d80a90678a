import { createHmac } from "node:crypto";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { HostKey } from "./ssh-connection.js";

// Host keys are checked against ~/.ssh/known_hosts (HOME's), read the way OpenSSH reads it: host
// patterns with * and ?, negation, hashed names (|1|salt|hmac), `[host]:port` for other ports,
// @revoked lines. A host with no line is unknown; a host whose lines hold other keys of the same
// type has changed (possible man in the middle); keys of other types alone leave it unknown.

export type KnownHostStatus = "trusted" | "unknown" | "changed" | "revoked";

type Entry = { marker?: string; patterns: string[]; type: string; key: string };

function parseLine(line: string): Entry | undefined {
  const text = line.trim();
  if (!text || text.startsWith("#")) return undefined;
  const fields = text.split(/\s+/);
  let marker: string | undefined;
  if (fields[0]!.startsWith("@")) marker = fields.shift();
  if (fields.length < 3) return undefined;
  return { ...(marker ? { marker } : {}), patterns: fields[0]!.split(","), type: fields[1]!, key: fields[2]! };
}

export function hostPatternName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function globMatch(pattern: string, name: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
    "i",
  );
  return regex.test(name);
}

function patternMatches(pattern: string, name: string): boolean {
  if (pattern.startsWith("|1|")) {
    const [, , salt, hash] = pattern.split("|");
    if (!salt || !hash) return false;
    return createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64") === hash;
  }
  return globMatch(pattern, name);
}

function entryMatches(entry: Entry, name: string): boolean {
  let matched = false;
  for (const pattern of entry.patterns) {
    if (pattern.startsWith("!")) {
      if (patternMatches(pattern.slice(1), name)) return false;
    } else if (patternMatches(pattern, name)) matched = true;
  }
  return matched;
}

export function checkKnownHost(text: string, key: HostKey): KnownHostStatus {
  const name = hostPatternName(key.host, key.port);
  const offered = key.blob.toString("base64");
  let sameTypeOther = false;
  let trusted = false;
  for (const line of text.split("\n")) {
    const entry = parseLine(line);
    if (!entry || entry.marker === "@cert-authority" || !entryMatches(entry, name)) continue;
    if (entry.marker === "@revoked") {
      if (entry.key === offered) return "revoked";
      continue;
    }
    if (entry.key === offered) trusted = true;
    else if (entry.type === key.type) sameTypeOther = true;
  }
  if (trusted) return "trusted";
  return sameTypeOther ? "changed" : "unknown";
}

export type KnownHostsFile = {
  readonly path: string;
  check(key: HostKey): Promise<KnownHostStatus>;
  /** Appends the key (plain host name, as `ssh` writes with HashKnownHosts off); creates ~/.ssh 0700. */
  add(key: HostKey): Promise<void>;
};

export function createKnownHostsFile(path: string): KnownHostsFile {
  return {
    path,
    async check(key) {
      let text = "";
      try {
        text = await readFile(path, "utf8");
      } catch {
        // no file: every host is unknown
      }
      return checkKnownHost(text, key);
    },
    async add(key) {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      let prefix = "";
      try {
        const existing = await readFile(path, "utf8");
        if (existing.length > 0 && !existing.endsWith("\n")) prefix = "\n";
      } catch {
        // new file
      }
      await appendFile(
        path,
        `${prefix}${hostPatternName(key.host, key.port)} ${key.type} ${key.blob.toString("base64")}\n`,
        { mode: 0o600 },
      );
    },
  };
}
