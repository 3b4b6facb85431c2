/**
 * Reconciliation looks up its candidates by end-to-end id first (issue 21, docs/adr/0013): the
 * matcher is first given only the open lines the statement's entries name (payment_lines_e2e_idx),
 * and every open line of the answer window only when an entry is left that a later rule (reference
 * and amount, instruction id, batch total) may match. Six delivered payments are in flight; the
 * statements' entries are the real ones prepared from demo-bank camt.053 files, and the matcher
 * records the lines it is given on the way to the real one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { prepareFile } from '../../src/app/bank-files/prepare-file.ts';
import { reconcileStatement, type StatementEntries } from '../../src/app/recon/reconcile-statement.ts';
import { findDocument } from '../../src/db/repositories/journal-documents.ts';
import { deliveredFileOf, demoCamt053 } from '../../src/domain/demo-bank/index.ts';
import { matchStatement } from '../../src/domain/recon/statement-match.ts';
import type { ReconLine } from '../../src/domain/recon/types.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { deliverNow } from '../support/deliver.ts';

let t: TestApp;
let a: Awaited<ReturnType<typeof provisionAndLogin>>;
const docs: { id: string; e2e: string }[] = [];

before(async () => {
  t = await startTestApp();
  a = await provisionAndLogin(t);
  for (let i = 1; i <= 6; i++) {
    const e2e = `E2E-NF-${i}`;
    const body = JSON.parse(
      JSON.stringify(a.firstPayment.body)
        .replace(/SANDBOX-(\d{8})-0001/g, `NF-$1-${i}`)
        .replaceAll('E2E-0001', e2e)
        .replaceAll('PMT-0001', `PMT-NF-${i}`),
    ) as Record<string, unknown>;
    const res = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { 'x-api-key': a.apiKey, 'idempotency-key': `NF-${i}` },
      payload: { ...body, companyId: a.companyId },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = (res.json() as { id: string }).id;
    // Delivered: only then does a host-to-host document take the bank's evidence.
    await deliverNow(t.ctx, a, id);
    docs.push({ id, e2e });
  }
});
after(async () => {
  await t.close();
});

/** The demo bank's camt.053 booking these documents, with the end-to-end ids in `hide` not provided. */
async function statementFor(ids: string[], hide: string[] = []): Promise<string> {
  const files = [];
  for (const id of ids) {
    const doc = await findDocument(t.ctx.db, a, id);
    files.push(deliveredFileOf(JSON.parse(t.ctx.encryptor.decrypt(doc!.payloadSealed!)), doc!.sourceFormat));
  }
  let xml = demoCamt053(
    files,
    { messageId: `NF-STM-${ids[0]}`, statementId: `NF-${ids[0]}`, sequence: 1 },
    '2026-01-01T10:00:00Z',
  );
  for (const e2e of hide) xml = xml.replace(`<EndToEndId>${e2e}</EndToEndId>`, '<EndToEndId>NOTPROVIDED</EndToEndId>');
  return xml;
}

/** Reconciles the statement with its real entries; answers the lines the matcher was given, call by call. */
async function reconcile(xml: string) {
  const { file, kept } = prepareFile({ text: xml }, t.ctx.encryptor.sealingKey);
  assert.ok(file.ok && file.kind === 'statement');
  const block = file.blocks[0]!;
  assert.ok(block.ok);
  const calls: (string | null)[][] = [];
  const entries: StatementEntries = {
    hasEntries: block.hasEntries,
    returned: block.returned,
    named: block.named,
    match: async (lines: ReconLine[], context) => {
      calls.push(lines.map((l) => l.endToEndId));
      return matchStatement(lines, kept[0]!.entries, kept[0]!.sources, context);
    },
  };
  const recon = await t.ctx.db.transaction((tx) =>
    reconcileStatement(
      t.ctx,
      tx,
      a,
      { documentId: 'doc_nf_statement', entries, source: 'camt.053', environment: 'test' },
      [],
    ),
  );
  return { named: block.named, calls, recon };
}

test('entries that carry end-to-end ids: the matcher sees only the open lines they name', async () => {
  const { named, calls, recon } = await reconcile(await statementFor([docs[1]!.id]));
  assert.deepEqual(named, ['E2E-NF-2']);
  assert.deepEqual(calls, [['E2E-NF-2']]);
  assert.equal(recon.cleared, 1);
});

test('an entry without an end-to-end id: every open line, and it matches by reference and amount', async () => {
  const { named, calls, recon } = await reconcile(await statementFor([docs[2]!.id], ['E2E-NF-3']));
  assert.equal(named, null);
  assert.equal(calls.length, 1);
  // The five lines still open (the second was booked above).
  assert.deepEqual([...calls[0]!].sort(), ['E2E-NF-1', 'E2E-NF-3', 'E2E-NF-4', 'E2E-NF-5', 'E2E-NF-6']);
  assert.equal(recon.cleared, 1);
});

test('one entry named, one left for a later rule: the named lines first, then every open line', async () => {
  const { named, calls, recon } = await reconcile(await statementFor([docs[3]!.id, docs[4]!.id], ['E2E-NF-5']));
  assert.deepEqual(named, ['E2E-NF-4']);
  assert.deepEqual(calls[0], ['E2E-NF-4']);
  assert.equal(calls.length, 2);
  assert.deepEqual([...calls[1]!].sort(), ['E2E-NF-1', 'E2E-NF-4', 'E2E-NF-5', 'E2E-NF-6']);
  assert.equal(recon.cleared, 2);
});
