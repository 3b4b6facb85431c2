/**
 * String.prototype.trim's whitespace (WhiteSpace and LineTerminator), so text trimmed in place, by index,
 * is cut exactly where `.trim()` would cut it.
 */
export function isTrimSpace(c: number): boolean {
  if (c > 32 && c < 127) return false;
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
