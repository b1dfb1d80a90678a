// The one store of every decision deep-acp remembers, of every kind, with one key shape
// (`<kind>:<id>`): every "always", "never" and "for this session" answer is written through
// `remember`, every "is this remembered?" is read through `lookup`, `/permissions` lists and revokes
// through `list` and `revoke`. The kinds: tool-call "always" answers, project MCP servers (approved
// or never), this session's MCP "allow for this session", project hooks and this session's "allow
// once" of them, skill links, dev containers. Each kind's backing keeps its own file or, for a
// session's answers, its memory (users lose nothing they decided before; several deep-acp processes
// keep merging into the same files, each backing writing atomically under its lock). The store holds
// nothing itself, so any two built over the same backings are the same store.

export type RememberedKind =
  "tool" | "mcp-server" | "mcp-session" | "hooks" | "hooks-session" | "skill-link" | "devcontainer";

/** One remembered decision. `key` is `<kind>:<id>`, the same shape for every kind. */
export type RememberedDecision = {
  key: string;
  kind: RememberedKind;
  decision: "allow" | "deny";
  /** What was decided about, as the user knows it. */
  label: string;
  /** How long it holds: for this project, for this session only, or wherever the thing is used. */
  scope: "project" | "session" | "everywhere";
};

type Listed = Omit<RememberedDecision, "key" | "kind"> & { id: string };

/**
 * What a decision is bound to besides its key, as its kind defines it (the fingerprint of the bytes
 * approved, the files they run): a lookup with another binding finds nothing, so it asks again.
 */
export type RememberedBinding = Readonly<Record<string, unknown>>;

/**
 * One kind's backing: it lists its decisions, each with its own id (the key without the kind),
 * reads and writes one and forgets one. Only the store calls it.
 */
export type RememberedStore = {
  readonly kind: RememberedKind;
  /** How long this kind's decisions hold. */
  readonly scope: RememberedDecision["scope"];
  list(): Promise<Listed[]>;
  read(id: string, binding?: RememberedBinding): Promise<RememberedDecision["decision"] | undefined>;
  write(
    id: string,
    decision: RememberedDecision["decision"],
    label: string,
    binding?: RememberedBinding,
  ): Promise<void>;
  forget(id: string): Promise<boolean>;
};

const ORDER: RememberedKind[] = [
  "tool",
  "mcp-server",
  "mcp-session",
  "hooks",
  "hooks-session",
  "skill-link",
  "devcontainer",
];

export type Remembered = {
  /** Every kind, in a stable order (by kind, then as each store lists them). */
  list(): Promise<RememberedDecision[]>;
  /** Forgets the decision with this key; undefined when there is none. */
  revoke(key: string): Promise<RememberedDecision | undefined>;
  /** Writes one answer; `scope` must be its kind's (a session answer is not kept on disk, and back). */
  remember(
    key: string,
    decision: RememberedDecision["decision"],
    scope: RememberedDecision["scope"],
    label: string,
    binding?: RememberedBinding,
  ): Promise<void>;
  /** The remembered answer for this key (and binding); undefined when it asks. */
  lookup(key: string, binding?: RememberedBinding): Promise<RememberedDecision["decision"] | undefined>;
};

/** The key of `id` of `kind`: the one shape every kind's decisions have. */
export const rememberedKey = (kind: RememberedKind, id: string): string => `${kind}:${id}`;

export function createRemembered(stores: readonly RememberedStore[]): Remembered {
  const byKind = new Map(stores.map((store) => [store.kind, store]));
  const split = (key: string): { store: RememberedStore; id: string } => {
    const colon = key.indexOf(":");
    const store = byKind.get(key.slice(0, colon) as RememberedKind);
    if (colon < 0 || !store) throw new Error(`no store of remembered decisions for ${key}`);
    return { store, id: key.slice(colon + 1) };
  };
  const list = async (): Promise<RememberedDecision[]> => {
    const sorted = [...stores].sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));
    // A store that cannot be read lists nothing rather than hiding the others.
    const lists = await Promise.all(sorted.map((store) => store.list().catch((): Listed[] => [])));
    return lists.flatMap((items, i) =>
      items.map(({ id, ...item }) => ({ key: `${sorted[i]!.kind}:${id}`, kind: sorted[i]!.kind, ...item })),
    );
  };
  return {
    list,
    async revoke(key) {
      const found = (await list()).find((item) => item.key === key);
      if (!found) return undefined;
      const store = byKind.get(found.kind)!;
      await store.forget(key.slice(found.kind.length + 1));
      return found;
    },
    async remember(key, decision, scope, label, binding) {
      const { store, id } = split(key);
      if (scope !== store.scope)
        throw new Error(`${key}: ${store.kind} answers hold for the ${store.scope}, not ${scope}`);
      await store.write(id, decision, label, binding);
    },
    async lookup(key, binding) {
      const { store, id } = split(key);
      return store.read(id, binding);
    },
  };
}
