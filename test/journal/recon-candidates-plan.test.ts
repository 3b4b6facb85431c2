/**
 * Reconciliation candidates come from the open lines, through indexes, never the company's history
 * (issue 21): a company with 20,000 documents of settled history and three payments in flight; the
 * candidate statements (the lines the entries name, and every open line) are explained with
 * sequential scans disabled, and fail on a sequential scan left over a company table or on more
 * rows read than the lines in flight.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { generateJournal } from '../../bench/support/journal-generator.ts';
import { listReconCandidates } from '../../src/db/repositories/recon-lines.ts';
import { NO_RETURNS } from '../../src/domain/recon/statement-match.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { deliverNow } from '../support/deliver.ts';
import { explain, findings, recordStatements } from '../support/query-plans.ts';

const COMPANY_ROWS = new Set(['journal_documents', 'payment_lines']);
const LIMITS = { maxSorted: 100, maxExamined: 100 };

let t: TestApp;
let a: Awaited<ReturnType<typeof provisionAndLogin>>;
let client: pg.Client;
const inFlight: string[] = [];

before(async () => {
  t = await startTestApp();
  a = await provisionAndLogin(t);
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await generateJournal(client, a, { documents: 20_000, tag: 'rc', rebuildIndexes: true });
  for (let i = 1; i <= 3; i++) {
    const e2e = `E2E-OPEN-${i}`;
    const body = JSON.parse(
      JSON.stringify(a.firstPayment.body)
        .replace(/SANDBOX-(\d{8})-0001/g, `OPEN-$1-${i}`)
        .replaceAll('E2E-0001', e2e)
        .replaceAll('PMT-0001', `PMT-OPEN-${i}`),
    ) as Record<string, unknown>;
    const res = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { 'x-api-key': a.apiKey, 'idempotency-key': `OPEN-${i}` },
      payload: { ...body, companyId: a.companyId },
    });
    assert.equal(res.statusCode, 201, res.body);
    // Delivered: only then does a host-to-host document take the bank's evidence.
    await deliverNow(t.ctx, a, (res.json() as { id: string }).id);
    inFlight.push(e2e);
  }
  await client.query('VACUUM ANALYZE');
});
after(async () => {
  await client.end();
  await t.close();
});

async function planOf(run: () => Promise<unknown>) {
  const recording = recordStatements(t.ctx.db.$client);
  await run();
  const statements = recording.stop();
  assert.equal(statements.length, 1);
  return findings(await explain(client, statements[0]!), COMPANY_ROWS, LIMITS);
}

test('the lines a statement names by end-to-end id: an index lookup, whatever the history', async () => {
  const scope = { platformId: a.platformId, companyId: a.companyId };
  const named = await listReconCandidates(t.ctx.db, scope, 'test', new Date(), NO_RETURNS, {
    openNamed: [inFlight[1]!],
  });
  assert.deepEqual(
    named.map((c) => c.endToEndId),
    [inFlight[1]],
  );
  const found = await planOf(() =>
    listReconCandidates(t.ctx.db, scope, 'test', new Date(), NO_RETURNS, { openNamed: [inFlight[1]!] }),
  );
  assert.deepEqual(found, []);
});

test('every open line: the lines in flight through payment_lines_open_idx, not the settled history', async () => {
  const scope = { platformId: a.platformId, companyId: a.companyId };
  const open = await listReconCandidates(t.ctx.db, scope, 'test', new Date(), NO_RETURNS);
  assert.deepEqual(open.map((c) => c.endToEndId).sort(), [...inFlight].sort());
  const found = await planOf(() => listReconCandidates(t.ctx.db, scope, 'test', new Date(), NO_RETURNS));
  assert.deepEqual(found, []);
  // Lines past their answer window are no candidates either.
  const later = new Date(Date.now() + 400 * 86_400_000);
  assert.deepEqual(await listReconCandidates(t.ctx.db, scope, 'test', later, NO_RETURNS), []);
});

test('what returns name (instruction ids, amount and payee account): index lookups, whatever the history', async () => {
  const scope = { platformId: a.platformId, companyId: a.companyId };
  const today = new Date().toISOString().slice(0, 10);
  const returns = {
    endToEndIds: ['E2E-1-1'],
    instructionIds: ['NO-SUCH-INSTR'],
    // The payments in flight: 125.50 EUR to the sandbox payee; the history pays other amounts to another account.
    unidentified: [
      { counterpartyIban: 'FI5542345670000081', currency: 'EUR', amountsMinor: [12550n], bookingDate: today },
    ],
  };
  const found = await listReconCandidates(t.ctx.db, scope, 'test', new Date(Date.now() + 400 * 86_400_000), returns);
  assert.deepEqual(found.map((c) => c.endToEndId).sort(), [...inFlight].sort());
  const recording = recordStatements(t.ctx.db.$client);
  await listReconCandidates(t.ctx.db, scope, 'test', new Date(), returns);
  const statements = recording.stop();
  assert.equal(statements.length, 2, 'the lines named by identifiers, then those by amount and account');
  for (const statement of statements)
    assert.deepEqual(findings(await explain(client, statement), COMPANY_ROWS, LIMITS), [], statement.text);
});
