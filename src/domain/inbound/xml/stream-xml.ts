import { Buffer } from 'node:buffer';
import { knownNameId, registeredNames, Tree } from './tree.ts';

/**
 * A hand-written, non-validating XML pull parser over a string, built for bank files:
 * - safe: a DOCTYPE is refused outright (no DTD, so no external or custom entities and no expansion
 *   bombs); only the five predefined entities and character references are decoded;
 * - bounded: element depth is limited and every step moves forward, so work is linear in the input;
 * - streaming: the sink decides per element whether to build its subtree (`open` returns true) as a
 *   flat, reused `Tree`; everything else is only tracked on a name stack, so a 100,000-entry camt.053
 *   never becomes a DOM and a captured entry costs no objects.
 * Text of elements that have children (mixed content, e.g. a stray "-" pasted from a browser view)
 * is counted in `stats` and otherwise ignored; text of leaf elements is decoded and handed over untrimmed.
 */
export type XmlSink = {
  /** An element outside any captured subtree opened; return true to capture its subtree. */
  open(name: string, attrs: string, depth: number): boolean;
  /**
   * A captured subtree closed; `root` is its index in `tree`. The tree is refilled by the next
   * capture, so whatever must outlive the call is read (or copied) now.
   */
  captured(tree: Tree, root: number, depth: number): void;
  /** A non-captured element closed. */
  close(name: string, depth: number): void;
};

export type XmlError = { message: string; offset: number };

export const DEFAULT_MAX_DEPTH = 64;

const LT = 60; // <
const GT = 62; // >
const SLASH = 47;
const BANG = 33;
const QUESTION = 63;
const DQ = 34;
const SQ = 39;

function isNameEnd(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9 || c === GT || c === SLASH;
}

function codeUnits(s: string, from: number, to: number): number[] {
  const codes: number[] = [];
  for (let k = from; k < to; k++) codes.push(s.charCodeAt(k));
  return codes;
}

/** A new string of these code units (a slice could keep the whole input alive). */
function stringOf(codes: number[]): string {
  let s = '';
  for (let k = 0; k < codes.length; k += 1024) s += String.fromCharCode(...codes.slice(k, k + 1024));
  return s;
}

/** Whether the name with these code units is written at `at`. */
function sameName(xml: string, at: number, codes: number[]): boolean {
  for (let k = 0; k < codes.length; k++) if (xml.charCodeAt(at + k) !== codes[k]) return false;
  return true;
}

/**
 * The tokenizer reads tags through a copy of the input as UTF-16 code units: a typed-array read costs
 * about half of a `charCodeAt` (which dispatches on the string's representation every time). The copy
 * covers [base, end) of the input, is refilled (one native copy) whenever a tag comes within MARGIN of
 * its end, and holds a 0 right after its last unit, so scans stop there without a bounds test.
 */
const WINDOW = 1 << 16;
const MARGIN = 1 << 10;
/** Four spaces as UTF-16LE read as one float64 (a normal number: equal only to the same bits). */
const FOUR_SPACES = new Float64Array(new Uint16Array([32, 32, 32, 32]).buffer)[0] as number;
/** Leaf text up to this long is scanned for its `<`; beyond, one indexOf (a vectorised search) is cheaper. */
const TEXT_SCAN = 32;

class Window {
  units: Uint16Array;
  /** The same units read four at a time (indentation is mostly runs of spaces). */
  quads: DataView;
  private bytes: Buffer;
  base = 0;
  end = 0;

  constructor(size: number) {
    // Room for the closing 0 and for a four-unit read starting at it.
    this.units = new Uint16Array(size + 4);
    this.quads = new DataView(this.units.buffer);
    this.bytes = Buffer.from(this.units.buffer, 0, size * 2);
  }

  /** Copies the input from `from` (up to the window's size, at least MARGIN units when the input has them). */
  fill(xml: string, from: number): void {
    const end = Math.min(xml.length, from + this.units.length - 4);
    this.bytes.write(xml.slice(from, end), 0, 'utf16le');
    this.units[end - from] = 0;
    this.base = from;
    this.end = end;
  }
}

/**
 * The first `<` of the window at or after `from` and before `stop` (at most the window's end), read two
 * units at a time, or -1 (the search goes on from `stop`). The pair read at `stop - 1` may take in the
 * unit at `stop`, which is a real unit or the window's closing 0, never a `<` beyond the window.
 */
function findLt(quads: DataView, units: Uint16Array, base: number, from: number, stop: number): number {
  let q = from;
  while (q < stop) {
    // A pair holds a `<` when one of its 16-bit halves is 0 after the xor: the classic zero-lane test.
    const x = quads.getInt32((q - base) * 2, true) ^ 0x003c003c;
    if (((x - 0x00010001) & ~x & 0x80008000) !== 0) return units[q - base] === LT ? q : q + 1;
    q += 2;
  }
  return -1;
}

/** Whether the name with these code units is at `at` of the window (which must hold the whole name). */
function sameNameIn(units: Uint16Array, at: number, codes: number[]): boolean {
  for (let k = 0; k < codes.length; k++) if (units[at + k] !== codes[k]) return false;
  return true;
}

/**
 * The first position at or after `from` that is not a space, tab or line break, read in the window (its
 * closing 0 stops the skip): a line break and an indentation of spaces, the usual blank between two
 * tags, is skipped four units at a time.
 */
function skipBlank(units: Uint16Array, quads: DataView, base: number, from: number): number {
  let p = from;
  let c = units[p - base] as number;
  if (c === 13) c = units[++p - base] as number;
  if (c === 10) {
    p++;
    while (quads.getFloat64((p - base) * 2, true) === FOUR_SPACES) p += 4;
    c = units[p - base] as number;
  }
  while (c <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) c = units[++p - base] as number;
  return p;
}

/**
 * The `<` of the end tag `</name>` (`codes`) that closes a leaf whose text starts at `t`, or -1 when it
 * is not there as read in place: the text is empty or starts with a character other than a blank, and
 * it and its end tag lie in the window. The text is [t, result).
 */
function leafEnd(
  units: Uint16Array,
  quads: DataView,
  base: number,
  end: number,
  xml: string,
  t: number,
  codes: number[],
): number {
  if (t >= end) return -1;
  const c = units[t - base] as number;
  let q = t;
  if (c !== LT) {
    if (c <= 32) return -1;
    // Short texts (dates, codes, amounts) are scanned in the window, longer ones searched.
    const stop = Math.min(t + TEXT_SCAN, end);
    q = findLt(quads, units, base, t + 1, stop);
    if (q < 0) q = xml.indexOf('<', stop);
    if (q < 0) return -1;
  }
  const after = q + 2 + codes.length; // the end tag's `>`
  if (after >= end || units[q + 1 - base] !== SLASH || units[after - base] !== GT) return -1;
  return sameNameIn(units, q + 2 - base, codes) ? q : -1;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** Indentation inside text gathered around comments or CDATA (rare); the main loop skips it in place. */
const BLANK_RUN = /[ \n\r\t]*/y;

function isBlankRun(s: string, from: number, to: number): boolean {
  BLANK_RUN.lastIndex = from;
  BLANK_RUN.test(s);
  return BLANK_RUN.lastIndex >= to;
}

function isWhitespaceOnly(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    // 0x1A: DOS end-of-file marker some bank systems append to the file.
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9 && c !== 0x1a && c !== 0xfeff) return false;
  }
  return true;
}

const ENTITY = /&(?:(lt|gt|amp|quot|apos)|#(\d{1,7})|#x([0-9a-fA-F]{1,6}));/y;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function isXmlChar(cp: number): boolean {
  return (
    cp === 9 ||
    cp === 10 ||
    cp === 13 ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** Decodes the predefined entities and character references; anything else is an error (returns undefined). */
function decodeEntities(raw: string): string | undefined {
  const amp = raw.indexOf('&');
  if (amp < 0) return raw;
  let out = raw.slice(0, amp);
  let i = amp;
  while (i < raw.length) {
    const next = raw.indexOf('&', i);
    if (next < 0) {
      out += raw.slice(i);
      break;
    }
    out += raw.slice(i, next);
    ENTITY.lastIndex = next;
    const m = ENTITY.exec(raw);
    if (!m) return undefined;
    if (m[1]) out += NAMED[m[1]];
    else {
      const cp = m[2] ? Number.parseInt(m[2], 10) : Number.parseInt(m[3] ?? '', 16);
      if (!isXmlChar(cp)) return undefined;
      out += String.fromCodePoint(cp);
    }
    i = ENTITY.lastIndex;
  }
  return out;
}

/**
 * Scans attributes from `from` to the closing `>`, honouring quotes; returns the index of `>` or -1.
 * Reads the window while it lasts, then the string.
 */
function findTagEnd(xml: string, from: number, units: Uint16Array, base: number, end: number): number {
  let quote = 0;
  let i = from;
  for (; i < end; i++) {
    const c = units[i - base] as number;
    if (quote !== 0) {
      if (c === quote) quote = 0;
      else if (c === LT) return -1;
    } else if (c === GT) return i;
    else if (c === DQ || c === SQ) quote = c;
    else if (c === LT) return -1;
  }
  for (; i < xml.length; i++) {
    const c = xml.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
      else if (c === LT) return -1;
    } else if (c === GT) return i;
    else if (c === DQ || c === SQ) quote = c;
    else if (c === LT) return -1;
  }
  return -1;
}

/**
 * Element names repeat millions of times in a large statement. Each distinct name is interned once
 * (looked up by a hash of its characters, so no string is allocated per tag) and remembers which
 * element followed it last time, after its start and after its end tag: in a regular bank file that
 * guess is almost always right, and a right guess costs one in-place comparison instead of a scan.
 */
type NameInfo = {
  qname: string;
  local: string;
  /** The registered id of the local name (0: no mapper asks for it). */
  id: number;
  /** Number of the name in its table (1 up; 0 when it was not kept): keys the second guess. */
  ix: number;
  /** The qualified name's code units: compared one by one (in the window), which beats startsWith on names this short. */
  codes: number[];
  afterOpen: NameInfo | null;
  afterClose: NameInfo | null;
  /** The last attribute text as written and trimmed, already checked for entities. */
  rawAttrs: string;
  attrs: string;
};

/** Names the table keeps (a file with more distinct names has the rest looked up each time). */
const MAX_NAMES = 4096;
/** Longer names are not kept from one parse to the next. */
const MAX_KEPT_NAME = 256;
/** Slots of the second guesses, keyed by (element, parent); a collision only costs a miss. */
const GUESS_SLOTS = 1024;
/** A tree with room for more nodes is not kept either. */
const MAX_KEPT_NODES = 4096;

/**
 * Kept from one parse to the next (element names and the guesses repeat across files of one bank). Its
 * strings are copies, never slices of an input; the attribute texts, which are slices, are dropped by
 * `release` when a parse ends.
 */
class NameTable {
  private readonly byHash = new Map<number, NameInfo[]>();
  private readonly list: NameInfo[] = [];
  private readonly guessKeys = new Int32Array(GUESS_SLOTS);
  private readonly guesses: (NameInfo | null)[] = new Array<NameInfo | null>(GUESS_SLOTS).fill(null);
  /** How many names the tree registry had when the ids were read (a registration after that voids them). */
  readonly registered = registeredNames();

  get size(): number {
    return this.list.length;
  }

  get(xml: string, start: number, end: number, hash: number, colon: number): NameInfo {
    const bucket = this.byHash.get(hash);
    const len = end - start;
    if (bucket) {
      for (let i = 0; i < bucket.length; i++) {
        const info = bucket[i] as NameInfo;
        if (info.qname.length === len && xml.startsWith(info.qname, start)) return info;
      }
    }
    const codes = codeUnits(xml, start, end);
    const qname = stringOf(codes);
    const info: NameInfo = {
      qname,
      local: colon < 0 ? qname : qname.slice(colon - start + 1),
      id: 0,
      ix: 0,
      codes,
      afterOpen: null,
      afterClose: null,
      rawAttrs: '',
      attrs: '',
    };
    info.id = knownNameId(info.local);
    // Bounded: a hostile file with endless distinct (or endless) names just stops being interned.
    if (this.list.length < MAX_NAMES && len <= MAX_KEPT_NAME) {
      info.ix = this.list.push(info);
      if (bucket) bucket.push(info);
      else this.byHash.set(hash, [info]);
    }
    return info;
  }

  /** What followed the end tag of `prev` inside `parent` last time (the second guess), or null. */
  afterClose(prev: NameInfo, parent: NameInfo): NameInfo | null {
    const slot = (prev.ix * 61 + parent.ix) & (GUESS_SLOTS - 1);
    return this.guessKeys[slot] === prev.ix * 8192 + parent.ix + 1 ? (this.guesses[slot] as NameInfo | null) : null;
  }

  setAfterClose(prev: NameInfo, parent: NameInfo, next: NameInfo): void {
    const slot = (prev.ix * 61 + parent.ix) & (GUESS_SLOTS - 1);
    this.guessKeys[slot] = prev.ix * 8192 + parent.ix + 1;
    this.guesses[slot] = next;
  }

  /** Drops the attribute texts, which may be slices of the input and would keep it alive. */
  release(): void {
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const info = list[i] as NameInfo;
      info.rawAttrs = '';
      info.attrs = '';
    }
  }
}

/**
 * What a parse uses besides its own state, kept from one parse to the next: allocating the window, the
 * tree's arrays and the names again cost about a tenth of a 100-entry parse. Parses do not nest; a
 * nested one (a sink that parses) gets a scratch of its own.
 */
class Scratch {
  readonly window = new Window(WINDOW);
  tree = new Tree();
  names = new NameTable();
  inUse = false;

  release(): void {
    // A tree grown by an unusually large capture is not kept.
    if (this.tree.capacity > MAX_KEPT_NODES) this.tree = new Tree();
    else this.tree.release();
    this.names.release();
    this.inUse = false;
  }
}

let shared: Scratch | null = null;

function acquireScratch(): Scratch {
  let scratch = shared;
  if (scratch === null || scratch.inUse) {
    scratch = new Scratch();
    shared ??= scratch;
  }
  // Names registered since the table read its ids, or a table filled by an unusual file: start afresh.
  if (scratch.names.registered !== registeredNames() || scratch.names.size >= MAX_NAMES / 4) {
    scratch.names = new NameTable();
  }
  scratch.inUse = true;
  return scratch;
}

/** Counts of tolerated irregularities, for the caller to judge. */
export type XmlStats = { mixedContent: number };

const BAD_REFERENCE = 'undefined entity or bad character reference';

/**
 * The state of one parse, one phase per method (next tag, markup declaration, end tag, start tag and
 * its parts). One class with every field set in the constructor keeps the object's shape fixed, so the
 * hot methods stay monomorphic and are inlined into the loop; methods read the fields they use into
 * locals once, as the single function this replaced did.
 */
class XmlParse {
  readonly open: NameInfo[]; // open elements, for end-tag matching
  openCount = 0;
  prev: NameInfo | null = null; // the last tag seen, and whether it was a start tag
  prevWasOpen = false;
  readonly nodes: number[]; // the tree index of the element open at each depth inside a capture
  // The next '&' at or after the current text, so a leaf's text is checked for entities without a scan
  // per leaf (-1: none left). Moves forward only, so the searches add up to one pass.
  nextAmp: number;
  captureDepth = -1; // depth of the captured subtree's root, -1 when not capturing
  rootSeen = false;
  rootClosed = false;
  /** Why the parse stopped (set with the -1 a step returns). */
  error: XmlError | undefined = undefined;
  pendingText = ''; // leaf text interrupted by a comment or CDATA
  leafHasChild = false;
  /** Set by `nextTag`: only spaces, tabs and line breaks between `pos` and the tag found. */
  blank = false;
  /** Set by `runAttrsEnd`: the attribute text of the start tag it read. */
  runAttrs = '';
  readonly n: number;
  readonly table: NameTable;
  readonly tree: Tree;
  readonly win: Window;
  readonly w: Uint16Array;
  readonly q4: DataView;
  wBase = 0; // the window holds xml[wBase, wEnd) and a 0 at wEnd
  wEnd: number;

  readonly xml: string;
  readonly sink: XmlSink;
  readonly maxDepth: number;
  readonly stats: XmlStats;

  constructor(xml: string, sink: XmlSink, maxDepth: number, stats: XmlStats, scratch: Scratch) {
    this.xml = xml;
    this.sink = sink;
    this.maxDepth = maxDepth;
    // Sized up front: a store past the end of either (the first element deeper than any before) made V8
    // drop the run's optimised code. Slots at and above openCount are never read.
    const depths = Math.min(maxDepth, DEFAULT_MAX_DEPTH) + 1;
    this.open = new Array<NameInfo | null>(depths).fill(null) as NameInfo[];
    this.nodes = new Array<number>(depths).fill(0);
    this.stats = stats;
    this.nextAmp = xml.indexOf('&');
    this.n = xml.length;
    this.table = scratch.names;
    this.tree = scratch.tree;
    this.win = scratch.window;
    this.win.fill(xml, 0);
    this.w = this.win.units;
    this.q4 = this.win.quads;
    this.wEnd = this.win.end;
  }

  run(): XmlError | undefined {
    const xml = this.xml;
    const n = this.n;
    let pos = 0;
    while (pos < n) {
      if (this.captureDepth >= 0) pos = this.captureRun(pos);
      const lt = this.nextTag(pos);
      const blank = this.blank;
      if (lt < 0) {
        if (this.openCount > 0) return this.unexpectedEnd();
        if (!isWhitespaceOnly(xml, pos, n)) return { message: 'text after the root element', offset: pos };
        break;
      }
      if (this.openCount === 0 && !blank && !isWhitespaceOnly(xml, pos, lt)) {
        return { message: 'text outside the root element', offset: pos };
      }
      // From here on the whole tag is read from the window, which holds at least MARGIN units past `lt`
      // (or the rest of the input); longer names and attribute lists fall back to the string.
      this.refill(lt);
      const c1 = lt + 1 < this.wEnd ? (this.w[lt + 1 - this.wBase] as number) : xml.charCodeAt(lt + 1);
      // Each step returns where the next text starts, or -1 with the reason in `error`.
      pos =
        c1 === BANG
          ? this.declaration(pos, lt)
          : c1 === QUESTION
            ? this.instruction(pos, lt)
            : c1 === SLASH
              ? this.endTag(pos, lt, blank)
              : this.captureDepth >= 0
                ? this.startInCapture(lt, blank)
                : this.startTag(lt, blank);
      if (pos < 0) return this.error;
    }
    return undefined;
  }

  /** Records why the parse stops; returns -1 for the step to return. */
  fail(message: string, offset: number): number {
    this.error = { message, offset };
    return -1;
  }

  finish(): XmlError | undefined {
    if (this.openCount > 0) return this.unexpectedEnd();
    if (!this.rootSeen) return { message: 'no root element', offset: 0 };
    return undefined;
  }

  unexpectedEnd(): XmlError {
    return { message: `unexpected end of document inside <${this.open[this.openCount - 1]?.qname}>`, offset: this.n };
  }

  /** Moves the window to start at `from` when fewer than MARGIN units of it are left there. */
  refill(from: number): void {
    if (from + MARGIN > this.wEnd && this.wEnd < this.n) {
      this.win.fill(this.xml, from);
      this.wBase = from;
      this.wEnd = this.win.end;
    }
  }

  /**
   * The next `<` from `pos` (-1: none), setting `blank`. Indentation is skipped in place: most tags then
   * need no search, and no second pass proves the text before them blank. The window's closing 0 (or a
   * real one) ends the skip.
   */
  nextTag(pos: number): number {
    this.refill(pos);
    const w = this.w;
    const wBase = this.wBase;
    const wEnd = this.wEnd;
    let p = skipBlank(w, this.q4, wBase, pos);
    let c = w[p - wBase] as number;
    if (p === wEnd) {
      // Blank beyond the window (or the end of the input, where charCodeAt gives NaN).
      c = this.xml.charCodeAt(p);
      while (c <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) c = this.xml.charCodeAt(++p);
    }
    let lt = p;
    if (c !== LT) {
      // Leaf text: short texts (dates, codes, amounts) are scanned in the window, longer ones searched.
      const stop = Math.min(p + TEXT_SCAN, wEnd);
      lt = findLt(this.q4, w, wBase, p + 1, stop);
      if (lt < 0) lt = this.xml.indexOf('<', stop);
    }
    this.blank = lt === p;
    return lt;
  }

  /** `<!`: a comment or CDATA (their text joins the leaf's), anything else (a DOCTYPE above all) is refused. */
  declaration(pos: number, lt: number): number {
    const xml = this.xml;
    if (xml.startsWith('<!--', lt)) {
      const end = xml.indexOf('-->', lt + 4);
      if (end < 0) return this.fail('unterminated comment', lt);
      if (this.openCount > 0 && !this.leafHasChild) this.pendingText += xml.slice(pos, lt);
      return end + 3;
    }
    if (xml.startsWith('<![CDATA[', lt)) {
      if (this.openCount === 0) return this.fail('CDATA outside the root element', lt);
      const end = xml.indexOf(']]>', lt + 9);
      if (end < 0) return this.fail('unterminated CDATA section', lt);
      if (!this.leafHasChild) {
        const before = decodeEntities(xml.slice(pos, lt));
        if (before === undefined) return this.fail(BAD_REFERENCE, pos);
        this.pendingText += `${before}${xml.slice(lt + 9, end)}`;
      }
      return end + 3;
    }
    if (xml.startsWith('<!DOCTYPE', lt))
      return this.fail('DOCTYPE is not allowed (no DTDs or entity declarations)', lt);
    return this.fail('unsupported markup declaration', lt);
  }

  /** `<?`: a processing instruction (the XML declaration among them), skipped. */
  instruction(pos: number, lt: number): number {
    const end = this.xml.indexOf('?>', lt + 2);
    if (end < 0) return this.fail('unterminated processing instruction', lt);
    if (this.openCount > 0 && !this.leafHasChild) this.pendingText += this.xml.slice(pos, lt);
    return end + 2;
  }

  /** `</`: compared in place against the open name, no substring is allocated. */
  endTag(pos: number, lt: number, blank: boolean): number {
    const xml = this.xml;
    const w = this.w;
    const wBase = this.wBase;
    const wEnd = this.wEnd;
    const depth = this.openCount - 1;
    const top = depth >= 0 ? this.open[depth] : undefined;
    let gt = lt + 2 + (top ? top.qname.length : 0);
    const matches =
      top !== undefined && (gt < wEnd ? sameNameIn(w, lt + 2 - wBase, top.codes) : sameName(xml, lt + 2, top.codes));
    if (matches && (gt >= wEnd || w[gt - wBase] !== GT)) while (gt < this.n && isSpace(xml.charCodeAt(gt))) gt++;
    if (!top || !matches || (gt < wEnd ? w[gt - wBase] : xml.charCodeAt(gt)) !== GT)
      return this.endTagMismatch(lt, top);
    this.prev = top;
    this.prevWasOpen = false;
    if (this.leafHasChild && !blank) this.stats.mixedContent++;
    if (this.captureDepth >= 0) {
      if (!this.closeCaptured(pos, lt, depth)) return -1;
    } else {
      this.sink.close(top.local, depth);
    }
    this.openCount = depth; // the slot is reused, never truncated (setting an array's length is slow)
    if (depth === 0) this.rootClosed = true;
    this.leafHasChild = true; // the parent now has a child
    this.pendingText = '';
    return gt + 1;
  }

  endTagMismatch(lt: number, top: NameInfo | undefined): number {
    const end = this.xml.indexOf('>', lt + 2);
    const found = this.xml.slice(lt + 2, end < 0 ? Math.min(this.n, lt + 40) : end).trim();
    return this.fail(`end tag </${found}> does not match <${top ? top.qname : '(none)'}>`, lt);
  }

  /** An element inside a capture closed at `lt`: a leaf's text goes into the tree, the capture's root to the sink. */
  closeCaptured(pos: number, lt: number, depth: number): boolean {
    const node = this.nodes[depth] as number;
    if (!this.leafHasChild) {
      const textStart = pos;
      if (this.nextAmp >= 0 && this.nextAmp < textStart) this.nextAmp = this.xml.indexOf('&', textStart);
      if (this.pendingText !== '' || (this.nextAmp >= 0 && this.nextAmp < lt)) {
        const text = decodeEntities(this.pendingText + this.xml.slice(textStart, lt));
        if (text === undefined) {
          this.fail(BAD_REFERENCE, textStart);
          return false;
        }
        this.tree.setDecoded(node, text);
      } else this.tree.setText(node, textStart, lt);
    }
    if (depth === this.captureDepth) {
      this.captureDepth = -1;
      this.sink.captured(this.tree, node, depth);
    }
    return true;
  }

  /** `<` and a name outside any capture: the element opens (or, self-closing, opens and closes). */
  startTag(lt: number, blank: boolean): number {
    if (this.rootClosed) return this.fail('content after the root element', lt);
    // Text before a child element is mixed content, which no bank message schema allows (a browser view
    // pasted back as XML leaves "-" markers there).
    const pending = this.pendingText;
    if (this.openCount > 0 && (!blank || (pending !== '' && !isBlankRun(pending, 0, pending.length)))) {
      this.stats.mixedContent++;
    }
    const info = this.elementName(lt);
    if (info === null) return this.fail('malformed start tag', lt);
    const i = lt + 1 + info.qname.length;
    // Most start tags end right after the name: no attribute scan, and the name cannot end in "/".
    const gt =
      i < this.wEnd && this.w[i - this.wBase] === GT ? i : findTagEnd(this.xml, i, this.w, this.wBase, this.wEnd);
    if (gt < 0) return this.fail(`unterminated start tag <${info.qname}`, lt);
    const selfClosing = gt !== i && this.xml.charCodeAt(gt - 1) === SLASH;
    const attrEnd = selfClosing ? gt - 1 : gt;
    const attrs = i < attrEnd ? this.attributes(info, i, attrEnd) : '';
    if (attrs === undefined) return this.fail('undefined entity in attribute', lt);
    const depth = this.openCount;
    if (depth >= this.maxDepth) return this.fail(`element nesting deeper than ${this.maxDepth}`, lt);
    if (depth === 0) {
      if (this.rootSeen) return this.fail('more than one root element', lt);
      this.rootSeen = true;
    }
    if (this.sink.open(info.local, attrs, depth)) {
      this.captureDepth = depth;
      this.tree.reset(this.xml);
      this.nodes[depth] = this.tree.add(-1, info.id, info.local, attrs);
    }
    this.prev = info;
    this.prevWasOpen = !selfClosing;
    this.pendingText = '';
    if (selfClosing) this.closeEmpty(info, depth);
    else {
      this.open[this.openCount++] = info;
      this.leafHasChild = false;
    }
    return gt + 1;
  }

  /**
   * The regular stretch of a captured subtree, read with the parse state in locals (most tags of a large
   * statement are here, and a method call per tag with the state in fields cost a tenth of a 100-entry
   * camt.053 parse): blank-separated start tags whose name is the one guessed (with attributes after a
   * space), a leaf's text (entities decoded) and end tag read with its start tag, and end tags of elements
   * with children below the capture's root. It stops before the first tag that is anything else (text
   * before it, a self-closing tag, a missed guess, a bad reference, a comment, the root's end tag, the
   * window's last MARGIN units) and returns where that tag's text starts, for the steps of `run` to
   * read; they do the same for these tags.
   */
  captureRun(from: number): number {
    const { w, q4, wBase, wEnd, xml, tree, nodes, open, maxDepth, captureDepth } = this;
    const stop = wEnd - MARGIN;
    if (this.prev === null || this.pendingText !== '' || from >= stop) return from;
    let prev: NameInfo = this.prev;
    let openCount = this.openCount;
    let prevWasOpen = this.prevWasOpen;
    let leafHasChild = this.leafHasChild;
    let pos = from;
    for (;;) {
      const lt = skipBlank(w, q4, wBase, pos);
      if (lt >= stop || w[lt - wBase] !== LT) break;
      const c1 = w[lt + 1 - wBase] as number;
      if (c1 === SLASH) {
        const depth = openCount - 1;
        const top = open[depth] as NameInfo;
        const gt = lt + 2 + top.codes.length;
        if (!leafHasChild || depth <= captureDepth || gt >= wEnd || w[gt - wBase] !== GT) break;
        if (!sameNameIn(w, lt + 2 - wBase, top.codes)) break;
        prev = top;
        prevWasOpen = false;
        openCount = depth;
        pos = gt + 1;
        continue;
      }
      let info: NameInfo | null = prevWasOpen ? prev.afterOpen : prev.afterClose;
      // A guess that is only the start of the name written there is refused below (no `>` or space after it).
      if (info === null || !sameNameIn(w, lt + 1 - wBase, info.codes)) {
        // After an end tag, the second guess of lookupName (`Cd` is followed by `Fmly` in `Domn`, by `Issr` in `Prtry`).
        info = prevWasOpen ? null : this.runSecondGuess(prev, lt, open[openCount - 1] as NameInfo);
        if (info === null) break;
      }
      const codes = info.codes;
      const name = lt + 1 + codes.length;
      if (name >= wEnd || openCount >= maxDepth) break;
      let gt = name;
      let attrs = '';
      if (w[name - wBase] !== GT) {
        // Attributes (`<Amt Ccy="EUR">`, two or three a camt entry) after one space, read as startInCapture reads them.
        gt = w[name - wBase] === 32 ? this.runAttrsEnd(info, name) : -1;
        if (gt < 0) break;
        attrs = this.runAttrs;
      }
      const q = leafEnd(w, q4, wBase, wEnd, xml, gt + 1, codes);
      let decoded: string | null = null;
      if (q >= 0 && this.nextAmp >= 0 && this.nextAmp < q) {
        // An '&' may be in the text (or the known one is stale); a bad reference is reported by the long way.
        const text = this.ampText(gt + 1, q);
        if (text === undefined) break;
        decoded = text;
      }
      const node = tree.add(nodes[openCount - 1] as number, info.id, info.local, attrs);
      nodes[openCount] = node;
      prev = info;
      if (q >= 0) {
        if (decoded === null) tree.setText(node, gt + 1, q);
        else tree.setDecoded(node, decoded);
        prevWasOpen = false;
        leafHasChild = true;
        pos = q + 3 + codes.length;
      } else {
        open[openCount++] = info;
        prevWasOpen = true;
        leafHasChild = false;
        pos = gt + 1;
      }
    }
    this.openCount = openCount;
    this.prev = prev;
    this.prevWasOpen = prevWasOpen;
    this.leafHasChild = leafHasChild;
    return pos;
  }

  /**
   * A start tag inside a captured subtree (most tags of a large statement): the element goes into the
   * tree, and a leaf, `<Name>text</Name>` (most elements there), has its text and end tag read right here,
   * as the loop would read them (text starting with a blank, entities, comments or a child element go the
   * long way). One function for the whole leaf: a call per element was a tenth of a camt.053 parse.
   */
  startInCapture(lt: number, blank: boolean): number {
    const pending = this.pendingText;
    if (!blank || (pending !== '' && !isBlankRun(pending, 0, pending.length))) this.stats.mixedContent++;
    const info = this.elementName(lt);
    if (info === null) return this.fail('malformed start tag', lt);
    const { w, wBase, wEnd, xml } = this;
    const i = lt + 1 + info.qname.length;
    const gt = i < wEnd && w[i - wBase] === GT ? i : findTagEnd(xml, i, w, wBase, wEnd);
    if (gt < 0) return this.fail(`unterminated start tag <${info.qname}`, lt);
    const selfClosing = gt !== i && xml.charCodeAt(gt - 1) === SLASH;
    const attrEnd = selfClosing ? gt - 1 : gt;
    const attrs = i < attrEnd ? this.attributes(info, i, attrEnd) : '';
    if (attrs === undefined) return this.fail('undefined entity in attribute', lt);
    const depth = this.openCount; // deeper than the capture's root, so never the root element
    if (depth >= this.maxDepth) return this.fail(`element nesting deeper than ${this.maxDepth}`, lt);
    const node = this.tree.add(this.nodes[depth - 1] as number, info.id, info.local, attrs);
    this.nodes[depth] = node;
    this.prev = info;
    if (pending !== '') this.pendingText = '';
    this.prevWasOpen = false;
    this.leafHasChild = true;
    if (selfClosing) return gt + 1;
    const t = gt + 1;
    const q = leafEnd(w, this.q4, wBase, wEnd, xml, t, info.codes);
    if (q >= 0) {
      // No '&' before `q` known (a stale one, before `t`, is searched again only then).
      if (this.nextAmp < 0 || this.nextAmp >= q) this.tree.setText(node, t, q);
      else if (!this.ampLeaf(node, t, q)) return this.fail(BAD_REFERENCE, t);
      return q + 3 + info.codes.length;
    }
    this.open[this.openCount++] = info;
    this.prevWasOpen = true;
    this.leafHasChild = false;
    return t;
  }

  /**
   * The start tag's name at `lt + 1`: the element that followed the last tag last time when it is written
   * there, else looked up (and remembered as the guess); null when the tag is malformed.
   */
  elementName(lt: number): NameInfo | null {
    const prev = this.prev;
    if (prev === null) return this.scanName(lt);
    const guess = this.prevWasOpen ? prev.afterOpen : prev.afterClose;
    if (guess !== null && this.writtenAt(guess, lt + 1)) return guess;
    return this.lookupName(lt, prev);
  }

  /** The first guess missed: the second guess, else the name read and remembered as the guess. */
  lookupName(lt: number, prev: NameInfo): NameInfo | null {
    // After an end tag its parent is still open (a start tag after the root closed was refused).
    const parent = this.prevWasOpen || this.openCount === 0 ? null : (this.open[this.openCount - 1] as NameInfo);
    if (parent !== null) {
      // The second guess: what followed this end tag last time in this parent (a `Cd` is followed by
      // `Fmly` in `Domn` but by `Issr` in `Prtry`).
      const guess = this.table.afterClose(prev, parent);
      if (guess !== null && this.writtenAt(guess, lt + 1)) {
        prev.afterClose = guess;
        return guess;
      }
    }
    const info = this.scanName(lt);
    if (info !== null) {
      if (this.prevWasOpen) prev.afterOpen = info;
      else {
        prev.afterClose = info;
        if (parent !== null) this.table.setAfterClose(prev, parent, info);
      }
    }
    return info;
  }

  /** Whether `guess`'s name, and then a name's end, is written in the window at `i`. */
  writtenAt(guess: NameInfo, i: number): boolean {
    const end = i + guess.qname.length;
    return (
      end < this.wEnd &&
      sameNameIn(this.w, i - this.wBase, guess.codes) &&
      isNameEnd(this.w[end - this.wBase] as number)
    );
  }

  /** lookupName's second guess after the end tag of `prev` in `parent` when it is written at `lt + 1` (then the first guess), else null. */
  runSecondGuess(prev: NameInfo, lt: number, parent: NameInfo): NameInfo | null {
    const guess = this.table.afterClose(prev, parent);
    if (guess === null || !this.writtenAt(guess, lt + 1)) return null;
    prev.afterClose = guess;
    return guess;
  }

  /** Reads the name after `lt` (hashing it as it goes) and interns it; null when it is empty or malformed. */
  scanName(lt: number): NameInfo | null {
    const w = this.w;
    const wBase = this.wBase;
    const wEnd = this.wEnd;
    const xml = this.xml;
    const n = this.n;
    let hash = 0;
    let colon = -1;
    let i = lt + 1;
    for (; i < wEnd; i++) {
      const c = w[i - wBase] as number;
      if (isNameEnd(c)) break;
      if (c === LT) return null;
      if (c === 58) colon = i;
      hash = (hash * 31 + c) | 0;
    }
    if (i === wEnd) {
      // A name running past the window (or the end of the input).
      for (; i < n; i++) {
        const c = xml.charCodeAt(i);
        if (isNameEnd(c)) break;
        if (c === LT) return null;
        if (c === 58) colon = i;
        hash = (hash * 31 + c) | 0;
      }
    }
    if (i === lt + 1 || i >= n) return null;
    return this.table.get(xml, lt + 1, i, hash, colon);
  }

  /** The attribute text of a start tag, trimmed and checked for entities; undefined on a bad entity. */
  attributes(info: NameInfo, from: number, to: number): string | undefined {
    // The same attribute text as last time on this element (Ccy="EUR") was checked then: share it.
    if (info.rawAttrs.length === to - from && this.xml.startsWith(info.rawAttrs, from)) return info.attrs;
    const raw = this.xml.slice(from, to);
    const attrs = raw.trim();
    if (attrs.includes('&') && decodeEntities(attrs) === undefined) return undefined;
    info.rawAttrs = raw;
    info.attrs = attrs;
    return attrs;
  }

  /** A self-closing element closed as soon as it opened. */
  closeEmpty(info: NameInfo, depth: number): void {
    if (this.captureDepth >= 0) {
      if (depth === this.captureDepth) {
        this.captureDepth = -1;
        this.sink.captured(this.tree, this.nodes[depth] as number, depth);
      }
    } else this.sink.close(info.local, depth);
    if (depth === 0) this.rootClosed = true;
    this.leafHasChild = true;
  }

  /** A leaf's text [t, q) where an '&' may be: decoded when one is there; false on a bad reference. */
  ampLeaf(node: number, t: number, q: number): boolean {
    const text = this.ampText(t, q);
    if (text === undefined) return false;
    if (text === null) this.tree.setText(node, t, q);
    else this.tree.setDecoded(node, text);
    return true;
  }

  /** A leaf's text [t, q) where an '&' may be: decoded when one is there, null when not, undefined on a bad reference. */
  ampText(t: number, q: number): string | null | undefined {
    if (this.nextAmp < t) this.nextAmp = this.xml.indexOf('&', t);
    if (this.nextAmp < 0 || this.nextAmp >= q) return null;
    return decodeEntities(this.xml.slice(t, q));
  }

  /**
   * The `>` of a start tag in a capture run whose attributes start at `i`, with their text in `runAttrs`;
   * -1 leaves the tag to startInCapture (self-closing, a bad entity, an end beyond the window).
   */
  runAttrsEnd(info: NameInfo, i: number): number {
    const gt = findTagEnd(this.xml, i, this.w, this.wBase, this.wEnd);
    if (gt < 0 || gt >= this.wEnd || this.w[gt - 1 - this.wBase] === SLASH) return -1;
    const attrs = this.attributes(info, i, gt);
    if (attrs === undefined) return -1;
    this.runAttrs = attrs;
    return gt;
  }
}

/**
 * Parses `xml` and reports elements to `sink`. Returns an error for anything that is not well-formed
 * enough to trust, or undefined on success.
 */
export function streamXml(
  xml: string,
  sink: XmlSink,
  maxDepth = DEFAULT_MAX_DEPTH,
  stats: XmlStats = { mixedContent: 0 },
): XmlError | undefined {
  const scratch = acquireScratch();
  let parse: XmlParse;
  try {
    parse = new XmlParse(xml, sink, maxDepth, stats, scratch);
    const error = parse.run();
    if (error !== undefined) return error;
  } finally {
    scratch.release();
  }
  return parse.finish();
}
