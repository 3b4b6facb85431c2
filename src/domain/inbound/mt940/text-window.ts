import { Buffer } from 'node:buffer';

/**
 * The statement lines and :86: fields are read through a copy of the input as UTF-16 code units: a
 * typed-array read costs about half of a `charCodeAt`, which dispatches on the string's representation
 * every time. The copy holds text[base, end), at most `capacity` units (64K: 128 KB, whatever the file's
 * size); `cover` refills it (one native copy) when the next field is not inside it, so the input is
 * copied about once in all. A field longer than the copy (never in a real file) gets a copy of its own
 * size. Strings are still cut from the input itself. One window serves one parse (a parse started from a
 * transaction consumer has its own), so it never outlives the input it copies.
 */
const CAPACITY = 1 << 16;

export class TextWindow {
  units: Uint16Array;
  base = 0;
  end = 0;
  private bytes: Buffer;
  private text = '';

  constructor(text: string) {
    this.units = new Uint16Array(Math.min(text.length, CAPACITY));
    this.bytes = Buffer.from(this.units.buffer);
  }

  /** Makes units[i - base] hold text.charCodeAt(i) for every i in [start, end). */
  cover(text: string, start: number, end: number): void {
    if (start >= this.base && end <= this.end && text === this.text) return;
    if (end - start > this.units.length) {
      this.units = new Uint16Array(end - start);
      this.bytes = Buffer.from(this.units.buffer);
    }
    const to = Math.min(text.length, start + this.units.length);
    this.bytes.write(text.slice(start, to), 0, 'utf16le');
    this.text = text;
    this.base = start;
    this.end = to;
  }
}
