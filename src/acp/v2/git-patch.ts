// The text of a file change as a git patch, for ACP v2 diffs (`patch.format: "git_patch"`). One hunk
// from the first changed line to the last, with three lines of context: the common head and tail are
// cut off first, which for an edit_file replacement (one region) is the exact diff; several edits
// far apart show as one larger hunk, which is still a valid patch of the same change.

const CONTEXT = 3;

function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}

export function gitPatch(path: string, oldText: string | null | undefined, newText: string): string {
  const before = lines(oldText ?? "");
  const after = lines(newText);
  const added = oldText === null || oldText === undefined;
  const header = [
    `diff --git a${path} b${path}`,
    ...(added ? ["new file mode 100644"] : []),
    `--- ${added ? "/dev/null" : `a${path}`}`,
    `+++ ${newText === "" && !added ? "/dev/null" : `b${path}`}`,
  ];
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  if (head === before.length && head === after.length) return `${header.join("\n")}\n`;
  const start = Math.max(0, head - CONTEXT);
  const oldEnd = Math.min(before.length, before.length - tail + CONTEXT);
  const newEnd = Math.min(after.length, after.length - tail + CONTEXT);
  const body = [
    ...before.slice(start, head).map((l) => ` ${l}`),
    ...before.slice(head, before.length - tail).map((l) => `-${l}`),
    ...after.slice(head, after.length - tail).map((l) => `+${l}`),
    ...before.slice(before.length - tail, oldEnd).map((l) => ` ${l}`),
  ];
  const range = (from: number, count: number) => (count === 0 ? `${from},0` : `${from + 1},${count}`);
  const hunk = `@@ -${range(start, oldEnd - start)} +${range(start, newEnd - start)} @@`;
  return `${[...header, hunk, ...body].join("\n")}\n`;
}
