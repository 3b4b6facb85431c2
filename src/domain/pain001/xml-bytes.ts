import { Buffer } from 'node:buffer';
import { CHAR_ESCAPE, CHAR_WIDE } from '../validation/charset.ts';

/**
 * UTF-8 output of the fused converter, written in place: static XML as pre-encoded bytes, ids and codes
 * as ASCII, free text checked against the bank's charset while it is copied (escaping `&`). Nothing is
 * allocated per transaction, so a large batch makes no garbage for the collector and no 100 MB string;
 * the Buffer is sized from the bytes per transaction seen so far and is not copied while it grows.
 *
 * Headers come before the transactions they count, so the converter writes bodies first: `RESERVE`
 * bytes are kept free at the front for the document and first PmtInf headers (`prepend`), and a header
 * that comes later is kept as text with the offset it belongs at (`bytes` then joins the pieces).
 */

/** Room for GrpHdr and a PmtInf header (every text in them is length-limited); larger ones are joined instead. */
const RESERVE = 4096;
/** The most one transaction of the fused shape can take (texts are length-checked before they are written). */
export const TRANSACTION_ROOM = 8192;

/**
 * Static XML, pre-encoded, also kept as 8-byte words: `XmlBytes#raw` copies it with a few 8-byte stores,
 * where a TypedArray#set call has a fixed cost (~10 ns) above the copy of these 15 to 70 byte pieces, and
 * a transaction has a dozen of them. The last word is padded, so `raw` writes up to 7 bytes past the
 * piece, into room that the next write overwrites. Words are kept only for ASCII text, which never reads
 * as a NaN (whose bits a copy through a float register need not keep); anything else is copied by `set`.
 * The words are a plain array of doubles, not a Float64Array: V8 checked a typed array's map, detachment
 * and backing store again on every word of the loop, a third more instructions per transaction in `raw`
 * (counted with valgrind over the benchmark batch).
 */
export class StaticBytes {
  readonly bytes: Uint8Array;
  readonly words: number[] | undefined;
  constructor(text: string) {
    this.bytes = new Uint8Array(Buffer.from(text, 'utf8'));
    const ascii = this.bytes.every((b) => b < 0x80);
    if (ascii) {
      const padded = new Uint8Array(Math.ceil(this.bytes.length / 8) * 8);
      padded.set(this.bytes);
      this.words = Array.from(new Float64Array(padded.buffer));
    } else this.words = undefined;
  }
}

/** Longest string `ascii` copies by its own loop: beyond, Node's native writer is faster (measured, Node 26). */
const ASCII_LOOP_MAX = 12;

/**
 * Node's Buffer#latin1Write: what Buffer#write dispatches to after checking its arguments and naming the
 * encoding, which costs more than the copy of one id. Offsets are kept in range here (`room`).
 */
type NodeBuffer = Buffer & { latin1Write(s: string, offset: number): number };

type Insert = { at: number; text: string };

export class XmlBytes {
  buf: NodeBuffer;
  /** `buf` as a DataView, for the 8-byte stores of `raw`. */
  private view: DataView;
  pos = RESERVE;
  private readonly inserts: Insert[] = [];
  private head = '';
  /** Transactions written so far and expected in all: the growth estimate. */
  written = 0;
  private readonly expected: number;

  constructor(expectedTransactions: number) {
    this.expected = expectedTransactions;
    this.buf = Buffer.allocUnsafe(RESERVE + Math.min(expectedTransactions, 64) * 768 + TRANSACTION_ROOM) as NodeBuffer;
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  /** Makes sure `n` more bytes fit. */
  room(n: number): void {
    if (this.pos + n > this.buf.length) this.grow(this.pos + n);
  }

  private grow(need: number): void {
    const perTx = this.written > 0 ? (this.pos - RESERVE) / this.written : 768;
    const estimate = RESERVE + Math.ceil(perTx * this.expected * 1.05) + TRANSACTION_ROOM * 4;
    const size = Math.max(need, estimate, Math.ceil(this.buf.length * 1.5));
    const bigger = Buffer.allocUnsafe(size) as NodeBuffer;
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
    this.view = new DataView(bigger.buffer, bigger.byteOffset, bigger.byteLength);
  }

  /** Static XML (room ensured by the caller, with 8 bytes to spare: see StaticBytes). */
  raw(piece: StaticBytes): void {
    const words = piece.words;
    const p = this.pos;
    if (words === undefined) this.buf.set(piece.bytes, p);
    else {
      const view = this.view;
      for (let q = 0; q < words.length; q++) view.setFloat64(p + q * 8, words[q] as number, true);
    }
    this.pos = p + piece.bytes.length;
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
   * Free text checked against a charset's classes (validation/charset.ts) while it is copied: UTF-8, `&`
   * escaped. False, with the position where it was, when a character is outside the charset. One pass:
   * plain ASCII is copied by a loop that does nothing else, and the first character that is not (a letter
   * beyond ASCII, `&`, a refused one) hands the rest to `textFrom`, which picks up where it stopped. With
   * the rarer cases out of the copying loop, fewer values are live in it (about 280 instructions a
   * transaction fewer, valgrind over the benchmark batch); a refused character stops the copy where it is.
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

  /** The rest of `text` from the first character that is not plain ASCII (`i`, written up to `p`). */
  private textFrom(s: string, from: number, at: number, classes: Uint8Array): boolean {
    const b = this.buf;
    let p = at;
    const n = s.length;
    for (let i = from; i < n; i++) {
      const c = s.charCodeAt(i);
      const k = classes[c];
      if (k === 0) b[p++] = c;
      else if (k === CHAR_WIDE) {
        // Every charset letter lies below U+0800: two bytes.
        b[p++] = 0xc0 | (c >> 6);
        b[p++] = 0x80 | (c & 0x3f);
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
    this.pos += this.buf.write(text, this.pos, 'utf8');
  }

  /** Text that belongs at the current end of the output but is only known later (a PmtInf header). */
  mark(): Insert {
    const ins = { at: this.pos, text: '' };
    this.inserts.push(ins);
    return ins;
  }

  /** Text before everything written (the document head and the first PmtInf header). */
  prepend(text: string): void {
    this.head = text;
  }

  /** The finished document as one Buffer (a view of the working buffer when no header had to be joined). */
  bytes(): Buffer {
    const pieces: Buffer[] = [];
    let from = RESERVE;
    let head = this.head;
    for (const ins of this.inserts) {
      if (ins.text === '') continue;
      if (ins.at === from) head += ins.text;
      else {
        pieces.push(Buffer.from(head), this.buf.subarray(from, ins.at));
        head = ins.text;
        from = ins.at;
      }
    }
    const headLength = Buffer.byteLength(head);
    if (pieces.length === 0 && headLength <= from) {
      const start = from - headLength;
      this.buf.write(head, start, 'utf8');
      return this.buf.subarray(start, this.pos);
    }
    pieces.push(Buffer.from(head), this.buf.subarray(from, this.pos));
    return Buffer.concat(pieces);
  }
}
