// Every decision deep-acp remembers for a project, of every kind, as one list with one key shape
// and one way to forget: tool-call "always" answers, project MCP servers (approved or never), this
// session's MCP "allow for this session", project hooks, skill links, dev containers. Each kind keeps
// its file (users lose nothing they decided before); this is the one view and the one revoke path
// `/permissions` uses.

export type RememberedKind = "tool" | "mcp-server" | "mcp-session" | "hooks" | "skill-link" | "devcontainer";

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

/** One kind's store: it lists its decisions, each with its own id (the key without the kind), and forgets one. */
export type RememberedStore = {
  readonly kind: RememberedKind;
  list(): Promise<Listed[]>;
  forget(id: string): Promise<boolean>;
};

const ORDER: RememberedKind[] = ["tool", "mcp-server", "mcp-session", "hooks", "skill-link", "devcontainer"];

export type Remembered = {
  /** Every kind, in a stable order (by kind, then as each store lists them). */
  list(): Promise<RememberedDecision[]>;
  /** Forgets the decision with this key; undefined when there is none. */
  revoke(key: string): Promise<RememberedDecision | undefined>;
};

export function createRemembered(stores: readonly RememberedStore[]): Remembered {
  const byKind = new Map(stores.map((store) => [store.kind, store]));
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
  };
}
