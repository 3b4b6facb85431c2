import { Buffer } from 'node:buffer';
import { CHAR_REFUSED, CHAR_WIDE } from '../validation/charset.ts';

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

type Insert = { at: number; text: string };

export class XmlBytes {
  buf: Buffer;
  pos = RESERVE;
  private readonly inserts: Insert[] = [];
  private head = '';
  /** Transactions written so far and expected in all: the growth estimate. */
  written = 0;
  private readonly expected: number;

  constructor(expectedTransactions: number) {
    this.expected = expectedTransactions;
    this.buf = Buffer.allocUnsafe(RESERVE + Math.min(expectedTransactions, 64) * 768 + TRANSACTION_ROOM);
  }

  /** Makes sure `n` more bytes fit. */
  room(n: number): void {
    if (this.pos + n > this.buf.length) this.grow(this.pos + n);
  }

  private grow(need: number): void {
    const perTx = this.written > 0 ? (this.pos - RESERVE) / this.written : 768;
    const estimate = RESERVE + Math.ceil(perTx * this.expected * 1.05) + TRANSACTION_ROOM * 4;
    const size = Math.max(need, estimate, Math.ceil(this.buf.length * 1.5));
    const bigger = Buffer.allocUnsafe(size);
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  /** Pre-encoded bytes (room ensured by the caller). */
  raw(bytes: Uint8Array): void {
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** A string known to be ASCII without XML specials: ids, codes, IBAN, BIC, amounts (room ensured). */
  ascii(s: string): void {
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < s.length; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /**
   * Free text checked against a charset's classes (validation/charset.ts) while it is copied: UTF-8, `&`
   * escaped. False, with the position where it was, when a character is outside the charset. Pure ASCII
   * (most text) is copied by a loop without branches; anything else is copied again, character by character.
   */
  text(s: string, classes: Uint8Array): boolean {
    const b = this.buf;
    let p = this.pos;
    const n = s.length;
    let acc = 0;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      acc |= classes[c] as number;
      b[p + i] = c;
    }
    if (acc === 0) {
      this.pos = p + n;
      return true;
    }
    if (acc & CHAR_REFUSED) return false;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      const k = classes[c];
      if (k === 0) b[p++] = c;
      else if (k === CHAR_WIDE) {
        // Every charset letter lies below U+0800: two bytes.
        b[p++] = 0xc0 | (c >> 6);
        b[p++] = 0x80 | (c & 0x3f);
      } else if (c === 38) {
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
