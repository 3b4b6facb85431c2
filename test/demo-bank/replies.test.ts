import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { demoCamt053, demoPain002 } from '../../src/domain/demo-bank/index.ts';
import type { DeliveredFile } from '../../src/domain/demo-bank/types.ts';
import { parseBankFile } from '../../src/domain/inbound/index.ts';

const file: DeliveredFile = {
  messageId: 'MSG-42',
  painVersion: 'pain.001.001.09',
  debtorIban: 'FI2112345600000785',
  debtorName: 'Sandbox & Co',
  executionDate: '2026-11-23',
  payments: [
    {
      paymentInfoId: 'PMT-1',
      transactions: [
        {
          endToEndId: 'E1',
          instructionId: 'I1',
          amount: '125.50',
          currency: 'EUR',
          creditorName: 'A Oy',
          creditorIban: 'FI5542345670000081',
          remittance: 'Invoice 1',
        },
        {
          endToEndId: 'E2',
          instructionId: null,
          amount: '10.00',
          currency: 'EUR',
          creditorName: 'B <Oy>',
          creditorIban: null,
          remittance: 'REJECT:AC04 please',
        },
        {
          endToEndId: 'E3',
          instructionId: null,
          amount: '0.05',
          currency: 'EUR',
          creditorName: 'C',
          creditorIban: null,
          remittance: null,
        },
      ],
    },
  ],
};

test('the pain.002 accepts, rejects on request, and parses through the real parser', () => {
  const parsed = parseBankFile(demoPain002(file, 'STS-1', '2026-11-23T10:00:00Z'));
  assert.ok(parsed.ok && parsed.kind === 'status-report', JSON.stringify(parsed).slice(0, 300));
  const report = parsed.report;
  assert.equal(report.originalMessageId, 'MSG-42');
  assert.equal(report.groupStatusCode, 'PART');
  assert.deepEqual(
    report.rejectedTransactions.map((t) => [t.endToEndId, t.statusCode, t.reasons[0]?.code]),
    [['E2', 'RJCT', 'AC04']],
  );
  assert.deepEqual(
    report.acceptedTransactions.map((t) => t.endToEndId),
    ['E1', 'E3'],
  );
});

test('the camt.053 books every accepted transaction and its balances add up', () => {
  const parsed = parseBankFile(
    demoCamt053(file, { messageId: 'STM-1', statementId: 'S-1', sequence: 7 }, '2026-11-23T10:00:00Z'),
  );
  assert.ok(parsed.ok && parsed.kind === 'statement');
  const block = parsed.blocks[0]!;
  assert.ok(block.ok);
  const st = block.statement;
  assert.deepEqual(
    st.transactions.map((t) => [t.endToEndId, t.amount, t.direction]),
    [
      ['E1', '125.50', 'debit'],
      ['E3', '0.05', 'debit'],
    ],
  );
  assert.equal(st.openingBalance?.amount, '1000000.00');
  assert.equal(st.closingBalance?.amount, '999874.45');
  assert.deepEqual(block.warnings, []);
});

test('the camt.053 is valid against the official camt.053.001.08 XSD', (t) => {
  const xsd = path.resolve(import.meta.dirname, '../../../shared/corpus/xsd/genkgo-camt__camt.053.001.08.xsd');
  if (!existsSync('/usr/bin/xmllint') || !existsSync(xsd))
    return t.skip('xmllint or the official XSD is not available');
  const xml = demoCamt053(file, { messageId: 'STM-1', statementId: 'S-1', sequence: 7 }, '2026-11-23T10:00:00Z');
  const r = spawnSync('/usr/bin/xmllint', ['--noout', '--schema', xsd, '-'], { input: xml, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});

test('same input, same bytes', () => {
  assert.equal(demoPain002(file, 'S', 'T'), demoPain002(file, 'S', 'T'));
});
