/**
 * MT940/MT942 delivered over FinTS (HBCI: the HKKAZ/HKKAN answers, and the online-banking exports built
 * from them) separate lines with "@@" instead of CR LF (FinTS 3.0 "Formals", the `@@` line end of SWIFT
 * fields carried in a binary data element). Such a text is read with its "@@" as line breaks.
 * Only the head is searched: a file either uses "@@" for every line or not at all.
 */
const HEAD = 4096;
const AT_TAG = /@@:(?:20|25|28C?|60[FM]|61|86|13D?|34F):/;

export function undoAtSeparators(text: string): string {
  const head = text.length > HEAD ? text.slice(0, HEAD) : text;
  if (!head.includes('@@') || !AT_TAG.test(head)) return text;
  return text.replaceAll('@@', '\r\n');
}
