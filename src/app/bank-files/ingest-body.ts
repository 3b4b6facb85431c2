import { isUtf8 } from 'node:buffer';

/**
 * A POST /journal/ingest body read as it arrives, chunk by chunk, in the file worker: the answer is
 * the one `JSON.parse` of the body's UTF-8 text would give (same syntax errors, same values, the last
 * of duplicate keys), but neither the body, its text nor its parsed object is ever held. Only the
 * top-level fields the route reads are kept, and the file (`content`, tens of megabytes) is kept as
 * its UTF-8 bytes in one buffer sized from Content-Length, decoded once at the end
 * (docs/adr/0029: the body, its decoded text and the parsed string were three copies of the file).
 */

/** The fields of a POST /journal/ingest body besides the file; checked as the route's schema would. */
export type IngestFields = {
  companyId: string;
  platformId?: string;
  bankKey?: string;
  environment?: 'test' | 'production';
};

type Issue = { path: string; message: string };

export type IngestBodyError = {
  ok: false;
  code: 'invalid_json' | 'validation_failed';
  message: string;
  details?: { issues: Issue[] };
};

/**
 * The file a body carried. `bytes` is its UTF-8 when the text round-trips through UTF-8 (no invalid
 * sequence, no lone surrogate escape): then its digest and compressed copy are made from these bytes
 * and are the same as from the text.
 */
export type IngestBodyFile = {
  text: string;
  bytes: Uint8Array | undefined;
  /** Frees `bytes` at once (tens of megabytes) rather than at the worker's next collection. */
  release(): void;
};

export type IngestBodyRead = { ok: true; fields: IngestFields; file: IngestBodyFile } | IngestBodyError;

const invalidJson: IngestBodyError = {
  ok: false,
  code: 'invalid_json',
  message: 'the body is not valid JSON',
};

/**
 * The route's schema over a parsed body (an object's own fields; `content` only needs to be a
 * string here): the issues in the order the schema reported them.
 */
export function checkIngestFields(body: unknown): { ok: true; fields: IngestFields } | IngestBodyError {
  const failed = (issues: Issue[]): IngestBodyError => ({
    ok: false,
    code: 'validation_failed',
    message: 'the request does not match the schema',
    details: { issues },
  });
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return failed([{ path: 'body', message: 'must be object' }]);
  }
  const b = body as Record<string, unknown>;
  const issues: Issue[] = [];
  const text = (name: string, required: boolean, max?: number) => {
    const v = b[name];
    if (v === undefined) {
      if (required) issues.push({ path: 'body', message: `must have required property '${name}'` });
    } else if (typeof v !== 'string') issues.push({ path: `body.${name}`, message: 'must be string' });
    else if (max !== undefined && v.length > max) {
      issues.push({ path: `body.${name}`, message: `must NOT have more than ${max} characters` });
    }
  };
  text('companyId', true, 64);
  text('content', true);
  text('platformId', false, 64);
  text('bankKey', false, 64);
  if (b.environment !== undefined && b.environment !== 'test' && b.environment !== 'production') {
    issues.push({ path: 'body.environment', message: 'must be test or production' });
  }
  if (issues.length > 0) return failed(issues);
  const fields: IngestFields = { companyId: b.companyId as string };
  if (typeof b.platformId === 'string') fields.platformId = b.platformId;
  if (typeof b.bankKey === 'string') fields.bankKey = b.bankKey;
  if (b.environment === 'test' || b.environment === 'production') fields.environment = b.environment;
  return { ok: true, fields };
}

const SMALL_FIELDS = new Set(['companyId', 'platformId', 'bankKey', 'environment']);
/** A top-level key longer than this (in bytes) cannot be one of the fields above, however escaped. */
const KEY_CAP = 256;
/** Stands for a field whose value is not a string (only its type matters to the schema). */
const NOT_A_STRING = null;

// Where the reader is in the JSON grammar.
const VALUE = 0; // a value is next
const AFTER = 1; // a value ended: ',' or the container's end next (or only whitespace at the top)
const KEY_OR_CLOSE = 2; // just after '{'
const KEY = 3; // after ',' in an object
const COLON = 4;
const STRING = 5;
const ESCAPE = 6; // after '\' in a string
const HEX = 7; // in the four digits of '\u'
const NUMBER = 8;
const LITERAL = 9; // in true, false or null
const VALUE_OR_CLOSE = 10; // just after '['
const FAILED = 11;

// What a string is read for.
const SKIP = 0;
const TOP_KEY = 1; // a key of the top-level object: compared with the fields' names
const SMALL = 2; // a value of companyId, platformId, bankKey or environment
const CONTENT = 3; // the file

// Number sub-states (JSON: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?); the odd ones may end.
const N_MINUS = 0;
const N_ZERO = 1;
const N_INT = 3;
const N_DOT = 4;
const N_FRAC = 5;
const N_E = 6;
const N_E_SIGN = 8;
const N_EXP = 7;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

const SIMPLE_ESCAPES: Record<number, number> = {
  34: 0x22,
  92: 0x5c,
  47: 0x2f,
  98: 0x08,
  102: 0x0c,
  110: 0x0a,
  114: 0x0d,
  116: 0x09,
};

/**
 * A short string (a key or a small field) as JSON.parse makes it: raw byte runs decoded as UTF-8
 * (a run ends at an escape or the closing quote, both ASCII, so it decodes as it would within the
 * whole text) and escapes appended as the UTF-16 code units they name.
 */
class SmallString {
  private raw = Buffer.allocUnsafe(64);
  private rawLength = 0;
  private text = '';
  /** Bytes taken in so far (raw and escaped), to give up on keys that cannot be a field's name. */
  size = 0;

  addRaw(bytes: Uint8Array, from: number, to: number): void {
    const n = to - from;
    if (this.rawLength + n > this.raw.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.raw.length * 2, this.rawLength + n));
      this.raw.copy(bigger, 0, 0, this.rawLength);
      this.raw = bigger;
    }
    this.raw.set(bytes.subarray(from, to), this.rawLength);
    this.rawLength += n;
    this.size += n;
  }

  addUnit(unit: number): void {
    this.flush();
    this.text += String.fromCharCode(unit);
    this.size += 1;
  }

  value(): string {
    this.flush();
    return this.text;
  }

  private flush(): void {
    if (this.rawLength === 0) return;
    this.text += this.raw.toString('utf8', 0, this.rawLength);
    this.rawLength = 0;
  }
}

/**
 * The file's string as UTF-8 bytes in one buffer: raw runs copied, escapes encoded (a surrogate pair
 * of escapes as its one code point). A lone surrogate escape has no UTF-8: its position and code unit
 * are kept aside and put back into the text when it is decoded.
 */
class ContentBytes {
  buffer: Uint8Array<ArrayBuffer>;
  length = 0;
  /** Pairs of (byte position, code unit) of lone surrogate escapes. */
  readonly lone: number[] = [];
  private pendingHigh = -1;

  constructor(capacity: number) {
    this.buffer = new Uint8Array(capacity);
  }

  addRaw(bytes: Uint8Array, from: number, to: number): void {
    if (to === from) return;
    this.endPending();
    this.reserve(to - from);
    this.buffer.set(bytes.subarray(from, to), this.length);
    this.length += to - from;
  }

  addUnit(unit: number): void {
    if (this.pendingHigh >= 0) {
      if (unit >= 0xdc00 && unit <= 0xdfff) {
        const cp = 0x10000 + ((this.pendingHigh - 0xd800) << 10) + (unit - 0xdc00);
        this.pendingHigh = -1;
        this.put4(cp);
        return;
      }
      this.endPending();
    }
    if (unit >= 0xd800 && unit <= 0xdbff) this.pendingHigh = unit;
    else if (unit >= 0xdc00 && unit <= 0xdfff) this.lone.push(this.length, unit);
    else this.putBmp(unit);
  }

  /** The string ended (or something other than a low surrogate escape followed a high one). */
  endPending(): void {
    if (this.pendingHigh < 0) return;
    this.lone.push(this.length, this.pendingHigh);
    this.pendingHigh = -1;
  }

  /** Frees the buffer now rather than at the worker's next collection (it is tens of megabytes). */
  free(): void {
    this.buffer.buffer.transfer(0);
  }

  private reserve(n: number): void {
    if (this.length + n <= this.buffer.length) return;
    const bigger = new Uint8Array(Math.max(this.buffer.length * 2, this.length + n));
    bigger.set(this.buffer.subarray(0, this.length));
    this.free();
    this.buffer = bigger;
  }

  private putBmp(unit: number): void {
    this.reserve(3);
    const b = this.buffer;
    if (unit < 0x80) b[this.length++] = unit;
    else if (unit < 0x800) {
      b[this.length++] = 0xc0 | (unit >> 6);
      b[this.length++] = 0x80 | (unit & 0x3f);
    } else {
      b[this.length++] = 0xe0 | (unit >> 12);
      b[this.length++] = 0x80 | ((unit >> 6) & 0x3f);
      b[this.length++] = 0x80 | (unit & 0x3f);
    }
  }

  private put4(cp: number): void {
    this.reserve(4);
    const b = this.buffer;
    b[this.length++] = 0xf0 | (cp >> 18);
    b[this.length++] = 0x80 | ((cp >> 12) & 0x3f);
    b[this.length++] = 0x80 | ((cp >> 6) & 0x3f);
    b[this.length++] = 0x80 | (cp & 0x3f);
  }
}

/** Reads one POST /journal/ingest body pushed chunk by chunk; `end()` answers what it held. */
export class IngestBodyReader {
  private state = VALUE;
  /** Open containers, innermost last: 0 an object, 1 an array. */
  private stack = new Uint8Array(64);
  private depth = 0;
  private topIsObject = false;
  private consumed = 0;

  private target = SKIP;
  private isKey = false;
  private small: SmallString | undefined;
  private hex = 0;
  private hexDigits = 0;
  private numberState = N_MINUS;
  private literal = '';
  private literalAt = 0;

  /** The top-level key whose value is next (undefined: not one of the route's fields). */
  private key: string | undefined;
  /** The field the string being read is the value of. */
  private valueField: string | undefined;
  private readonly values = new Map<string, string | typeof NOT_A_STRING>();
  private content: ContentBytes | typeof NOT_A_STRING | undefined;

  private readonly sizeHint: number | undefined;

  /** @param sizeHint the body's declared length, if any: the file's bytes never exceed it. */
  constructor(sizeHint?: number) {
    this.sizeHint = sizeHint;
  }

  push(bytes: Uint8Array): void {
    const n = bytes.length;
    let i = 0;
    while (i < n && this.state !== FAILED) {
      if (this.state === STRING) {
        // The hot loop: a run of plain string bytes, copied (if kept) in one piece.
        const start = i;
        let b = 0;
        while (i < n) {
          b = bytes[i]!;
          if (b === 0x22 || b === 0x5c || b < 0x20) break;
          i++;
        }
        if (i > start) this.addRaw(bytes, start, i);
        if (i === n) break;
        if (b < 0x20) this.state = FAILED;
        else if (b === 0x5c) this.state = ESCAPE;
        else this.endString();
        i++;
        continue;
      }
      if (this.step(bytes[i]!)) i++;
    }
    this.consumed += n;
  }

  end(): IngestBodyRead {
    const complete =
      this.depth === 0 && (this.state === AFTER || (this.state === NUMBER && (this.numberState & 1) === 1));
    if (!complete) {
      this.dropContent();
      return invalidJson;
    }
    const content = this.content;
    const body: Record<string, unknown> = Object.fromEntries(this.values);
    if (content !== undefined) body.content = content === NOT_A_STRING ? NOT_A_STRING : '';
    const checked = checkIngestFields(this.topIsObject ? body : null);
    if (checked.ok && content) return { ok: true, fields: checked.fields, file: decodeContent(content) };
    this.dropContent();
    // Without a string `content` the schema has an issue to report.
    return checked.ok ? invalidJson : checked;
  }

  private dropContent(): void {
    if (this.content) this.content.free();
    this.content = undefined;
  }

  /** One byte outside a string's plain run; answers whether it was consumed (else it is read again). */
  private step(b: number): boolean {
    switch (this.state) {
      case VALUE:
      case VALUE_OR_CLOSE:
        if (isSpace(b)) return true;
        if (b === 0x5d && this.state === VALUE_OR_CLOSE) return this.close(1);
        return this.startValue(b);
      case AFTER:
        if (isSpace(b)) return true;
        if (this.depth === 0) return this.fail();
        if (b === 0x2c) {
          this.state = this.stack[this.depth - 1] === 0 ? KEY : VALUE;
          return true;
        }
        if (b === 0x7d) return this.close(0);
        if (b === 0x5d) return this.close(1);
        return this.fail();
      case KEY_OR_CLOSE:
      case KEY:
        if (isSpace(b)) return true;
        if (b === 0x7d && this.state === KEY_OR_CLOSE) return this.close(0);
        if (b !== 0x22) return this.fail();
        this.isKey = true;
        this.startString(this.depth === 1 ? TOP_KEY : SKIP);
        return true;
      case COLON:
        if (isSpace(b)) return true;
        if (b !== 0x3a) return this.fail();
        this.state = VALUE;
        return true;
      case ESCAPE: {
        if (b === 0x75) {
          this.hex = 0;
          this.hexDigits = 0;
          this.state = HEX;
          return true;
        }
        const unit = SIMPLE_ESCAPES[b];
        if (unit === undefined) return this.fail();
        this.addUnit(unit);
        this.state = STRING;
        return true;
      }
      case HEX: {
        const v = hexValue(b);
        if (v < 0) return this.fail();
        this.hex = (this.hex << 4) | v;
        if (++this.hexDigits === 4) {
          this.addUnit(this.hex);
          this.state = STRING;
        }
        return true;
      }
      case NUMBER:
        return this.numberByte(b);
      case LITERAL:
        if (b !== this.literal.charCodeAt(this.literalAt)) return this.fail();
        if (++this.literalAt === this.literal.length) this.valueEnded();
        return true;
      default:
        return this.fail();
    }
  }

  private fail(): boolean {
    this.state = FAILED;
    return true;
  }

  private startValue(b: number): boolean {
    const field = this.depth === 1 ? this.key : undefined;
    this.key = undefined;
    if (b === 0x22) {
      this.isKey = false;
      this.valueField = field;
      this.startString(field === 'content' ? CONTENT : field !== undefined ? SMALL : SKIP);
      return true;
    }
    if (field !== undefined) this.setField(field, NOT_A_STRING);
    if (b === 0x7b || b === 0x5b) {
      if (this.depth === 0 && b === 0x7b) this.topIsObject = true;
      if (this.depth === this.stack.length) {
        const bigger = new Uint8Array(this.stack.length * 2);
        bigger.set(this.stack);
        this.stack = bigger;
      }
      this.stack[this.depth++] = b === 0x7b ? 0 : 1;
      this.state = b === 0x7b ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
      return true;
    }
    if (b === 0x2d || isDigit(b)) {
      this.state = NUMBER;
      this.numberState = b === 0x2d ? N_MINUS : b === 0x30 ? N_ZERO : N_INT;
      return true;
    }
    const literal = b === 0x74 ? 'true' : b === 0x66 ? 'false' : b === 0x6e ? 'null' : undefined;
    if (literal === undefined) return this.fail();
    this.state = LITERAL;
    this.literal = literal;
    this.literalAt = 1;
    return true;
  }

  private numberByte(b: number): boolean {
    const s = this.numberState;
    if (isDigit(b)) {
      if (s === N_MINUS) this.numberState = b === 0x30 ? N_ZERO : N_INT;
      else if (s === N_ZERO) return this.fail();
      else if (s === N_DOT) this.numberState = N_FRAC;
      else if (s === N_E || s === N_E_SIGN) this.numberState = N_EXP;
      return true;
    }
    if (b === 0x2e && (s === N_ZERO || s === N_INT)) {
      this.numberState = N_DOT;
      return true;
    }
    if ((b === 0x65 || b === 0x45) && (s === N_ZERO || s === N_INT || s === N_FRAC)) {
      this.numberState = N_E;
      return true;
    }
    if ((b === 0x2b || b === 0x2d) && s === N_E) {
      this.numberState = N_E_SIGN;
      return true;
    }
    if ((s & 1) === 0) return this.fail();
    // The byte after a number belongs to what follows it.
    this.valueEnded();
    return false;
  }

  private close(kind: 0 | 1): boolean {
    if (this.stack[this.depth - 1] !== kind) return this.fail();
    this.depth--;
    this.valueEnded();
    return true;
  }

  private valueEnded(): void {
    this.state = AFTER;
  }

  private setField(name: string, value: string | typeof NOT_A_STRING): void {
    if (name !== 'content') this.values.set(name, value);
    else {
      this.dropContent();
      this.content = NOT_A_STRING;
    }
  }

  private startString(target: number): void {
    this.state = STRING;
    this.target = target;
    if (target === TOP_KEY || target === SMALL) this.small = new SmallString();
    else if (target === CONTENT) {
      // The last `content` wins, as in JSON.parse; the file's bytes never outnumber the body's rest.
      this.dropContent();
      const left = this.sizeHint === undefined ? 0 : this.sizeHint - this.consumed;
      this.content = new ContentBytes(Math.max(1 << 16, left > 0 ? left : 1 << 20));
    }
  }

  private addRaw(bytes: Uint8Array, from: number, to: number): void {
    if (this.target === SKIP) return;
    if (this.target === CONTENT) (this.content as ContentBytes).addRaw(bytes, from, to);
    else this.addSmallRaw(bytes, from, to);
  }

  private addSmallRaw(bytes: Uint8Array, from: number, to: number): void {
    const s = this.small as SmallString;
    if (this.target === TOP_KEY && s.size + (to - from) > KEY_CAP) this.target = SKIP;
    else s.addRaw(bytes, from, to);
  }

  private addUnit(unit: number): void {
    if (this.target === CONTENT) (this.content as ContentBytes).addUnit(unit);
    else if (this.target !== SKIP) {
      const s = this.small as SmallString;
      if (this.target === TOP_KEY && s.size + 1 > KEY_CAP) this.target = SKIP;
      else s.addUnit(unit);
    }
  }

  private endString(): void {
    if (this.isKey) {
      this.key = undefined;
      if (this.target === TOP_KEY) {
        const name = (this.small as SmallString).value();
        if (name === 'content' || SMALL_FIELDS.has(name)) this.key = name;
      }
      this.state = COLON;
    } else {
      if (this.target === SMALL) {
        if (this.valueField !== undefined) this.values.set(this.valueField, (this.small as SmallString).value());
      } else if (this.target === CONTENT) (this.content as ContentBytes).endPending();
      this.valueEnded();
    }
    this.small = undefined;
    this.target = SKIP;
  }
}

/**
 * The file's text from its bytes: decoded whole as JSON.parse would have (invalid sequences as
 * U+FFFD), lone surrogate escapes put back where they stood. The bytes stay for the digest and the
 * compressed copy only when they are exactly the UTF-8 of that text.
 */
function decodeContent(content: ContentBytes): IngestBodyFile {
  const whole = Buffer.from(content.buffer.buffer, 0, content.length);
  const release = () => content.free();
  const lone = content.lone;
  if (lone.length === 0) {
    const text = whole.toString('utf8');
    if (isUtf8(whole)) return { text, bytes: whole, release };
    release();
    return { text, bytes: undefined, release() {} };
  }
  // Rare (a hand-made body): the pieces between lone surrogates, each decoded on its own, which is
  // how the whole text decoded them (an escape's backslash ends any unfinished sequence before it).
  let text = '';
  let at = 0;
  for (let k = 0; k < lone.length; k += 2) {
    const pos = lone[k] as number;
    text += whole.toString('utf8', at, pos) + String.fromCharCode(lone[k + 1] as number);
    at = pos;
  }
  text += whole.toString('utf8', at);
  release();
  return { text, bytes: undefined, release() {} };
}
