import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { convertCommand, validateCommand } from '../../src/app/conversion/cli.ts';
import {
  bankPaymentTypes,
  bankStatus,
  connectivityProfiles,
  convertPayment,
  getProfile,
  listPaymentTypes,
  listProfiles,
} from '../../src/domain/conversion/index.ts';
import { samplePayment } from './fixtures.ts';

test('profiles: at least 15 banks across FI, SE, NO, DK, PL, DE plus demo; one unsupported', () => {
  const profiles = listProfiles();
  assert.ok(profiles.length >= 16);
  assert.deepEqual([...new Set(profiles.map((p) => p.countryCode))].sort(), ['DE', 'DK', 'FI', 'NO', 'PL', 'SE']);
  assert.ok(profiles.some((p) => p.key === 'demo' && p.deliveryMode === 'host-to-host'));
  assert.ok(profiles.some((p) => p.unsupported?.reason));
  assert.equal(getProfile('nope'), undefined);
  assert.equal(getProfile('op')?.painVersion, 'pain.001.001.09');
});

test('catalog: at least 20 types with requires, channel and ISO encoding', () => {
  const types = listPaymentTypes();
  assert.ok(types.length >= 20);
  for (const t of types) {
    assert.ok(t.requires.length > 0 && t.channel && t.isoEncoding, t.code);
  }
  assert.deepEqual(types.find((t) => t.code === 'SEPA_INST')?.isoEncoding, {
    serviceLevel: 'SEPA',
    localInstrument: { cd: 'INST' },
  });
});

test('bank payment types carry the bank overrides; status and connectivity', () => {
  assert.deepEqual(bankPaymentTypes('danske-dk')?.find((t) => t.code === 'SAME_DAY')?.isoEncoding.localInstrument, {
    cd: 'SDCL',
  });
  assert.equal(bankPaymentTypes('nope'), undefined);
  assert.equal(bankStatus('pekao-pl')?.status, 'unsupported');
  assert.equal(bankStatus('op')?.status, 'supported');
  const conn = connectivityProfiles();
  assert.equal(conn.length, listProfiles().length);
  assert.equal(conn.find((c) => c.bankKey === 'nordea-fi')?.activation?.kind, 'SMS_ACTIVATION_CODE');
  assert.equal(conn.find((c) => c.bankKey === 'op')?.activation?.kind, 'TRANSFER_KEY');
  assert.ok(conn.find((c) => c.bankKey === 'swedbank-se')?.sftpWizard?.fields.some((f) => f.name === 'host'));
});

test('flavour grouping: one PmtInf per transaction or per currency where the bank demands it', () => {
  const now = new Date('2026-11-21T08:55:00Z');
  const split = convertPayment(samplePayment('SE_BANKGIRO', 'SE', { transactions: 3 }), 'handelsbanken-se', { now });
  assert.ok(split.ok && split.value.ok);
  assert.deepEqual(
    [...split.value.xml.matchAll(/<PmtInfId>([^<]+)</g)].map((m) => m[1]),
    ['PMT-SE-BANKGIRO-1', 'PMT-SE-BANKGIRO-2', 'PMT-SE-BANKGIRO-3'],
  );
  const doc = samplePayment('INTRA_COMPANY', 'FI', { transactions: 3 }) as {
    payments: Array<{ transactions: Array<Record<string, unknown>> }>;
  };
  const tx = doc.payments[0]?.transactions[1];
  if (tx) {
    tx['currency'] = 'SEK';
    tx['amount'] = '10.00';
  }
  const byCcy = convertPayment(doc, 'nordea-fi', { now });
  assert.ok(byCcy.ok && byCcy.value.ok);
  assert.deepEqual(
    [...byCcy.value.xml.matchAll(/<CtrlSum>([^<]+)</g)].map((m) => m[1]),
    ['214.50', '204.50', '10.00'],
  );
  assert.deepEqual(byCcy.value.totals, [
    { currency: 'EUR', amount: '204.50' },
    { currency: 'SEK', amount: '10.00' },
  ]);
});

test('CLI convert and validate: XML to stdout, issues to stderr, exit codes 0/1/2', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cli-'));
  try {
    const good = path.join(dir, 'good.json');
    writeFileSync(good, JSON.stringify(samplePayment('SEPA_CT', 'FI')));
    const bad = path.join(dir, 'bad.json');
    const doc = samplePayment('SEPA_CT', 'FI') as { messageId?: string };
    delete doc.messageId;
    writeFileSync(bad, JSON.stringify(doc));
    const ok = await convertCommand(['op', good]);
    assert.equal(ok.exitCode, 0);
    assert.match(ok.stdout ?? '', /pain\.001\.001\.09/);
    const v03 = await convertCommand(['op', good, '--pain-version', 'pain.001.001.03']);
    assert.match(v03.stdout ?? '', /pain\.001\.001\.03/);
    const failed = await convertCommand(['op', bad]);
    assert.equal(failed.exitCode, 1);
    assert.match(failed.stderr ?? '', /"code":"required","level":"generic"/);
    assert.equal((await validateCommand(['op', good])).exitCode, 0);
    assert.equal((await validateCommand(['op', bad])).exitCode, 1);
    assert.equal((await convertCommand(['op'])).exitCode, 2);
    assert.equal((await convertCommand(['nope', good])).exitCode, 2);
    assert.equal((await convertCommand(['op', good, '--pain-version', 'x'])).exitCode, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('amounts beyond 2^53 minor units stay exact in InstdAmt, CtrlSum and totals', () => {
  const doc = samplePayment('XB_SWIFT', 'FI', { transactions: 2, amounts: ['9999999999999999.99', '0.01'] }) as {
    payments: Array<{ transactions: Array<Record<string, unknown>> }>;
  };
  const r = convertPayment(doc, 'nordea-fi', { now: new Date('2026-11-21T08:55:00Z') });
  assert.ok(r.ok && r.value.ok, JSON.stringify(r.ok && !r.value.ok ? r.value.issues : r));
  assert.match(r.value.xml, /<InstdAmt Ccy="USD">9999999999999999.99<\/InstdAmt>/);
  assert.deepEqual(
    [...r.value.xml.matchAll(/<CtrlSum>([^<]+)</g)].map((m) => m[1]),
    ['10000000000000000.00', '10000000000000000.00'],
  );
  assert.deepEqual(r.value.totals, [{ currency: 'USD', amount: '10000000000000000.00' }]);
});
