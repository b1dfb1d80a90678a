// `edit_file` semantics shared by every backend (reference/system-inventory.md §1). Messages carry no
// "Error: " prefix, like every backend `error`: the tool renders `Error: ${error}`, which yields the
// reference texts exactly.

export type StringReplacement = { ok: true; content: string; occurrences: number } | { ok: false; error: string };

export const EMPTY_OLD_STRING_MESSAGE = "oldString cannot be empty when file has content";

export function stringNotFoundMessage(oldString: string): string {
  return `String not found in file: '${oldString}'`;
}

export function multipleOccurrencesMessage(oldString: string, occurrences: number): string {
  return (
    `String '${oldString}' has multiple occurrences (appears ${occurrences} times) in file. ` +
    "Use replace_all=True to replace all instances, or provide a more specific string with surrounding context."
  );
}

export function fileNotFoundMessage(path: string): string {
  return `File '${path}' not found`;
}

/**
 * Literal replacement of `oldString` by `newString`. An empty `oldString` is only accepted on an
 * empty file, where it sets the content (occurrences 0). Without `replaceAll` the match must be unique.
 */
export function performStringReplacement(
  content: string,
  oldString: string,
  newString: string,
  replaceAll = false,
): StringReplacement {
  if (oldString === "") {
    if (content === "") return { ok: true, content: newString, occurrences: 0 };
    return { ok: false, error: EMPTY_OLD_STRING_MESSAGE };
  }
  const parts = content.split(oldString);
  const occurrences = parts.length - 1;
  if (occurrences === 0) return { ok: false, error: stringNotFoundMessage(oldString) };
  if (occurrences > 1 && !replaceAll) return { ok: false, error: multipleOccurrencesMessage(oldString, occurrences) };
  return { ok: true, content: parts.join(newString), occurrences };
}
