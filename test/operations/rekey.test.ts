/**
 * Master key rotation: a database with values sealed under two keys (payloads, files, conversion
 * jobs, channel credentials, signing certificates, webhook secrets) ends, after `rekey`, with every
 * value readable under the new key alone; a run interrupted halfway (in process, and the CLI killed
 * mid-run) resumes; and every sealed column of the schema is one rekey knows.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { keyUsage, rekey } from '../../src/app/system/rekey.ts';
import { SEALED_COLUMNS, sealedColumnName } from '../../src/db/sealed-columns.ts';
import { createEncryptor, type Encryptor, keyIdOf } from '../../src/platform/encryption.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const [A, B, C] = [randomBytes(32), randomBytes(32), randomBytes(32)];
const b64 = (k: Buffer) => k.toString('base64');

let t: TestApp;
let db: pg.Client;
const payments = new Map<string, { companyId: string; apiKey: string; payment: unknown }>();

before(async () => {
  t = await startTestApp({ env: { MASTER_KEY: b64(A) } });
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
});
after(async () => {
  await db.end();
  await t.close();
});

/** A sandbox with payments, a rotated webhook secret, a conversion job and sealed channel settings, under the app's key now. */
async function populate(label: string, submits: number): Promise<void> {
  const sandbox = await provisionAndLogin(t);
  const body = sandbox.firstPayment.body;
  for (let i = 0; i < submits; i++) {
    const payment = { ...body.payment, messageId: `${label}-MSG-${i}` };
    const res = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': `${label}-${i}` },
      payload: { ...body, payment },
    });
    assert.equal(res.statusCode, 201, res.body);
    payments.set((res.json() as { id: string }).id, { companyId: sandbox.companyId, apiKey: sandbox.apiKey, payment });
  }
  const hook = await t.request({
    method: 'POST',
    url: '/webhooks',
    headers: { 'x-api-key': sandbox.apiKey },
    payload: { companyId: sandbox.companyId, url: 'https://hooks.example.com/payops' },
  });
  assert.equal(hook.statusCode, 201, hook.body);
  const endpointId = (hook.json() as { endpoint: { id: string } }).endpoint.id;
  const rotated = await t.request({
    method: 'POST',
    url: `/webhooks/${endpointId}/rotate-secret`,
    headers: { 'x-api-key': sandbox.apiKey },
  });
  assert.equal(rotated.statusCode, 200, rotated.body);
  const job = await t.request({
    method: 'POST',
    url: '/convert-async/demo',
    headers: { 'x-api-key': sandbox.apiKey },
    payload: body.payment,
  });
  assert.equal(job.statusCode, 202, job.body);
  // What a worker and the connection set-up would have sealed (no route writes these two yet).
  const seal = (text: string) => t.ctx.encryptor.encrypt(text);
  await db.query('UPDATE conversion_jobs SET result_sealed = $1 WHERE platform_id = $2', [
    seal('<Document/>'),
    sandbox.platformId,
  ]);
  await db.query('UPDATE connections SET channel_sealed = $1, signing_cert_sealed = $2 WHERE company_id = $3', [
    seal(JSON.stringify({ kind: 'sftp', host: 'sftp.example.com', password: `pw-${label}` })),
    seal(`-----BEGIN CERTIFICATE-----${label}`),
    sandbox.companyId,
  ]);
}

/** Every sealed value, decrypted with `encryptor`: `table.column#key` to plaintext. */
async function plaintexts(encryptor: Encryptor): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const c of SEALED_COLUMNS) {
    const rows = await db.query<{ key: string; sealed: string }>(
      `SELECT ${c.key} AS key, ${c.column} AS sealed FROM ${c.table} WHERE ${c.column} IS NOT NULL`,
    );
    for (const row of rows.rows) out.set(`${sealedColumnName(c)}#${row.key}`, encryptor.decrypt(row.sealed));
  }
  return out;
}

const countsByKey = async () => {
  const totals: Record<string, number> = {};
  for (const u of await keyUsage(t.ctx)) {
    for (const [id, n] of Object.entries(u.byKeyId)) totals[id] = (totals[id] ?? 0) + n;
  }
  return totals;
};

function runCli(args: string[], env: Record<string, string>, onStderr?: (chunk: string, kill: () => void) => void) {
  const child = spawn(process.execPath, [path.join(ROOT, 'src/main/cli.ts'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    onStderr?.(String(chunk), () => child.kill('SIGKILL'));
  });
  return new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}

describe('rekey', () => {
  test('payloads under two keys end readable under the new key alone, after an interrupted run resumes', async () => {
    await populate('old', 6);
    t.ctx.encryptor = createEncryptor(B, [A]);
    await populate('new', 3);
    const expected = await plaintexts(t.ctx.encryptor);
    assert.ok(expected.size >= 2 * (9 + 2 + 2 + 2), `sealed values: ${expected.size}`);
    const before = await countsByKey();
    assert.ok((before[keyIdOf(A)] ?? 0) > 0 && (before[keyIdOf(B)] ?? 0) > 0, JSON.stringify(before));

    // Interrupted after the first batch of two.
    const abort = new AbortController();
    await assert.rejects(
      rekey(t.ctx, { batchSize: 2, signal: abort.signal, onProgress: () => abort.abort(new Error('interrupted')) }),
      /interrupted/,
    );
    const halfway = await countsByKey();
    assert.equal(halfway[keyIdOf(A)], (before[keyIdOf(A)] ?? 0) - 2, JSON.stringify(halfway));

    const progress: string[] = [];
    const report = await rekey(t.ctx, {
      batchSize: 2,
      onProgress: (p) => progress.push(`${p.column} ${p.done}/${p.total}`),
    });
    assert.equal(report.keyId, keyIdOf(B));
    assert.equal(report.rewritten, (before[keyIdOf(A)] ?? 0) - 2);
    assert.equal(report.leftUnderOldKeys, 0);
    // The first run had moved two payloads; this one counts what was left, column by column.
    assert.ok(progress.includes('journal_documents.payload_sealed 4/4'), progress.join('\n'));
    assert.ok(progress.includes('journal_documents.file_sealed 6/6'), progress.join('\n'));
    assert.deepEqual(await countsByKey(), { [keyIdOf(B)]: expected.size });

    // The old key is gone: everything reads under the new key alone, byte for byte.
    t.ctx.encryptor = createEncryptor(B);
    assert.deepEqual(await plaintexts(t.ctx.encryptor), expected);
    for (const [id, p] of payments) {
      const res = await t.request({
        method: 'GET',
        url: `/journal/documents/${id}?companyId=${p.companyId}`,
        headers: { 'x-api-key': p.apiKey },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual((res.json() as { payload: unknown }).payload, JSON.parse(JSON.stringify(p.payment)));
    }

    // Nothing left to do: a second run rewrites nothing.
    assert.equal((await rekey(t.ctx)).rewritten, 0);
  });

  test('the CLI killed mid-run resumes on the next run and reports when no old key is left', async () => {
    // Rotate again, B -> C, through `npm run cli -- rekey` with one value per batch.
    const keys = { MASTER_KEYS: `${b64(C)},${b64(B)}` };
    const expected = await plaintexts(createEncryptor(B));
    const killed = await runCli(['rekey', '--batch-size', '1'], keys, (chunk, kill) => {
      if (/rekey \S+: \d+\/\d+/.test(chunk)) kill();
    });
    assert.equal(killed.signal, 'SIGKILL', `${killed.stdout}${killed.stderr}`);
    const halfway = await countsByKey();
    assert.ok(
      (halfway[keyIdOf(B)] ?? 0) > 0,
      `nothing left under the old key after the kill: ${JSON.stringify(halfway)}`,
    );

    const status = await runCli(['rekey', '--status'], keys);
    assert.equal(status.code, 1, status.stderr);
    assert.match(status.stdout, /value\(s\) still under old keys/);

    const resumed = await runCli(['rekey', '--batch-size', '5'], keys);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(
      resumed.stdout,
      new RegExp(`nothing is sealed under an old key: every key but ${keyIdOf(C)} can leave MASTER_KEYS`),
    );
    assert.match(resumed.stderr, /rekey journal_documents\.payload_sealed: \d+\/\d+/);
    assert.deepEqual(await plaintexts(createEncryptor(C)), expected);

    const done = await runCli(['rekey', '--status'], { MASTER_KEY: b64(C) });
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /nothing is sealed under an old key/);
  });

  test('refuses, changing nothing, when values are sealed under a key MASTER_KEYS does not hold', async () => {
    const before = await countsByKey();
    const res = await runCli(['rekey'], { MASTER_KEY: b64(A) });
    assert.equal(res.code, 2);
    assert.match(res.stderr, new RegExp(`sealed under key id\\(s\\) ${keyIdOf(C)}, which MASTER_KEYS does not hold`));
    assert.deepEqual(await countsByKey(), before);
    const both = await runCli(['rekey'], { MASTER_KEY: b64(A), MASTER_KEYS: b64(C) });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /MASTER_KEYS and MASTER_KEY are both set/);
  });
});

describe('sealed columns', () => {
  test('every *_sealed column of the schema is in SEALED_COLUMNS, and every listed column exists', async () => {
    const columns = await db.query<{ name: string }>(
      `SELECT table_name || '.' || column_name AS name FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name LIKE '%\\_sealed' ORDER BY 1`,
    );
    assert.deepEqual(
      columns.rows.map((r) => r.name),
      SEALED_COLUMNS.map(sealedColumnName).sort(),
    );
  });

  test('no column outside SEALED_COLUMNS holds a sealed-looking value', async () => {
    // Run after the populated rekey tests: every kind of sealed value exists in this database.
    const listed = new Set(SEALED_COLUMNS.map(sealedColumnName));
    const columns = await db.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'jsonb', 'json')`,
    );
    const shape = '[0-9a-f]{8}:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/]{22}==:';
    const found: string[] = [];
    for (const c of columns.rows) {
      const name = `${c.table_name}.${c.column_name}`;
      if (listed.has(name)) continue;
      const res = await db.query(`SELECT 1 FROM "${c.table_name}" WHERE "${c.column_name}"::text ~ $1 LIMIT 1`, [
        c.data_type.startsWith('json') ? `"${shape}` : `^${shape}`,
      ]);
      if (res.rowCount) found.push(name);
    }
    assert.deepEqual(found, []);
    const sealedSomewhere = await db.query(`SELECT 1 FROM journal_documents WHERE payload_sealed ~ $1`, [`^${shape}`]);
    assert.ok(sealedSomewhere.rowCount, 'the shape matches real sealed values');
  });
});
