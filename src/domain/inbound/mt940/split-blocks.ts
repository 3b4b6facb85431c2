/**
 * MT940/MT942 framing: strips transmission characters (SOH 0x01, ETX 0x03, DOS EOF 0x1A), undoes the
 * Swedish 7-bit national charset (ISO 646-SE prints "{" as "ä" and "}" as "å"), handles CRLF/LF and
 * SWIFT blocks `{1:..}{2:..}{4:` ... `-}`, and cuts the text into statement blocks, one per :20:.
 * A block keeps its raw fields; it is parsed on its own later, so one broken block cannot sink the file.
 * The scan works on offsets (no array of lines): a field's value is sliced once, wrapped lines and all.
 */
/**
 * A block's fields as parallel arrays of tags and source ranges (value = text.slice(start, end), wrapped
 * lines and all): a 100,000-entry statement then holds numbers until it is mapped, not 200,000 field
 * objects and value strings that would all outlive the young generation. The arrays are the splitter's
 * and are refilled for the next block once `onBlock` returns: only their first `count` entries belong to
 * this block.
 */
export type RawBlock = {
  text: string;
  tags: string[];
  starts: number[];
  ends: number[];
  lines: number[];
  count: number;
  /**
   * The line feeds inside fields, in order: those of field k are breaks[breakFrom[k]] up to (not
   * including) breaks[breakTo[k]]. The splitter finds them anyway; the mapper need not search again.
   */
  breaks: number[];
  breakFrom: number[];
  breakTo: number[];
  /** The first :25: field, or -1. */
  accountField: number;
  /** A :62F: or :62M: was among the fields. */
  hasClosing: boolean;
  /** Tag-shaped text before the first :20: (a wrong header such as ":9401:"). */
  junk: string | null;
  /** The SWIFT text block around it was opened with "{4:" but never closed with "-}". */
  unclosedSwift: boolean;
  /** An end-of-message line ("-", "-}") followed its fields. */
  terminated: boolean;
  /** Another message started after it (so a missing end means it was cut off, not that the file ended). */
  followed: boolean;
};

export type SplitResult = { blockCount: number; swedish7bit: boolean };

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

const COLON = 58;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

// Two-character tags as shared constants ("61", "86", "NS"), so no string is cut per field and Set lookups hit a cached hash.
const TWO_DIGIT_TAGS: string[] = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
// The tags the mapper compares with literals are the literals themselves (internalised strings: the
// comparison is one pointer comparison).
for (const tag of ['20', '21', '25', '28', '13', '61', '86', '64', '65']) TWO_DIGIT_TAGS[Number(tag)] = tag;

/** The length of the tag tagAt last found, colons included. */
let tagLen = 0;

/** The tag at `pos` (":20:", ":28C:", ":NS:"), or null; `pos` points at the first colon. */
function tagAt(text: string, pos: number, end: number): string | null {
  if (pos + 3 >= end) return null;
  const a = text.charCodeAt(pos + 1);
  const b = text.charCodeAt(pos + 2);
  if (isDigit(a) && isDigit(b)) {
    const c = text.charCodeAt(pos + 3);
    if (c === COLON) {
      tagLen = 4;
      return TWO_DIGIT_TAGS[(a - 48) * 10 + b - 48] as string;
    }
    if (c >= 65 && c <= 90 && pos + 4 < end && text.charCodeAt(pos + 4) === COLON) {
      tagLen = 5;
      return text.slice(pos + 1, pos + 4);
    }
    return null;
  }
  if (a === 78 && b === 83 && text.charCodeAt(pos + 3) === COLON) {
    tagLen = 4;
    return 'NS';
  }
  return null;
}

/**
 * Whether a lone "-" line inside a :86: is a wrapped line of its text rather than the end of the message
 * (ING wraps "/MARF/MND-EV01" at 65 columns, leaving "-" alone on a line): text follows it, and the next
 * tag is one that continues a message (":61:", ":62F:" ...), which no message may open with. `from` is the
 * start of the line after the "-". Looks at most a few lines ahead, only on "-" lines inside a :86:.
 */
function dashWrapped(text: string, from: number, n: number): boolean {
  let pos = from;
  for (let lines = 0; lines < 8 && pos < n; lines++) {
    let lineEnd = text.indexOf('\n', pos);
    if (lineEnd < 0) lineEnd = n;
    const c = text.charCodeAt(pos);
    const empty = lineEnd === pos || (lineEnd === pos + 1 && c === 13);
    if (lines === 0 && (empty || c === 123 || c === 125 || c === 45 || c === COLON)) return false;
    if (empty || c === 123 /* { */ || c === 45 /* - */) return false;
    if (c === COLON) {
      const tag = tagAt(text, pos, lineEnd);
      if (tag !== null && KNOWN_TAGS.has(tag)) return tag !== '20';
    }
    pos = lineEnd + 1;
  }
  return false;
}

/** Framing-only lines: SWIFT headers and trailers, the Rabobank ":940:" line. */
function isFramingLine(line: string): boolean {
  if (line === '' || line === '-' || line === '}') return true;
  if (/^:94[02]:\s*$/.test(line)) return true;
  return /^\{[1-5]:/.test(line) || /^-?\}(?:\{5:.*)?$/.test(line);
}

function normalise(input: string): { text: string; swedish7bit: boolean } {
  let text = input;
  // Swedish 7-bit: only when the SWIFT braces appear exclusively in their national form.
  const swedish7bit = text.includes('ä') && /(?:^|\n)ä[1-5]:/.test(text) && !/(?:^|\n)\{[1-5]:/.test(text);
  if (swedish7bit) text = text.replace(/(^|\n)ä(?=[1-5]:)/g, '$1{').replace(/(^|\n)-å/g, '$1-}');
  if (/[\x01\x03\x1a]/.test(text)) text = text.replace(/[\x01\x03\x1a]/g, '\n');
  return { text, swedish7bit };
}

/**
 * The splitter's state over one file: the block being filled, the field being read, and one set of field
 * arrays for every block of the file (each block is mapped before the next one starts). One class with
 * every field set here: one shape, and no closures allocated per file.
 */
class Splitter {
  readonly text: string;
  readonly onBlock: (block: RawBlock) => void;
  blockCount = 0;
  current: RawBlock | null = null;
  pendingJunk: string[] = [];
  swiftOpen = false;
  swiftBlockHasStatement = false;
  // The field being read: its tag, where its value starts and where its last line ends.
  fieldTag: string | null = null;
  fieldStart = 0;
  fieldEnd = 0;
  fieldLine = 0;
  lineNo = 0;
  readonly tags: string[] = [];
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  readonly lines: number[] = [];
  readonly breaks: number[] = [];
  readonly breakFrom: number[] = [];
  readonly breakTo: number[] = [];
  breakCount = 0;
  fieldBreakFrom = 0;

  constructor(text: string, onBlock: (block: RawBlock) => void) {
    this.text = text;
    this.onBlock = onBlock;
  }

  /** One line: [lineStart, end) without its line break, the next line starting at `next`. */
  line(lineStart: number, end: number, next: number): void {
    const text = this.text;
    let start = lineStart;
    const first = text.charCodeAt(start);
    if (first === 123 /* { */) {
      start = this.swiftHeader(start, end);
      if (start < 0) return;
    }
    const c0 = start === lineStart ? first : text.charCodeAt(start);
    if (c0 === COLON && this.tagLine(start, end)) return;
    if (c0 === 45 /* - */ && this.isEndOfMessage(start, end, next)) {
      this.endOfMessage(start);
      return;
    }
    if (this.fieldTag !== null) {
      // Continuation of the current field (":86:" wraps, the second line of ":61:"), after a line feed.
      this.breaks[this.breakCount++] = lineStart - 1;
      this.fieldEnd = end;
      return;
    }
    this.otherLine(start, end);
  }

  /**
   * SWIFT headers, possibly sharing the line with the first tag: "{1:...}{2:...}{4::20:REF". Returns where
   * the line's content starts after them, or -1 when nothing of the line is left to read.
   */
  swiftHeader(start: number, end: number): number {
    const swift = /^((?:\{[1-3]:[^}]*\})*)\{4:/.exec(this.text.slice(start, end));
    if (!swift) return this.fieldTag === null ? -1 : start; // {5:...} trailers and other header blocks
    this.flush();
    if (this.swiftOpen && this.swiftBlockHasStatement && this.current) this.current.unclosedSwift = true;
    this.swiftOpen = true;
    this.swiftBlockHasStatement = false;
    const from = start + swift[0].length;
    return from >= end ? -1 : from;
  }

  /** A line starting with ":": a new field when it is a tag (true), else text of the field being read. */
  tagLine(start: number, end: number): boolean {
    const tag = tagAt(this.text, start, end);
    if (tag === null) return false;
    // A tag-like line inside a wrapped :86: or :61: that is no MT940 tag (":00:00/", ":26:37 Fo") is text.
    const fieldTag = this.fieldTag;
    if ((fieldTag === '86' || fieldTag === '61') && tag !== '61' && tag !== '86' && !KNOWN_TAGS.has(tag)) return false;
    this.startField(tag, start + tagLen, end);
    return true;
  }

  /** "-", "-}" or "- " ends the message, except a lone "-" that is a wrapped line of a :86:. */
  isEndOfMessage(start: number, end: number, next: number): boolean {
    const text = this.text;
    return (
      (end - start === 1 || text.charCodeAt(start + 1) === 125 || text.slice(start, end).trim() === '-') &&
      !(this.fieldTag === '86' && end - start === 1 && dashWrapped(text, next, text.length))
    );
  }

  /** End of message: a continuation can no longer follow. */
  endOfMessage(start: number): void {
    this.flush();
    if (this.current) this.current.terminated = true;
    if (this.text.charCodeAt(start + 1) === 125) {
      this.swiftOpen = false;
      this.swiftBlockHasStatement = false;
    }
  }

  /** A line outside any field: framing, a bank's header line, or tag-shaped junk. */
  otherLine(start: number, end: number): void {
    const trimmed = this.text.slice(start, end).trim();
    if (isFramingLine(trimmed)) {
      if (trimmed.startsWith('}') || trimmed.startsWith('-}')) {
        this.swiftOpen = false;
        this.swiftBlockHasStatement = false;
      }
      return;
    }
    // Bank header lines ("ABNANL2A", "940", "0000 01INGBNL2AXXXX00001") are skipped; tag-shaped junk
    // such as ":9401:" means the file is not what it claims and is reported on the next statement.
    if (trimmed.startsWith(':')) this.pendingJunk.push(trimmed);
  }

  /** The field being read into the block's arrays. */
  flush(): void {
    const current = this.current;
    const fieldTag = this.fieldTag;
    if (fieldTag !== null && current) {
      const i = current.count++;
      this.tags[i] = fieldTag;
      this.starts[i] = this.fieldStart;
      this.ends[i] = this.fieldEnd;
      this.lines[i] = this.fieldLine;
      this.breakFrom[i] = this.fieldBreakFrom;
      this.breakTo[i] = this.breakCount;
      if (fieldTag === '25') {
        if (current.accountField < 0) current.accountField = i;
      } else if (fieldTag === '62F' || fieldTag === '62M') current.hasClosing = true;
    }
    this.fieldTag = null;
  }

  startField(tag: string, start: number, end: number): void {
    this.flush();
    if (tag === '20') this.openBlock();
    if (!this.current) {
      this.pendingJunk.push(this.text.slice(start - tag.length - 2, end));
      return;
    }
    this.fieldTag = tag;
    this.fieldBreakFrom = this.breakCount;
    this.fieldStart = start;
    this.fieldEnd = end;
    this.fieldLine = this.lineNo;
  }

  /** A :20: hands the block before it over (nothing changes it once the next one has started) and opens one. */
  openBlock(): void {
    const onBlock = this.onBlock;
    if (this.current) {
      this.current.followed = true;
      onBlock(this.current);
    }
    const pendingJunk = this.pendingJunk;
    this.current = {
      text: this.text,
      tags: this.tags,
      starts: this.starts,
      ends: this.ends,
      lines: this.lines,
      count: 0,
      breaks: this.breaks,
      breakFrom: this.breakFrom,
      breakTo: this.breakTo,
      accountField: -1,
      hasClosing: false,
      junk: pendingJunk.length ? pendingJunk.join(' | ') : null,
      unclosedSwift: false,
      terminated: false,
      followed: false,
    };
    this.pendingJunk = [];
    this.breakCount = 0;
    this.blockCount++;
    if (this.swiftOpen) this.swiftBlockHasStatement = true;
  }

  /** The end of the file: the last block is handed over. */
  finish(): void {
    this.flush();
    const current = this.current;
    if (this.swiftOpen && this.swiftBlockHasStatement && current) current.unclosedSwift = true;
    const onBlock = this.onBlock;
    if (current) onBlock(current);
  }
}

/**
 * Cuts `input` into blocks and hands each to `onBlock` as soon as it is final (when the next :20: starts,
 * or at the end), so a large file's fields are never all held at once.
 */
export function splitBlocks(input: string, onBlock: (block: RawBlock) => void): SplitResult {
  const { text, swedish7bit } = normalise(input);
  const splitter = new Splitter(text, onBlock);
  const n = text.length;
  let pos = 0;
  while (pos < n) {
    let lineEnd = text.indexOf('\n', pos);
    if (lineEnd < 0) lineEnd = n;
    const end = lineEnd > pos && text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
    splitter.lineNo++;
    splitter.line(pos, end, lineEnd + 1);
    pos = lineEnd + 1;
  }
  splitter.finish();
  return { blockCount: splitter.blockCount, swedish7bit };
}
