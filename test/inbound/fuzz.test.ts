import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type ParseBankFileResult, parseBankFile } from '../../src/domain/inbound/index.ts';
import { sharedCorpusMissing } from '../support/shared-corpus.ts';
import { loadCorpus } from './corpus-expectations.ts';

/**
 * Property tests: whatever the bytes, parseBankFile returns a typed result (never throws, never reports
 * an internal error), and its work grows linearly with the input. Seeds are fixed so a failure
 * reproduces; the run is bounded to a few seconds per property.
 */
const corpus = loadCorpus(['camt052', 'camt053', 'camt054', 'pain002', 'mt940']).map((f) => readFileSync(f.full));

const CODES = new Set(['empty', 'unrecognised_format', 'unparseable_file', 'too_large']);

function assertTyped(r: ParseBankFileResult): void {
  if (r.ok) {
    if (r.kind === 'statement') {
      for (const b of r.blocks) {
        if (!b.ok) assert.equal(typeof b.message, 'string');
        else for (const t of b.statement.transactions) if (t.amount !== null) assert.match(t.amount, /^\d+(\.\d+)?$/);
      }
    } else assert.equal(typeof r.report.sourceFormat, 'string');
    return;
  }
  assert.ok(CODES.has(r.error.code), r.error.code);
  assert.ok(!r.error.message.startsWith('internal parser error'), r.error.message);
}

function safeParse(bytes: Uint8Array): ParseBankFileResult {
  try {
    return parseBankFile(bytes);
  } catch (e) {
    assert.fail(`parseBankFile threw: ${e instanceof Error ? e.stack : String(e)}`);
  }
}

// Mutations that hit the parsers' sensitive spots: markup characters, tags, entities, cuts and repeats.
const INSERTS = [
  '<',
  '>',
  '&',
  '&amp;',
  '&#0;',
  '&#x110000;',
  '<!DOCTYPE x>',
  '<![CDATA[',
  ']]>',
  '<!--',
  '\n:61:',
  '\n:20:',
  '\n:86:?',
  '\n-}',
  '{4:',
  '\x00',
  '\xff',
  '\u{1F600}',
  '/EREF/',
  '?2',
];

const mutation = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 200 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom(...INSERTS) }),
  fc.record({
    kind: fc.constant('repeat' as const),
    at: fc.nat(),
    len: fc.integer({ min: 1, max: 300 }),
    times: fc.integer({ min: 2, max: 5 }),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(src: Uint8Array, ms: Mutation[]): Uint8Array {
  let b = Buffer.from(src);
  for (const m of ms) {
    const at = b.length === 0 ? 0 : m.at % b.length;
    switch (m.kind) {
      case 'flip':
        if (b.length) b[at] = m.byte;
        break;
      case 'cut':
        b = Buffer.concat([b.subarray(0, at), b.subarray(at + m.len)]);
        break;
      case 'insert':
        b = Buffer.concat([b.subarray(0, at), Buffer.from(m.text, 'utf8'), b.subarray(at)]);
        break;
      case 'repeat': {
        const part = b.subarray(at, at + m.len);
        b = Buffer.concat([b.subarray(0, at), ...Array.from({ length: m.times }, () => part), b.subarray(at)]);
        break;
      }
      case 'truncate':
        b = b.subarray(0, at);
        break;
    }
  }
  return b;
}

describe('fuzzing', () => {
  test('random bytes give a typed result', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (bytes) => assertTyped(safeParse(bytes))),
      { numRuns: 3000, seed: 20261121 },
    );
  });

  test('random text shaped like bank files gives a typed result', () => {
    const token = fc.constantFrom(
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">',
      '<BkToCstmrStmt>',
      '<Stmt>',
      '<Ntry>',
      '<Amt Ccy="EUR">',
      '1.00',
      '</Amt>',
      '</Ntry>',
      '</Stmt>',
      ':20:X\n',
      ':25:DE89370400440532013000\n',
      ':60F:C250101EUR1,00\n',
      ':61:2501010101C1,00NTRF\n',
      ':86:?20a\n',
      ':62F:C250101EUR2,00\n',
      '-\n',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), (tokens) => assertTyped(safeParse(Buffer.from(tokens.join(''))))),
      { numRuns: 4000, seed: 7 },
    );
  });

  test('mutated corpus files give a typed result', { skip: sharedCorpusMissing }, () => {
    fc.assert(
      fc.property(fc.nat({ max: corpus.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 6 }), (i, ms) => {
        assertTyped(safeParse(mutate(corpus[i] as Uint8Array, ms)));
      }),
      { numRuns: 15000, seed: 42 },
    );
  });
});

describe('linear time', () => {
  // Loose bound: 4x the input may take at most 8x the time (quadratic work would take 16x; these
  // parsers measure about 5x). Both sizes are timed in turn and each keeps its best run, so a slow
  // stretch of the shared machine (or the test file running on the other core) lands on both sides of
  // the ratio; a ratio over the bound is measured again, twice at most, since noise only ever makes it
  // look worse. It rules out blow-ups without fragile timings.
  const BOUND = 8;

  // CPU time of this process, not wall time: on a loaded machine a parse that waits for a core is not
  // charged for the wait, which swung the wall-clock ratio past the bound (seen at load average 20).
  function time(fn: () => void): number {
    const before = process.cpuUsage();
    fn();
    const spent = process.cpuUsage(before);
    return spent.user + spent.system;
  }

  /** Time(4n) / time(n) from the best of interleaved runs of each. */
  function ratioOnce(small: string, large: string): number {
    let bestSmall = Number.POSITIVE_INFINITY;
    let bestLarge = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 10; i++) {
      const s = time(() => parseBankFile(small));
      const l = time(() => parseBankFile(large));
      if (s < bestSmall) bestSmall = s;
      if (l < bestLarge) bestLarge = l;
    }
    return bestLarge / bestSmall;
  }

  function ratio(make: (n: number) => string, n: number): number {
    const small = make(n);
    const large = make(n * 4);
    for (let i = 0; i < 3; i++) {
      parseBankFile(small); // warm up the JIT on both sizes
      parseBankFile(large);
    }
    let least = ratioOnce(small, large);
    for (let retry = 0; retry < 2 && least >= BOUND; retry++) least = Math.min(least, ratioOnce(small, large));
    return least;
  }

  const camt = (n: number) =>
    `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>M</MsgId></GrpHdr><Stmt><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>${'<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><NtryDtls><TxDtls><Refs><EndToEndId>E</EndToEndId></Refs></TxDtls><TxDtls><Refs><EndToEndId>F</EndToEndId></Refs></TxDtls></NtryDtls></Ntry>'.repeat(n)}</Stmt></BkToCstmrStmt></Document>`;
  const mt940 = (n: number) =>
    `:20:R\n:25:DE89370400440532013000\n:28C:1/1\n:60F:C250101EUR0,00\n${':61:2501010101C1,00NTRFNONREF//B\n:86:/EREF/E/NAME/N/REMI/R\n'.repeat(n)}:62F:C250101EUR${n},00\n-\n`;
  const hostile = [
    [
      'unclosed tags',
      (n: number) =>
        `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">${'<a>'.repeat(Math.min(n, 60))}${'<'.repeat(n * 20)}`,
    ],
    [
      'entity storm',
      (n: number) =>
        `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>${'&amp;'.repeat(n * 20)}</MsgId></GrpHdr></BkToCstmrStmt></Document>`,
    ],
    [
      'long attribute',
      (n: number) =>
        `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02" a="${'"'.repeat(0)}${'x'.repeat(n * 40)}"></Document>`,
    ],
    [
      'endless :86: wrap',
      (n: number) =>
        `:20:R\n:25:X\n:28C:1\n:60F:C250101EUR0,00\n:61:2501010101C1,00NTRF\n:86:${'?20a/EREF/'.repeat(n * 10)}\n`,
    ],
    [
      'many distinct names',
      (n: number) =>
        `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">${Array.from({ length: n * 5 }, (_, i) => `<n${i}/>`).join('')}</Document>`,
    ],
  ] as const;

  test('camt.053 and MT940 parsing grow linearly', () => {
    assert.ok(ratio(camt, 2000) < BOUND, 'camt 4x input under 8x time');
    assert.ok(ratio(mt940, 2000) < BOUND, 'MT940 4x input under 8x time');
  });

  for (const [name, make] of hostile) {
    test(`hostile input (${name}) stays linear and typed`, () => {
      assertTyped(parseBankFile(make(5000)));
      assert.ok(ratio(make, 5000) < BOUND, `${name}: 4x input under 8x time`);
    });
  }
});
