import { Buffer } from 'node:buffer';
import { CHAR_ESCAPE, CHAR_WIDE } from '../validation/charset.ts';

/**
 * Output of the fused converter, written in place: static XML as pre-encoded bytes, ids and codes as
 * ASCII, free text checked against the bank's charset while it is copied (escaping `&`). Nothing is
 * allocated per transaction.
 *
 * The bytes go into one small working buffer that the process keeps and reuses from conversion to
 * conversion; each time about `CHUNK` bytes are written they become one string, and the document is
 * those strings joined as a rope (ADR 0008, ninth look). Every caller wants the file as a string
 * (responses, the journal, the CLI), and a fresh multi-megabyte buffer per conversion was what made
 * conversions three times slower for stretches of several batches on these virtual machines: memory the
 * allocator had given back to the system was touched again page by page (about 1,500 page faults a
 * 10,000-transaction batch, ~15 us each). Chunks are Latin-1, one byte per character, so a chunk becomes
 * a string by one copy; a chunk that must hold a character beyond U+00FF (Polish and Nordic letters) is
 * written as UTF-8 from that character's field on (`widen`).
 *
 * Headers come before the transactions they count, so they are joined in when known: `prepend` for the
 * document head, `mark` for a later PmtInf header.
 */

/** Bytes written before they become one piece of the document. */
const CHUNK = 32 * 1024;
/** The most one transaction of the fused shape can take (texts are length-checked before they are written). */
export const TRANSACTION_ROOM = 8192;

/**
 * Static XML kept as 8-byte words: `XmlBytes#raw` copies it with a few 8-byte stores,
 * where a TypedArray#set call has a fixed cost (~10 ns) above the copy of these 15 to 70 byte pieces, and
 * a transaction has a dozen of them. The last word is padded, so `raw` writes up to 7 bytes past the
 * piece, into room that the next write overwrites. Words are kept only for ASCII text, which never reads
 * as a NaN (whose bits a copy through a float register need not keep); anything else is written as text.
 * The words are a plain array of doubles, not a Float64Array: V8 checked a typed array's map, detachment
 * and backing store again on every word of the loop, a third more instructions per transaction in `raw`
 * (counted with valgrind over the benchmark batch).
 */
export class StaticBytes {
  readonly text: string;
  readonly length: number;
  /** Undefined for a piece with a character beyond ASCII: it is written as text (`XmlBytes#write`). */
  readonly words: number[] | undefined;
  constructor(text: string) {
    this.text = text;
    this.length = text.length;
    if (/^[\x00-\x7f]*$/.test(text)) {
      const padded = new Uint8Array(Math.ceil(text.length / 8) * 8);
      padded.set(Buffer.from(text, 'latin1'));
      this.words = Array.from(new Float64Array(padded.buffer));
    } else this.words = undefined;
  }
}

/** Longest string `ascii` copies by its own loop: beyond, Node's native writer is faster (measured, Node 26). */
const ASCII_LOOP_MAX = 12;

/**
 * Node's Buffer#latin1Write and #latin1Slice: what Buffer#write and #toString dispatch to after checking
 * their arguments and naming the encoding, which costs more than the copy of one id. Offsets are kept in
 * range here (`room`).
 */
type NodeBuffer = Buffer & {
  latin1Write(s: string, offset: number): number;
  latin1Slice(start: number, end: number): string;
};

type Insert = { text: string };

/** The working buffer's size: a chunk and the most one transaction (or one `write`) can add to it. */
const WORKING_SIZE = CHUNK + TRANSACTION_ROOM;

/** The process's working buffer while no conversion holds it (conversions are synchronous; see take). */
let idle: NodeBuffer | undefined;

/**
 * The working buffer for one conversion. A conversion never calls another, but a caller's object could
 * (a getter): then the inner one gets a buffer of its own instead of writing into the outer one's.
 */
function take(): NodeBuffer {
  const buf = idle ?? (Buffer.allocUnsafeSlow(WORKING_SIZE) as NodeBuffer);
  idle = undefined;
  return buf;
}

/** A character beyond Latin-1: the text cannot go into a Latin-1 chunk. */
const BEYOND_LATIN1 = /[^\x00-\xff]/;

export class XmlBytes {
  buf: NodeBuffer;
  /** The process's working buffer this conversion took (`buf`, unless a long `write` needed a bigger one). */
  private readonly working: NodeBuffer;
  /** `buf` as a DataView, for the 8-byte stores of `raw`. */
  private view: DataView;
  pos = 0;
  /** The current chunk is UTF-8 (it holds a character beyond U+00FF), else Latin-1. */
  private utf8 = false;
  /** The document so far, in order: chunks of text, and headers that are filled in later. */
  private readonly parts: Array<string | Insert> = [];
  private head = '';

  constructor() {
    this.working = take();
    this.buf = this.working;
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  /** Makes sure `n` more bytes fit: what is written so far becomes a chunk first when the buffer is full. */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.flush();
    if (n > this.buf.length) {
      // Only `write` of a text longer than the working buffer (no transaction is): a buffer for it alone.
      this.buf = Buffer.allocUnsafeSlow(n) as NodeBuffer;
      this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    }
  }

  /** What is written so far, as one piece of the document; the next chunk starts as Latin-1. */
  private flush(): void {
    if (this.pos > 0) {
      this.parts.push(this.utf8 ? this.buf.toString('utf8', 0, this.pos) : this.buf.latin1Slice(0, this.pos));
      this.pos = 0;
    }
    this.utf8 = false;
  }

  /**
   * A character beyond Latin-1 is about to be written: what is written so far stays a Latin-1 chunk, and
   * the rest of this chunk is UTF-8. Called between fields (at `pos`), never inside one.
   */
  private widen(): void {
    this.flush();
    this.utf8 = true;
  }

  /** Static XML (room ensured by the caller, with 8 bytes to spare: see StaticBytes). */
  raw(piece: StaticBytes): void {
    const words = piece.words;
    if (words === undefined) {
      this.write(piece.text);
      return;
    }
    const p = this.pos;
    const view = this.view;
    for (let q = 0; q < words.length; q++) view.setFloat64(p + q * 8, words[q] as number, true);
    this.pos = p + piece.length;
  }

  /**
   * A string known to be ASCII without XML specials: ids, codes, IBAN, BIC, amounts (room ensured). Short
   * ones by a loop; from about a dozen characters Node's Latin-1 writer (one native copy) is faster.
   */
  ascii(s: string): void {
    const n = s.length;
    if (n > ASCII_LOOP_MAX) {
      this.pos += this.buf.latin1Write(s, this.pos);
      return;
    }
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /**
   * An id or code copied as its characters' classes are gathered (room ensured): the OR of `classes` over
   * them, for the caller's rule (0: all plain). Each UTF-16 unit is stored as one byte, so the copy stands
   * only when the classes refuse every unit beyond ASCII; a caller that gets a refusal declines anyway.
   */
  classed(s: string, classes: Uint8Array): number {
    const b = this.buf;
    let p = this.pos;
    let acc = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      acc |= classes[c] as number;
      b[p++] = c;
    }
    this.pos = p;
    return acc;
  }

  /**
   * Free text checked against a charset's classes (validation/charset.ts) while it is copied, `&` escaped.
   * False, with `pos` where it was, when a character is outside the charset. One pass: plain ASCII is
   * copied by a loop that does nothing else, and the first character that is not (a letter beyond ASCII,
   * `&`, a refused one) hands the rest to `textFrom`, which picks up where it stopped. With the rarer cases
   * out of the copying loop, fewer values are live in it (about 280 instructions a transaction fewer,
   * valgrind over the benchmark batch); a refused character stops the copy where it is.
   */
  text(s: string, classes: Uint8Array): boolean {
    const b = this.buf;
    let p = this.pos;
    const n = s.length;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (classes[c] !== 0) break;
      b[p++] = c;
    }
    if (i === n) {
      this.pos = p;
      return true;
    }
    return this.textFrom(s, i, p, classes);
  }

  /** The rest of `text` from the first character that is not plain ASCII (`from`, written up to `at`). */
  private textFrom(s: string, from: number, at: number, classes: Uint8Array): boolean {
    const b = this.buf;
    let p = at;
    const n = s.length;
    for (let i = from; i < n; i++) {
      const c = s.charCodeAt(i);
      const k = classes[c];
      if (k === 0) b[p++] = c;
      else if (k === CHAR_WIDE) {
        if (this.utf8) {
          // Every charset letter lies below U+0800: two bytes.
          b[p++] = 0xc0 | (c >> 6);
          b[p++] = 0x80 | (c & 0x3f);
        } else if (c <= 0xff) b[p++] = c;
        else {
          // This field starts over in a UTF-8 chunk (what it wrote so far is past `pos`, not yet kept).
          this.widen();
          return this.text(s, classes);
        }
      } else if (k === CHAR_ESCAPE && c === 38) {
        b[p++] = 38;
        b[p++] = 97;
        b[p++] = 109;
        b[p++] = 112;
        b[p++] = 59;
      } else return false;
    }
    this.pos = p;
    return true;
  }

  /** Any text (headers, rare elements), already escaped. */
  write(text: string): void {
    this.room(text.length * 3);
    if (!this.utf8) {
      if (!BEYOND_LATIN1.test(text)) {
        this.pos += this.buf.latin1Write(text, this.pos);
        return;
      }
      this.widen();
    }
    this.pos += this.buf.write(text, this.pos, 'utf8');
  }

  /** Text that belongs at the current end of the output but is only known later (a PmtInf header). */
  mark(): Insert {
    this.flush();
    const ins = { text: '' };
    this.parts.push(ins);
    return ins;
  }

  /** Text before everything written (the document head and the first PmtInf header). */
  prepend(text: string): void {
    this.head = text;
  }

  /** The finished document: the head, the chunks and the headers joined as a rope (no copy of the whole). */
  xml(): string {
    this.flush();
    let doc = this.head;
    for (const part of this.parts) doc += typeof part === 'string' ? part : part.text;
    return doc;
  }

  /** Gives the working buffer back for the next conversion, whether this one finished or declined. */
  release(): void {
    idle = this.working;
  }
}
