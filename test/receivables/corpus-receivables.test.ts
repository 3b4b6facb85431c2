import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { accountKeyOf } from '../../src/app/accounts/record-statement.ts';
import { insertExpected } from '../../src/db/repositories/receivables.ts';
import { parseBankFile } from '../../src/domain/inbound/index.ts';
import type { StatementTransaction } from '../../src/domain/inbound/types.ts';
import { isIncomingCredit } from '../../src/domain/receivables/incoming.ts';
import { entryOf } from '../../src/domain/recon/statement-entries.ts';
import { comparableReference } from '../../src/domain/references/creditor-reference.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { SHARED_CORPUS, sharedCorpusMissing } from '../support/shared-corpus.ts';

/**
 * The real statements of ../shared/corpus (read in place, never copied), each ingested into a company
 * of its own that expects the file's own credits (issue 39): every credit is one incoming payment, and
 * every expected payment built from a credit's evidence is matched by the rule that evidence is for
 * (its structured reference; its end-to-end id as the invoice number; its amount and counterparty
 * account). Credits whose evidence another credit of the file shares are left out: they are ambiguous
 * by construction.
 */
let t: TestApp;
let db: pg.Client;
let s: Awaited<ReturnType<typeof provisionAndLogin>>;
before(async () => {
  t = await startTestApp();
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  s = await provisionAndLogin(t);
});
after(async () => {
  await db.end();
  await t.close();
});

type Intended = { rule: string; key: string; fields: Record<string, string | null> };

function intendedOf(tx: StatementTransaction, counterpartyIban: string | null, amountMinor: bigint): Intended | null {
  if (tx.creditorReference) {
    const ref = comparableReference(tx.creditorReference);
    return { rule: 'structured-reference', key: `r:${ref}`, fields: { referenceValue: ref } };
  }
  if (tx.endToEndId && tx.endToEndId !== 'NOTPROVIDED') {
    const e2e = comparableReference(tx.endToEndId);
    return { rule: 'end-to-end-id', key: `e:${e2e}`, fields: { remittanceContains: tx.endToEndId } };
  }
  if (counterpartyIban)
    return { rule: 'amount-counterparty', key: `a:${counterpartyIban}:${amountMinor}`, fields: { counterpartyIban } };
  return null;
}

const files = sharedCorpusMissing
  ? []
  : ['camt052', 'camt053', 'camt054', 'mt940'].flatMap((folder) =>
      readdirSync(path.join(SHARED_CORPUS, folder)).map((f) => path.join(SHARED_CORPUS, folder, f)),
    );

test('the corpus statements: one incoming payment per credit, every expected payment built from one matched by its rule', {
  skip: sharedCorpusMissing,
}, async (tc) => {
  let filesWithCredits = 0;
  let expectedTotal = 0;
  const byRule = new Map<string, number>();
  for (const file of files) {
    const content = readFileSync(file, 'latin1');
    const parsed = parseBankFile(content);
    if (!parsed.ok || parsed.kind !== 'statement') continue;
    // Every credit with its intended evidence, in a company of its own.
    const credits: Array<{ intended: Intended | null; amountMinor: bigint; currency: string; day: string }> = [];
    let creditCount = 0;
    for (const block of parsed.blocks) {
      if (!block.ok || accountKeyOf(block.statement) === undefined) continue;
      for (const tx of block.statement.transactions) {
        const entry = entryOf(tx);
        if (!entry || !isIncomingCredit(entry)) continue;
        creditCount++;
        credits.push({
          intended: intendedOf(tx, entry.counterpartyIban, entry.amountMinor),
          amountMinor: entry.amountMinor,
          currency: entry.currency,
          day: entry.bookingDate ?? '2020-01-01',
        });
      }
    }
    if (creditCount === 0) continue;
    const company = await t.request({
      method: 'POST',
      url: `/platforms/${s.platformId}/companies`,
      headers: { 'x-session-token': s.sessionToken },
      payload: { name: path.basename(file).slice(0, 60) },
    });
    assert.equal(company.statusCode, 201, company.body);
    const scope = { platformId: s.platformId, companyId: (company.json() as { company: { id: string } }).company.id };
    const keys = new Map<string, number>();
    for (const c of credits) if (c.intended) keys.set(c.intended.key, (keys.get(c.intended.key) ?? 0) + 1);
    const expected: Array<{ id: string; rule: string }> = [];
    for (const c of credits) {
      if (!c.intended || keys.get(c.intended.key) !== 1 || c.amountMinor === 0n) continue;
      const id = t.ctx.ids.next('exp');
      const now = new Date();
      await insertExpected(t.ctx.db, {
        id,
        ...scope,
        direction: 'credit',
        amountMinMinor: c.amountMinor,
        amountMaxMinor: c.amountMinor,
        currency: c.currency,
        dateFrom: c.day,
        dateTo: '2099-12-31',
        counterpartyName: null,
        counterpartyIban: c.intended.fields['counterpartyIban'] ?? null,
        counterpartyOther: null,
        referenceType: c.intended.fields['referenceValue'] ? 'NONE' : null,
        referenceValue: c.intended.fields['referenceValue'] ?? null,
        remittanceContains: c.intended.fields['remittanceContains'] ?? null,
        metadata: {},
        status: 'unreconciled',
        createdAt: now,
        updatedAt: now,
      });
      expected.push({ id, rule: c.intended.rule });
    }
    const res = await t.request({
      method: 'POST',
      url: '/journal/ingest',
      headers: { 'x-api-key': s.apiKey },
      payload: { companyId: scope.companyId, content },
    });
    if (res.statusCode !== 201) continue;
    filesWithCredits++;
    const incoming = await db.query(`SELECT count(*)::int AS n FROM incoming_payments WHERE company_id = $1`, [
      scope.companyId,
    ]);
    assert.equal(incoming.rows[0].n, creditCount, `${path.basename(file)}: one incoming payment per credit`);
    for (const e of expected) {
      const m = await db.query(
        `SELECT e.status, array_agg(m.rule) AS rules FROM expected_payments e
           LEFT JOIN receivable_matches m ON m.expected_payment_id = e.id AND m.unmatched_at IS NULL
          WHERE e.id = $1 GROUP BY e.status`,
        [e.id],
      );
      assert.deepEqual(
        [m.rows[0].status, m.rows[0].rules],
        ['reconciled', [e.rule]],
        `${path.basename(file)}: expected ${e.id} by ${e.rule}`,
      );
      byRule.set(e.rule, (byRule.get(e.rule) ?? 0) + 1);
      expectedTotal++;
    }
  }
  tc.diagnostic(
    `${filesWithCredits} corpus files with credits, ${expectedTotal} expected payments matched: ${JSON.stringify(Object.fromEntries(byRule))}`,
  );
  assert.ok(filesWithCredits >= 10, `only ${filesWithCredits} corpus files with credits`);
  assert.ok((byRule.get('structured-reference') ?? 0) > 0 && (byRule.get('amount-counterparty') ?? 0) > 0);
});
