/**
 * `X-Validation-Warnings`: a compact JSON array of `{code, path}`, cut at 4 KB with a last entry
 * `{code: "truncated", count}` naming how many were left out (DESIGN.md).
 */
const MAX_BYTES = 4096;

export function warningsHeader(warnings: ReadonlyArray<{ code: string; path: string }>): string {
  const entries: string[] = [];
  let size = 2; // the brackets
  for (let i = 0; i < warnings.length; i++) {
    const w = warnings[i]!;
    const entry = JSON.stringify({ code: w.code, path: w.path });
    const tail = JSON.stringify({ code: 'truncated', count: warnings.length - i });
    // Keep room for the truncation marker so the header never exceeds the limit.
    if (size + entry.length + 1 + tail.length + 1 > MAX_BYTES) {
      entries.push(tail);
      break;
    }
    entries.push(entry);
    size += entry.length + 1;
  }
  // Header values must be ASCII: escape anything else as \uXXXX (still valid JSON).
  return `[${entries.join(',')}]`.replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
