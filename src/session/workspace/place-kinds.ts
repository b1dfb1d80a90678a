import type { PlaceAt, PlaceKind, PlaceTarget } from "./place.js";
import { containerPlace } from "./container/container-place.js";
import { localPlace } from "./local/local-place.js";
import { sandboxPlace } from "./sandbox/sandbox-place.js";
import { sshPlace } from "./ssh/ssh-place.js";

// Every kind of place, one line each. A URL opens the kind that names its scheme; a session with no
// URL is here, in the first kind whose here() takes the sandbox setting (local last: what is left).

const kinds: PlaceKind[] = [sshPlace, containerPlace, sandboxPlace, localPlace];

/** Adds a kind (tests register fakes): it is found before the built-in ones. */
export function registerPlaceKind(kind: PlaceKind): () => void {
  kinds.unshift(kind);
  return () => void kinds.splice(kinds.indexOf(kind), 1);
}

export function placeKinds(): readonly PlaceKind[] {
  return kinds;
}

/** `ssh` of ssh://host/p, `devcontainer` of devcontainer?mount=bind; undefined when it names none. */
export function schemeOf(url: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*)(?::|\?|$)/i.exec(url)?.[1]?.toLowerCase();
}

/** The target a URL names; throws with a message meant for the user when no kind opens it. */
export function targetForUrl(url: string, at: PlaceAt): PlaceTarget & { kind: string } {
  const scheme = schemeOf(url);
  const kind = kinds.find((k) => scheme !== undefined && k.schemes.includes(scheme));
  if (!kind) {
    const usage = kinds.flatMap((k) => (k.usage ? [k.usage] : [])).join(", or ");
    throw new Error(`workspace "${url}": expected ${usage}`);
  }
  return { kind: kind.name, ...kind.select(url, at) };
}

/** This machine's place for the sandbox setting. */
export function targetHere(sandbox: string, at: PlaceAt): PlaceTarget & { kind: string } {
  const kind = kinds.find((k) => k.here?.(sandbox))!;
  return { kind: kind.name, ...kind.select("", at) };
}
