import { Buffer } from 'node:buffer';

/**
 * UTF-8 output of the fused converter. Text is gathered into strings of about 64 K characters (V8 joins
 * the small pieces as ropes) and each is encoded into one Buffer with a single native call: measured
 * faster than encoding every field or copying pre-encoded static bytes from JS. The Buffer is sized from
 * the bytes per transaction seen so far, so a 100,000-transaction file is not copied while it grows.
 *
 * Headers come before the transactions they count, so the converter writes bodies first: `reserve`
 * bytes are kept free at the front for the document and first PmtInf headers (`prepend`), and a header
 * that comes later is kept as text with the offset it belongs at (`bytes` then joins the pieces).
 */

const CHUNK = 65_536;
/** Room for GrpHdr and a PmtInf header (every text in them is length-limited); larger ones are joined instead. */
const RESERVE = 8192;

type Insert = { at: number; text: string };

export class XmlBytes {
  private buf: Buffer;
  private pos = RESERVE;
  private pending = '';
  private readonly inserts: Insert[] = [];
  private head = '';
  /** Transactions written so far and expected in all: the growth estimate. */
  written = 0;
  private readonly expected: number;

  constructor(expectedTransactions: number) {
    this.expected = expectedTransactions;
    this.buf = Buffer.allocUnsafe(RESERVE + Math.min(expectedTransactions, 64) * 768 + 4096);
  }

  write(text: string): void {
    this.pending += text;
    if (this.pending.length >= CHUNK) this.flush();
  }

  private flush(): void {
    const s = this.pending;
    if (s === '') return;
    this.pending = '';
    // A UTF-16 unit never takes more than 3 UTF-8 bytes.
    const need = this.pos + s.length * 3;
    if (need > this.buf.length) this.grow(need);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  private grow(need: number): void {
    const perTx = this.written > 0 ? (this.pos - RESERVE) / this.written : 768;
    const estimate = RESERVE + Math.ceil(perTx * this.expected * 1.05) + CHUNK * 3;
    const size = Math.max(need, estimate, Math.ceil(this.buf.length * 1.5));
    const bigger = Buffer.allocUnsafe(size);
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  /** Text that belongs at the current end of the output but is only known later (a PmtInf header). */
  mark(): Insert {
    this.flush();
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
    this.flush();
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
