// Output formats the model sees (reference/system-inventory.md §1). Line numbers are cat -n style:
// the number right-aligned in 6 columns, a TAB, then the line; over-long lines continue as N.1, N.2.

export const MAX_LINE_LENGTH = 5000;
export const LINE_NUMBER_WIDTH = 6;
/** Results of ls/glob/grep/read_file longer than this are cut (20,000 tokens × 4). */
export const MAX_TOOL_OUTPUT_CHARS = 80_000;

export function formatWithLineNumbers(lines: readonly string[], firstLineNumber: number): string {
  const rows: string[] = [];
  lines.forEach((line, index) => {
    const number = firstLineNumber + index;
    if (line.length <= MAX_LINE_LENGTH) {
      rows.push(`${String(number).padStart(LINE_NUMBER_WIDTH)}\t${line}`);
      return;
    }
    for (let chunk = 0; chunk * MAX_LINE_LENGTH < line.length; chunk++) {
      const marker = chunk === 0 ? String(number) : `${number}.${chunk}`;
      rows.push(
        `${marker.padStart(LINE_NUMBER_WIDTH)}\t${line.slice(chunk * MAX_LINE_LENGTH, (chunk + 1) * MAX_LINE_LENGTH)}`,
      );
    }
  });
  return rows.join("\n");
}

export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Cuts a list-like result to the output budget, keeping whole lines. */
export function truncateListOutput(lines: readonly string[], maxChars = MAX_TOOL_OUTPUT_CHARS): string {
  let used = 0;
  const kept: string[] = [];
  for (const line of lines) {
    if (used + line.length + 1 > maxChars) {
      kept.push("... [results truncated, try being more specific with your parameters]");
      break;
    }
    kept.push(line);
    used += line.length + 1;
  }
  return kept.join("\n");
}

export function readTruncationMessage(filePath: string): string {
  return `\n\n[Output was truncated due to size limits. The file is large: read it in smaller pieces with offset and limit, or search it with grep. For structured data you can also use execute, e.g. execute(command='jq . ${filePath}').]`;
}
