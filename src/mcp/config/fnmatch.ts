// Python `fnmatch.fnmatchcase` semantics, which users of dcode's `allowedTools` already know:
// `*` matches anything (including `/` and `.`), `?` one character, `[seq]` / `[!seq]` a set.
// Case-sensitive. An unclosed `[` is a literal bracket, as in Python.

const cache = new Map<string, RegExp>();

export function isGlob(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}

export function fnmatch(name: string, pattern: string): boolean {
  let regex = cache.get(pattern);
  if (!regex) {
    regex = new RegExp(`^${translate(pattern)}$`, "s");
    cache.set(pattern, regex);
  }
  return regex.test(name);
}

function translate(pattern: string): string {
  let out = "";
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i++]!;
    if (c === "*") {
      out += ".*";
    } else if (c === "?") {
      out += ".";
    } else if (c === "[") {
      const end = closingBracket(pattern, i);
      if (end === -1) {
        out += "\\[";
        continue;
      }
      let body = pattern.slice(i, end);
      i = end + 1;
      const negate = body.startsWith("!");
      if (negate) body = body.slice(1);
      // Inside a class only `\`, `]` and `^` need escaping; ranges like a-z stay ranges.
      const escaped = body.replace(/[\\\]^]/g, "\\$&");
      out += negate ? `[^${escaped}]` : `[${escaped}]`;
    } else {
      out += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
    }
  }
  return out;
}

/** Index of the `]` closing a set that starts at `start` (after `[`), or -1. */
function closingBracket(pattern: string, start: number): number {
  let j = start;
  if (pattern[j] === "!") j++;
  if (pattern[j] === "]") j++;
  return pattern.indexOf("]", j);
}
