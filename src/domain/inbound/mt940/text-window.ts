import { Buffer } from 'node:buffer';

/**
 * The statement lines and :86: fields are read through a copy of the input as UTF-16 code units: a
 * typed-array read costs about half of a `charCodeAt`, which dispatches on the string's representation
 * every time. The copy holds text[base, end), at most 64K units (128 KB, whatever the file's size);
 * `cover` refills it (one native copy) when the next field is not inside it, so the input is copied
 * about once in all. A field longer than the copy (never in a real file) gets a copy of its own size.
 * Strings are still cut from the input itself.
 */
const CAPACITY = 1 << 16;

export class TextWindow {
  units: Uint16Array;
  base = 0;
  end = 0;
  inUse = false;
  private bytes: Buffer;
  private text = '';

  constructor(size: number) {
    this.units = new Uint16Array(size);
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

  /** Forgets the text it was filled from (so that text is not kept alive) and a grown copy. */
  reset(): void {
    this.text = '';
    this.base = 0;
    this.end = 0;
    if (this.units.length > CAPACITY) {
      this.units = new Uint16Array(CAPACITY);
      this.bytes = Buffer.from(this.units.buffer);
    }
  }
}

/** A window for a string read on its own (the field parsers' string entry points). */
export function windowFor(text: string): TextWindow {
  const win = new TextWindow(Math.min(text.length, CAPACITY));
  win.cover(text, 0, text.length);
  return win;
}

// One window serves every parse; a parse started while one runs (from a transaction consumer) gets its own.
let shared: TextWindow | null = null;

export function acquireWindow(): TextWindow {
  if (shared !== null && !shared.inUse) {
    shared.inUse = true;
    return shared;
  }
  const win = new TextWindow(CAPACITY);
  win.inUse = true;
  shared ??= win;
  return win;
}

export function releaseWindow(win: TextWindow): void {
  win.reset();
  win.inUse = false;
}
