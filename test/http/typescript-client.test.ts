/**
 * The typed client (clients/typescript) against a real server on a real socket: its calls typecheck
 * (`npm run typecheck` covers this file; the @ts-expect-error lines prove that wrong calls do not)
 * and answer what the types say.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { type components, createPayopsClient } from '../../clients/typescript/client.ts';
import { startTestApp, type TestApp } from '../harness.ts';

let t: TestApp;
let baseUrl: string;
before(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

test('provision, sign in, discovery, the journal and an error, all typed', async () => {
  const anonymous = createPayopsClient({ baseUrl });
  const provisioned = await anonymous.POST('/sandbox/provision', { body: {} });
  assert.equal(provisioned.response.status, 201);
  const sandbox = provisioned.data;
  assert.ok(sandbox);
  assert.match(sandbox.apiKey, /\S{20,}/);

  const login = await anonymous.POST('/auth/login', {
    body: { email: sandbox.dashboardLogin.email, password: sandbox.dashboardLogin.password },
  });
  assert.equal(login.response.status, 200);
  assert.ok(login.data && 'sessionToken' in login.data);

  const api = createPayopsClient({ baseUrl, apiKey: sandbox.apiKey });
  const profiles = await api.GET('/profiles');
  assert.equal(profiles.response.status, 200);
  assert.ok((profiles.data?.items.length ?? 0) > 0);
  const bankKey = profiles.data?.items[0]?.key ?? '';
  const types = await api.GET('/banks/{bankKey}/payment-types', { params: { path: { bankKey } } });
  assert.equal(types.data?.bankKey, bankKey);

  // Routes whose answers were untyped before issue 36 (data was `never`): now typed from their schema.
  const payment = sandbox.firstPayment.body.payment as components['schemas']['CanonicalPayment'];
  const bankKeyOf = sandbox.firstPayment.body.bankKey as string;
  const validated = await api.POST('/validate/{bankKey}', {
    params: { path: { bankKey: bankKeyOf } },
    body: payment,
  });
  assert.equal(validated.data?.valid, true);
  const submitted = await api.POST('/journal/payments', {
    body: { companyId: sandbox.companyId, bankKey: bankKeyOf, payment, environment: 'test' },
    headers: { 'idempotency-key': 'client-typed-1' },
  });
  assert.equal(submitted.response.status, 201);
  const journalNo: string | undefined = submitted.data?.journalNo;
  assert.match(journalNo ?? '', /^OUT-\d+$/);
  assert.match(submitted.data?.xml ?? '', /pain\.001/);

  const documents = await api.GET('/journal/documents', { params: { query: { companyId: sandbox.companyId } } });
  assert.equal(documents.response.status, 200);
  assert.equal(documents.data?.items[0]?.journalNo, journalNo);
  const one = await api.GET('/journal/documents/{id}', {
    params: { path: { id: submitted.data?.id ?? '' }, query: { companyId: sandbox.companyId } },
  });
  assert.equal(one.data?.status, submitted.data?.status);
  const events = await api.GET('/journal/events', { params: { query: { companyId: sandbox.companyId } } });
  assert.ok((events.data?.items ?? []).every((e) => typeof e.seq === 'number'));

  const missing = await api.GET('/banks/{bankKey}/status', { params: { path: { bankKey: 'no-such-bank' } } });
  assert.equal(missing.response.status, 404);
  assert.equal(missing.error?.error.code, 'not_found');

  // @ts-expect-error: the path parameter is required
  await api.GET('/banks/{bankKey}/status', {}).catch(() => undefined);
  // @ts-expect-error: not a path of the API
  await api.GET('/no-such-route').catch(() => undefined);
});
