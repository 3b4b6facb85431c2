/**
 * The bank connections page against the sandbox's own bank simulators: create a test connection of
 * each web-services family, activate it with the form the page fills with what the simulated bank
 * issued, and see a refusal said on the page.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Browser, post, signIn } from './support.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
let browser: Browser;

before(async () => {
  t = await startTestApp({ sandboxBanks: true });
  sandbox = await provisionAndLogin(t);
  browser = await signIn(t, sandbox.dashboardLogin.email, sandbox.dashboardLogin.password);
});
after(() => t.close());

/** The activation form of the connection just created: its action and its filled fields. */
function activationForm(body: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="(\/dashboard\/connections\/[^"/]+\/activate)"/.exec(body)?.[1];
  assert.ok(action, 'no activation form on the page');
  const form = body.slice(body.indexOf(action), body.indexOf('</form>', body.indexOf(action)));
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/name="(\w+)" type="text" autocomplete="off" (?:required )?value="([^"]*)"/g)) {
    fields[m[1]!] = m[2]!;
  }
  return { action, fields };
}

for (const [bankKey, family, wrong] of [
  ['op', 'A', { pin: '0000000000000000' }],
  ['nordea-fi', 'B', { activationCode: '0000000000' }],
] as const) {
  test(`${bankKey} (family ${family}): created, activated with the simulator's values, a wrong value refused on the page`, async () => {
    const created = await post(t, browser, '/dashboard/connections', { bankKey, environment: 'test' });
    assert.equal(created.statusCode, 200, created.body);
    assert.match(created.body, /is pending-activation/);
    const { action, fields } = activationForm(created.body);
    assert.ok(Object.keys(fields).length >= 2, JSON.stringify(fields));
    for (const [name, value] of Object.entries(fields)) if (name !== 'senderId') assert.notEqual(value, '', name);

    const refused = await post(t, browser, action, { ...fields, ...wrong });
    assert.ok(refused.statusCode === 400 || refused.statusCode === 502, refused.body);
    assert.match(refused.body, /class="notice error" role="alert"/);

    const again = activationForm(
      (await post(t, browser, '/dashboard/connections', { bankKey, environment: 'test' })).body,
    );
    const activated = await post(t, browser, again.action, again.fields);
    assert.equal(activated.statusCode, 200, activated.body);
    assert.match(activated.body, /The connection is activated/);
    const api = await t.request({
      method: 'GET',
      url: `/connections?platformId=${sandbox.platformId}&companyId=${sandbox.companyId}`,
      headers: { 'x-session-token': sandbox.sessionToken },
    });
    const connection = (api.json() as { items: { bankKey: string; status: string }[] }).items.find(
      (c) => c.bankKey === bankKey,
    );
    assert.equal(connection?.status, 'active');
  });
}
