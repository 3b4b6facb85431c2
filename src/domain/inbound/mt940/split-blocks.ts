/**
 * MT940/MT942 framing: strips transmission characters (SOH 0x01, ETX 0x03, DOS EOF 0x1A), undoes the
 * Swedish 7-bit national charset (ISO 646-SE prints "{" as "ä" and "}" as "å"), handles CRLF/LF and
 * SWIFT blocks `{1:..}{2:..}{4:` ... `-}`, and cuts the text into statement blocks, one per :20:.
 * A block keeps its raw fields; it is parsed on its own later, so one broken block cannot sink the file.
 */
export type Field = { tag: string; value: string; line: number };

export type RawBlock = {
  fields: Field[];
  /** Text before the first :20: that is not framing (a wrong header such as ":9401:"). */
  junk: string | null;
  /** The SWIFT text block around it was opened with "{4:" but never closed with "-}". */
  unclosedSwift: boolean;
  /** An end-of-message line ("-", "-}") followed its fields. */
  terminated: boolean;
  /** Another message started after it (so a missing end means it was cut off, not that the file ended). */
  followed: boolean;
};

export type SplitResult = { blocks: RawBlock[]; swedish7bit: boolean };

const TAG = /^:(\d\d[A-Z]?|NS):/;

export const KNOWN_TAGS: ReadonlySet<string> = new Set([
  '20',
  '21',
  '25',
  '25P',
  '28',
  '28C',
  '13',
  '13D',
  '34F',
  '60F',
  '60M',
  '61',
  '86',
  '62F',
  '62M',
  '64',
  '65',
  '65F',
  '90D',
  '90C',
  'NS',
]);

/** Framing-only lines: SWIFT basic/application headers, the Rabobank ":940:" line, trailers. */
function isFramingLine(line: string): boolean {
  if (line === '' || line === '-' || line === '-}' || line === '}') return true;
  if (/^:94[02]:\s*$/.test(line)) return true;
  if (/^\{[1-5]:/.test(line) || /^-?\}(?:\{5:.*)?$/.test(line)) return true;
  return false;
}

export function splitBlocks(input: string): SplitResult {
  let text = input;
  // Swedish 7-bit: only when the SWIFT braces appear exclusively in their national form.
  const swedish7bit = /(?:^|\n)ä[1-5]:/.test(text) && !/(?:^|\n)\{[1-5]:/.test(text);
  if (swedish7bit) text = text.replace(/(^|\n)ä(?=[1-5]:)/g, '$1{').replace(/(^|\n)-å/g, '$1-}');
  if (/[\x01\x03\x1a]/.test(text)) text = text.replace(/[\x01\x03\x1a]/g, '\n');
  const lines = text.split('\n');
  const blocks: RawBlock[] = [];
  let current: RawBlock | null = null;
  let pendingJunk: string[] = [];
  let swiftOpen = false;
  let swiftBlockHasStatement = false;
  let last: Field | null = null;

  const closeSwift = () => {
    swiftOpen = false;
    swiftBlockHasStatement = false;
  };

  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] as string;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    // SWIFT headers can share a line with the first tag: "{1:...}{2:...}{4::20:REF".
    const swift = /^((?:\{[1-3]:[^}]*\})*)\{4:(.*)$/.exec(line);
    if (swift) {
      if (swiftOpen && swiftBlockHasStatement && current) current.unclosedSwift = true;
      swiftOpen = true;
      swiftBlockHasStatement = false;
      last = null;
      line = swift[2] ?? '';
      if (line === '') continue;
    }
    const tag = TAG.exec(line);
    // A tag-like line inside a wrapped :86: or :61: that is no MT940 tag (":00:00/", ":26:37 Fo") is text.
    if (tag && !(last && (last.tag === '86' || last.tag === '61') && !KNOWN_TAGS.has(tag[1] as string))) {
      const name = tag[1] as string;
      const value = line.slice(tag[0].length);
      if (name === '20') {
        if (current) current.followed = true;
        current = {
          fields: [],
          junk: pendingJunk.length ? pendingJunk.join(' | ') : null,
          unclosedSwift: false,
          terminated: false,
          followed: false,
        };
        pendingJunk = [];
        blocks.push(current);
        if (swiftOpen) swiftBlockHasStatement = true;
      }
      if (!current) {
        pendingJunk.push(line);
        continue;
      }
      last = { tag: name, value, line: i + 1 };
      current.fields.push(last);
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === '-' || trimmed.startsWith('-}')) {
      // End of message: a continuation can no longer follow.
      last = null;
      if (current) current.terminated = true;
      if (trimmed.startsWith('-}')) closeSwift();
      continue;
    }
    if (last) {
      // Continuation of the previous field (":86:" wraps, the second line of ":61:").
      last.value += `\n${line}`;
      continue;
    }
    if (isFramingLine(trimmed)) {
      if (trimmed.startsWith('}') || trimmed.startsWith('-}')) closeSwift();
      continue;
    }
    if (trimmed.startsWith('{5:') || /^\{[1-5]:/.test(trimmed)) continue;
    // Bank header lines ("ABNANL2A", "940", "0000 01INGBNL2AXXXX00001") are skipped; tag-shaped junk
    // such as ":9401:" means the file is not what it claims and is reported on the next statement.
    if (trimmed.startsWith(':')) pendingJunk.push(trimmed);
  }
  if (swiftOpen && swiftBlockHasStatement && current) current.unclosedSwift = true;
  if (pendingJunk.length && blocks.length === 0) {
    return { blocks: [], swedish7bit };
  }
  return { blocks, swedish7bit };
}
