/**
 * text.indexOf(char, from), limited to [from, end): indexOf is much faster than a character loop, but it
 * does not stop at `end`, so each finder remembers its last search. The first `char` at or after `from`
 * is also the first one at or after any position up to it, so later searches of the same text from
 * those positions (the rest of a field, the next fields: a parse reads forward) are answered without
 * searching, and a file with few of them is searched once, not once per field.
 */
class CharFinder {
  private readonly char: string;
  private text = '';
  private from = 0;
  private found = -1;

  constructor(char: string) {
    this.char = char;
  }

  find(text: string, from: number, end: number): number {
    let at = this.found;
    if (!(from >= this.from && (at < 0 || from <= at) && text === this.text)) {
      at = text.indexOf(this.char, from);
      this.text = text;
      this.from = from;
      this.found = at;
    }
    return at >= 0 && at < end ? at : -1;
  }

  forget(): void {
    this.text = '';
    this.from = 0;
    this.found = -1;
  }
}

export const slashes = new CharFinder('/');
export const carriageReturns = new CharFinder('\r');
export const lineSeparators = new CharFinder('\u2028');
export const paragraphSeparators = new CharFinder('\u2029');

/** Drops the remembered text, so a parsed file is not kept alive by the finders. */
export function forgetFinders(): void {
  slashes.forget();
  carriageReturns.forget();
  lineSeparators.forget();
  paragraphSeparators.forget();
}
