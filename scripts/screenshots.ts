/**
 * `npm run screenshots`: regenerates docs/screenshots/*.png, the dashboard's main pages as a new
 * sandbox user sees them. Starts the real service (`src/main/server.ts`, embedded PostgreSQL in a
 * temporary folder, workers and the demo bank), provisions a sandbox, sends the first payment with the
 * dashboard's button and a few more through the API (one the demo bank rejects), registers a
 * webhook, then photographs each page in Debian's Chromium (test/support/chromium.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../src/platform/free-port.ts';
import { chromiumMissing, launchChromium } from '../test/support/chromium.ts';
import { seedReceivables } from './screenshot-receivables.ts';

if (chromiumMissing) {
  process.stderr.write(`${chromiumMissing}\n`);
  process.exit(1);
}

const OUT = path.resolve('docs/screenshots');
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(path.join(tmpdir(), 'payops-screenshots-'));
const server = spawn(process.execPath, ['src/main/server.ts'], {
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    DEMO_BANK_DELAY_MS: '500',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});

/** A camt.053 with one booked fee (DBIT) that matches no payment line (docs/adr/0047). */
function feeStatement(day: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>
<GrpHdr><MsgId>SHOT-FEES-1</MsgId><CreDtTm>${day}T18:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>SHOT-FEES-STMT-1</Id><ElctrncSeqNb>90</ElctrncSeqNb><CreDtTm>${day}T18:00:00Z</CreDtTm>
<Acct><Id><IBAN>FI2112345600000785</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Ntry><Amt Ccy="EUR">38.40</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${day}</Dt></BookgDt><ValDt><Dt>${day}</Dt></ValDt>
<AcctSvcrRef>SHOT-FEE-REF-1</AcctSvcrRef><BkTxCd><Domn><Cd>ACMT</Cd><Fmly><Cd>MDOP</Cd><SubFmlyCd>CHRG</SubFmlyCd></Fmly></Domn></BkTxCd>
<NtryDtls><TxDtls><RltdPties><Cdtr><Nm>Nets Card Services</Nm></Cdtr></RltdPties><RmtInf><Ustrd>Terminal fees November</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
</Stmt></BkToCstmrStmt></Document>`;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function api<T>(method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const browser = await launchChromium();
try {
  await until(async () => (await fetch(`${base}/health`)).ok, 'the service to start', 120_000);
  type Sandbox = {
    apiKey: string;
    companyId: string;
    dashboardLogin: { url: string; email: string; password: string };
    firstPayment: { body: { payment: Record<string, unknown> } };
  };
  const sandbox = await api<Sandbox>('POST', '/sandbox/provision', {}, { companyName: 'Nordic Treasury Oy' });
  const key = { 'x-api-key': sandbox.apiKey };
  const payments: [string, string, string][] = [
    ['Kesko Oyj', '1840.00', 'Invoice 20431'],
    ['Fazer Food Services Oy', '312.40', 'Invoice 7781'],
    ['Closed Account Ab', '99.00', 'REJECT:AC04'],
  ];
  for (const [i, [payee, amount, remittance]] of payments.entries()) {
    const body = structuredClone(sandbox.firstPayment.body);
    const payment = body.payment as { messageId: string; payments: { transactions: Record<string, unknown>[] }[] };
    payment.messageId = `SHOT-${i + 1}`;
    const tx = payment.payments[0]!.transactions[0]!;
    tx['endToEndId'] = `SHOT-E2E-${i + 1}`;
    tx['amount'] = amount;
    (tx['creditor'] as Record<string, unknown>)['name'] = payee;
    tx['remittance'] = { unstructured: remittance };
    await api('POST', '/journal/payments', { ...key, 'idempotency-key': payment.messageId }, body);
  }

  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  mkdirSync(OUT, { recursive: true });
  const shot = async (name: string) => page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });

  await page.goto(sandbox.dashboardLogin.url);
  await page.getByLabel('Email').fill(sandbox.dashboardLogin.email);
  await shot('sign-in');
  await page.getByLabel('Password').fill(sandbox.dashboardLogin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Sandbox' }).click();
  await page.getByRole('button', { name: /Send the first payment/ }).click();
  await page.getByText('✔ Every line reconciled against the bank statement').waitFor({ timeout: 60_000 });
  await shot('sandbox-first-payment');
  await page.getByRole('link', { name: /with its evidence/ }).click();
  await shot('document');

  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByLabel('URL (https)').fill('https://127.0.0.1:9/payops-hooks');
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByRole('button', { name: 'Send a test event' }).click();
  await until(async () => {
    await page.reload();
    return /failed|pending/.test(await page.locator('table').innerText());
  }, 'a delivery attempt');
  await shot('webhook');

  // An approval policy and a payment waiting under it, for the approvals page.
  await page.getByRole('link', { name: 'Approvals' }).click();
  await page.getByRole('link', { name: 'New approval policy' }).click();
  await page.getByLabel('Policy name', { exact: true }).fill('Payments from 1,000 EUR');
  await page.getByLabel(/^From amount/).fill('1000');
  await page.getByLabel(/^Approvals needed/).fill('2');
  await page.getByRole('button', { name: 'Add the policy' }).click();
  const big = structuredClone(sandbox.firstPayment.body);
  const bigPayment = big.payment as { messageId: string; payments: { transactions: Record<string, unknown>[] }[] };
  bigPayment.messageId = 'SHOT-APPROVE-1';
  const bigTx = bigPayment.payments[0]!.transactions[0]!;
  bigTx['endToEndId'] = 'SHOT-E2E-APPROVE-1';
  bigTx['amount'] = '24500.00';
  (bigTx['creditor'] as Record<string, unknown>)['name'] = 'Valmet Automation Oy';
  await api('POST', '/journal/payments', { ...key, 'idempotency-key': bigPayment.messageId }, big);
  // A card-terminal fee booked on the account: a debit no payment explains, for the reconciliation page.
  await api('POST', '/journal/ingest', key, {
    companyId: sandbox.companyId,
    environment: 'test',
    content: feeStatement(new Date().toISOString().slice(0, 10)),
  });

  await seedReceivables(api, key, sandbox.companyId);

  for (const [name, url] of [
    ['receivables', '/dashboard/receivables'],
    ['exceptions', '/dashboard/exceptions'],
    ['approvals', '/dashboard/approvals'],
    ['overview', '/dashboard'],
    ['journal', '/dashboard/journal'],
    ['reconciliation', '/dashboard/reconciliation'],
    ['connections', '/dashboard/connections'],
    ['users', '/dashboard/users'],
  ] as const) {
    await page.goto(url);
    await shot(name);
  }
  const accounts = await page.goto('/dashboard/accounts');
  if (accounts?.ok()) {
    const first = page.locator('main table a').first();
    if ((await first.count()) > 0) {
      await first.click();
      await page.locator('.chart canvas').first().waitFor();
    }
    await shot('accounts');
  }
  await context.close();
  process.stdout.write(`screenshots written to ${OUT}\n`);
} finally {
  await browser.close();
  server.kill('SIGTERM');
  await new Promise((resolve) => server.on('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
