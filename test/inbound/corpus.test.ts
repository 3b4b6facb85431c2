import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { type NormalisedStatement, type ParseBankFileResult, parseBankFile } from '../../src/domain/inbound/index.ts';
import { sharedCorpusMissing } from '../support/shared-corpus.ts';
import { type CorpusFile, EXCEPTIONS, expectedOutcome, loadCorpus } from './corpus-expectations.ts';

/**
 * Every camt, pain.002 and MT940 file of ../shared/corpus: files the provenance marks broken (or that
 * are field snippets, not statements) are refused with a typed error; every other file parses, and its
 * entry counts and balances are checked against the file itself, read by an independent parser
 * (fast-xml-parser for XML, line regexes for MT940).
 */
const files = loadCorpus(['camt052', 'camt053', 'camt054', 'pain002', 'mt940']);

// --- independent readers -----------------------------------------------------------------------

type Raw = Record<string, unknown>;
const fxp = new XMLParser({
  ignoreAttributes: false,
  removeNSPrefix: true,
  parseTagValue: false,
  processEntities: true,
  isArray: (name) => ['Stmt', 'Rpt', 'Ntfctn', 'Ntry', 'Bal', 'TxInfAndSts', 'OrgnlPmtInfAndSts'].includes(name),
});

function findKey(node: unknown, keys: string[]): Raw | undefined {
  if (!node || typeof node !== 'object') return undefined;
  for (const [k, v] of Object.entries(node as Raw)) {
    if (keys.includes(k)) return v as Raw;
    const found = findKey(v, keys);
    if (found) return found;
  }
  return undefined;
}

const text = (v: unknown): string =>
  (v && typeof v === 'object' ? String((v as Raw)['#text'] ?? '') : String(v ?? '')).trim();

/** Exact decimal in 1e-5 units (5 is the most any ISO 20022 amount has). */
function units(s: string): bigint {
  const [w = '0', f = ''] = s.replace(',', '.').split('.');
  return BigInt(w || '0') * 100000n + BigInt((f + '00000').slice(0, 5));
}

type RawBalance = { type: string; amount: bigint; debit: boolean };

function camtBlocks(xml: string): { entries: number; balances: RawBalance[] }[] {
  const message = findKey(fxp.parse(xml), [
    'BkToCstmrStmt',
    'BkToCstmrAcctRpt',
    'BkToCstmrDbtCdtNtfctn',
    'BkToCstmrStmtV01',
    'BkToCstmrAcctRptV01',
    'BkToCstmrDbtCdtNtfctnV01',
  ]);
  assert.ok(message, 'independent parser finds the message');
  const blocks = (message.Stmt ?? message.Rpt ?? message.Ntfctn ?? []) as Raw[];
  return blocks.map((b) => ({
    entries: ((b.Ntry as unknown[]) ?? []).length,
    balances: ((b.Bal as Raw[]) ?? []).map((bal) => {
      const cd = (bal.Tp as Raw)?.CdOrPrtry as Raw;
      return { type: text(cd?.Cd ?? cd?.Prtry), amount: units(text(bal.Amt)), debit: text(bal.CdtDbtInd) === 'DBIT' };
    }),
  }));
}

function latin1(bytes: Uint8Array): string {
  return new TextDecoder('latin1').decode(bytes).replace(/[\x01\x03\x1a]/g, '\n');
}

// --- checks ------------------------------------------------------------------------------------

/** opening + booked entries in the account currency = closing, recomputed from the transactions. */
function balancesAddUp(s: NormalisedStatement): boolean | undefined {
  const o = s.openingBalance;
  const c = s.closingBalance;
  if (!o || !c || o.currency !== c.currency) return undefined;
  const seen = new Set<number>();
  let sum = o.direction === 'debit' ? -units(o.amount) : units(o.amount);
  for (const t of s.transactions) {
    if (seen.has(t.entryIndex)) continue;
    seen.add(t.entryIndex);
    if (t.status !== 'booked' || t.entryCurrency !== o.currency) continue;
    sum += t.entryDirection === 'credit' ? units(t.entryAmount) : -units(t.entryAmount);
  }
  return sum === (c.direction === 'debit' ? -units(c.amount) : units(c.amount));
}

function checkStatementInvariants(f: CorpusFile, s: NormalisedStatement, warnings: { code: string }[]): void {
  const indexes = new Set(s.transactions.map((t) => t.entryIndex));
  assert.equal(indexes.size, s.entryCount, `${f.file}: every entry has transactions`);
  for (const t of s.transactions) {
    for (const a of [t.amount, t.entryAmount, t.originalAmount, t.chargeAmount]) {
      if (a !== null) assert.match(a, /^\d+(\.\d+)?$/, `${f.file}: amounts are decimal strings`);
    }
  }
  const adds = balancesAddUp(s);
  const unpaired = warnings.some((w) => w.code === 'missing_balance' || w.code === 'currency_mismatch');
  if (adds !== undefined && !unpaired && s.sourceFormat !== 'MT942') {
    assert.equal(
      warnings.some((w) => w.code === 'balance_mismatch'),
      !adds,
      `${f.file}: balance_mismatch warning iff opening + entries != closing`,
    );
  }
}

function checkCamt(f: CorpusFile, bytes: Uint8Array, r: Extract<ParseBankFileResult, { kind: 'statement' }>): void {
  const raw = camtBlocks(new TextDecoder().decode(bytes));
  assert.equal(r.blocks.length, raw.length, `${f.file}: one block per Stmt/Rpt/Ntfctn`);
  r.blocks.forEach((b, i) => {
    if (!b.ok) return;
    const rb = raw[i] as (typeof raw)[number];
    assert.equal(b.statement.entryCount, rb.entries, `${f.file}: entry count = number of Ntry`);
    assert.equal(b.statement.balances.length, rb.balances.length, `${f.file}: every Bal is kept`);
    for (const which of [b.statement.openingBalance, b.statement.closingBalance]) {
      if (!which) continue;
      const match = rb.balances.find(
        (x) =>
          which.type.startsWith(x.type) &&
          x.amount === units(which.amount) &&
          x.debit === (which.direction === 'debit'),
      );
      assert.ok(match, `${f.file}: ${which.type} ${which.amount} is a balance of the file`);
    }
    checkStatementInvariants(f, b.statement, b.warnings);
  });
}

function checkMt(f: CorpusFile, bytes: Uint8Array, r: Extract<ParseBankFileResult, { kind: 'statement' }>): void {
  const src = latin1(bytes);
  const fileEntries = (src.match(/^:61:/gm) ?? []).length;
  const fileBalances = [...src.matchAll(/^:6[02][FM]:([CD])\d{6}(?:[A-Z]{3})?([\d ,.]+)/gm)].map((m) => ({
    debit: m[1] === 'D',
    amount: units((m[2] ?? '').replace(/ /g, '')),
  }));
  if (r.blocks.every((b) => b.ok)) {
    const ours = r.blocks.reduce((n, b) => n + (b.ok ? b.statement.entryCount : 0), 0);
    assert.equal(ours, fileEntries, `${f.file}: entry count = number of :61: lines`);
  }
  for (const b of r.blocks) {
    if (!b.ok) continue;
    for (const which of [b.statement.openingBalance, b.statement.closingBalance]) {
      if (!which) continue;
      assert.ok(
        fileBalances.some((x) => x.amount === units(which.amount) && x.debit === (which.direction === 'debit')),
        `${f.file}: ${which.type} ${which.amount} is a :60:/:62: balance of the file`,
      );
    }
    checkStatementInvariants(f, b.statement, b.warnings);
  }
}

function checkPain002(
  f: CorpusFile,
  bytes: Uint8Array,
  r: Extract<ParseBankFileResult, { kind: 'status-report' }>,
): void {
  const src = new TextDecoder().decode(bytes);
  const txCount = (src.match(/<(?:\w+:)?TxInfAndSts>/g) ?? []).length;
  const ours = r.report.paymentGroups.reduce((n, g) => n + g.transactions.length, 0);
  assert.equal(ours, txCount, `${f.file}: one status transaction per TxInfAndSts`);
  assert.equal(
    r.report.rejectedTransactions.length + r.report.acceptedTransactions.length + r.report.pendingTransactions.length,
    ours,
  );
  const grp = /<(?:\w+:)?GrpSts>\s*([A-Z]{4})\s*</.exec(src);
  assert.equal(r.report.groupStatusCode, grp ? grp[1] : null, `${f.file}: group status`);
}

describe('shared corpus', { skip: sharedCorpusMissing }, () => {
  for (const f of files) {
    const expected = expectedOutcome(f);
    test(`${f.folder}/${f.file} is ${expected}`, () => {
      const bytes = readFileSync(f.full);
      const r = parseBankFile(bytes);
      if (expected === 'refused') {
        assert.equal(r.ok, false, `${f.file} (${f.description}) must be refused`);
        if (!r.ok) {
          assert.ok(['empty', 'unrecognised_format', 'unparseable_file'].includes(r.error.code));
          assert.ok(r.error.message.length > 10, 'the refusal says why');
        }
        return;
      }
      assert.equal(r.ok, true, `${f.file} must parse: ${r.ok ? '' : `${r.error.code} ${r.error.message}`}`);
      if (!r.ok) return;
      if (r.kind === 'status-report') {
        checkPain002(f, bytes, r);
        return;
      }
      const failed = r.blocks.filter((b) => !b.ok);
      if (expected === 'partial') {
        assert.ok(failed.length > 0 && failed.length < r.blocks.length, 'some, not all, blocks quarantined');
        assert.ok(r.alerts.length > 0, 'a file-level alert says the file was incomplete');
      } else {
        assert.deepEqual(
          failed.map((b) => (b.ok ? '' : b.message)),
          [],
          `${f.file}: no block quarantined`,
        );
      }
      if (f.folder.startsWith('camt')) checkCamt(f, bytes, r);
      else checkMt(f, bytes, r);
    });
  }

  test('every exception names a corpus file', () => {
    for (const key of Object.keys(EXCEPTIONS))
      assert.ok(
        files.some((f) => `${f.folder}/${f.file}` === key),
        key,
      );
  });
});
