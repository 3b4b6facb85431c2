/**
 * The ingest body is read as it streams (src/app/bank-files/ingest-body.ts) instead of decoded and
 * `JSON.parse`d whole; the answer must be the one the whole parse gave: the same syntax errors, the
 * same fields and issues, the same file text, for any body cut into any chunks. The oracle below is
 * the reading the route did before (UTF-8 text, JSON.parse, the schema's checks).
 */
import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { checkIngestFields, type IngestBodyRead, IngestBodyReader } from '../../src/app/bank-files/ingest-body.ts';
import { receivedFileOf, receivedFileOfText } from '../../src/app/bank-files/prepare-file.ts';

type Outcome =
  | { ok: true; fields: unknown; text: string; bytesKept: boolean }
  | { ok: false; code: string; details?: unknown };

const failure = (e: { code: string; details?: unknown }): Outcome =>
  e.details === undefined ? { ok: false, code: e.code } : { ok: false, code: e.code, details: e.details };

function oracle(body: Uint8Array): Outcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return { ok: false, code: 'invalid_json' };
  }
  const checked = checkIngestFields(parsed);
  if (!checked.ok) return failure(checked);
  const text = (parsed as { content: string }).content;
  // The digest and compressed copy come from the bytes whenever the text is their exact UTF-8.
  return { ok: true, fields: checked.fields, text, bytesKept: isUtf8(body) && text.isWellFormed() };
}

function streamed(body: Uint8Array, cuts: number[], declared: boolean): Outcome {
  const reader = new IngestBodyReader(declared ? body.length : undefined);
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (body.length + 1)).sort((a, b) => a - b), body.length]) {
    // Each chunk in its own buffer, as a socket hands them over.
    reader.push(new Uint8Array(body.subarray(at, cut)));
    at = cut;
  }
  const read: IngestBodyRead = reader.end();
  if (!read.ok) return failure(read);
  const { text, bytes } = read.file;
  // Bytes are kept only when they are exactly the text's UTF-8 (the digest and copy are made of them).
  if (bytes) {
    assert.ok(Buffer.from(text, 'utf8').equals(Buffer.from(bytes)), 'the kept bytes are the UTF-8 of the text');
    const received = receivedFileOf(bytes);
    assert.equal(received.digest, createHash('sha256').update(text, 'utf8').digest('hex'));
    // The worker makes the copy from the text once the bytes are freed: it unzips to the same bytes
    // (an empty file's copy is empty either way: no run, no gzip member).
    const unzipped = (b: Buffer) => (b.length === 0 ? b : gunzipSync(b));
    assert.ok(unzipped(receivedFileOfText(received.digest, text).gzipped).equals(unzipped(received.gzipped)));
  }
  read.file.release();
  return { ok: true, fields: read.fields, text, bytesKept: bytes !== undefined };
}

const check = (body: Uint8Array, cuts: number[], declared = true) =>
  assert.deepEqual(streamed(body, cuts, declared), oracle(body), Buffer.from(body).toString('latin1'));

/** JSON-ish fragments, valid and not: the grammar's corners, escapes, surrogates, bad UTF-8. */
const piece = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    ' ',
    '\n',
    '\t',
    '"',
    '\\',
    'true',
    'fals',
    'null',
    '-',
    '0',
    '01',
    '1.5e+3',
    '1.',
    '.5',
    '2E-',
    '"companyId"',
    '"content"',
    '"environment"',
    '"bankKey"',
    '"platformId"',
    '"co\\u006etent"',
    '"test"',
    '"production"',
    '\\u',
    '\\ud83d',
    '\\ude00',
    '\\ud800',
    '\\n',
    '\\"',
    '\\/',
    '\\x',
    '\u00e9',
    '\u20ac',
    '\u{1f600}',
    '\u0001',
    '\u007f',
  ),
  fc.string({ maxLength: 6 }),
  fc.uint8Array({ minLength: 1, maxLength: 3 }).map((b) => Buffer.from(b).toString('latin1')),
);

const toBytes = (parts: string[]) =>
  Buffer.concat(parts.map((p) => (/^[\x80-\xff]+$/.test(p) ? Buffer.from(p, 'latin1') : Buffer.from(p, 'utf8'))));

test('random fragments: the streaming reader answers as JSON.parse of the whole text does', () => {
  fc.assert(
    fc.property(
      fc.array(piece, { maxLength: 30 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.boolean(),
      (parts, cuts, declared) => check(toBytes(parts), cuts, declared),
    ),
    { seed: 2026, numRuns: 3000 },
  );
});

/** Well-formed bodies around a generated file text, with the other fields and noise around them. */
const bodies = fc
  .record({
    content: fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.string()),
    companyId: fc.oneof(fc.string({ maxLength: 70 }), fc.integer(), fc.constant(null)),
    environment: fc.option(fc.constantFrom('test', 'production', 'prod', 7), { nil: undefined }),
    bankKey: fc.option(fc.string({ unit: 'binary', maxLength: 66 }), { nil: undefined }),
    extra: fc.option(fc.jsonValue(), { nil: undefined }),
    duplicate: fc.option(fc.oneof(fc.string(), fc.jsonValue()), { nil: undefined }),
  })
  .map(({ duplicate, ...fields }) => {
    const json = JSON.stringify(fields);
    // A repeated `content` key: the last one counts.
    return duplicate === undefined ? json : `${json.slice(0, -1)},"content":${JSON.stringify(duplicate)}}`;
  });

test('generated bodies (any text, lone surrogates, duplicate keys, nested values): same fields and text', () => {
  fc.assert(
    fc.property(bodies, fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), (json, cuts, declared) =>
      check(Buffer.from(json, 'utf8'), cuts, declared),
    ),
    { seed: 2026, numRuns: 1500 },
  );
});

test("the grammar's corners, each cut at every byte", () => {
  const cases = [
    '',
    '  ',
    '{]',
    '[}',
    '[1}',
    '{"a":1]',
    '[1,]',
    '{"a":1,}',
    '{"a" 1}',
    '{,}',
    '"text"',
    '123',
    '-0.5e10',
    '-',
    '01',
    '[tru]',
    '{"companyId":"c","content":"x"}',
    '{"companyId":"c","content":"x"} x',
    '{"companyId":"c","content":"x"}\n\t ',
    '{"companyId":"c","content":"x","content":7}',
    '{"companyId":"c","content":7,"content":"y"}',
    '{"companyId":"c","nested":{"content":5},"content":"z"}',
    '{"companyId":"c","content":"a\\u0000"}',
    '{"companyId":"c","content":"a\u0000b"}',
    '{"companyId":"c","content":"\ud83d\ude00 \ud83d \ude00\ud83d"}',
    '{"companyId":"c","content":"\\ud83d\\ude00\\u00e9\\u20ac"}',
    '{"companyId":"c","content":"x","environment":null}',
    '{"companyId":"c","content":"x","environment":"test","bankKey":"b","platformId":"p"}',
    '{"comp\u0061nyId":"c","\u0063ontent":"x"}',
    '[{"companyId":"c","content":"x"}]',
    '{"companyId":"c","content":"x"}}',
  ];
  for (const c of cases) {
    const body = Buffer.from(c, 'utf8');
    for (let cut = 0; cut <= body.length; cut++) check(body, [cut]);
  }
  check(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"companyId":"c","content":"x"}')]), []);
});

test('invalid UTF-8 inside the file, split across chunks, decodes as the whole text did', () => {
  const body = Buffer.concat([
    Buffer.from('{"companyId":"c","content":"a'),
    Buffer.from([0xe2, 0x82]),
    Buffer.from('\\u00ac'),
    Buffer.from([0xf0, 0x9f, 0x98]),
    Buffer.from('x\\ud83d'),
    Buffer.from([0xed, 0xa0, 0x80, 0xc3]),
    Buffer.from('"}'),
  ]);
  for (let cut = 0; cut <= body.length; cut++) check(body, [cut]);
  const read = streamed(body, [], true);
  assert.ok(read.ok && read.text.includes('\ufffd'));
});

test('a copy made from the text unzips to its UTF-8, surrogate pairs and multibyte characters across its 1 MB runs', () => {
  const run = 1 << 20;
  const text = `${'a'.repeat(run - 1)}\ud83d\ude00${'\u00e9\u20ac'.repeat(run / 2)}${'b'.repeat(run - 3)}\ud83d\ude00z`;
  const bytes = Buffer.from(text, 'utf8');
  const received = receivedFileOfText('d', text);
  assert.ok(gunzipSync(received.gzipped).equals(bytes));
  assert.ok(gunzipSync(receivedFileOf(bytes).gzipped).equals(bytes));
});
