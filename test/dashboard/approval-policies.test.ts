/**
 * The approval policy form: every field of the policy routes (groups, banks, ordered approval ...),
 * create and edit, each refused field's issue shown at it with what was sent, admins only, escaped.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addCompanyUser, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Browser, get, post, signIn } from './support.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
let admin: Browser;
let anna: string;
let bert: string;
let vera: string;

function addUser(name: string, roles: string[]): Promise<string> {
  const email = `${name.toLowerCase()}@example.com`;
  return addCompanyUser(t, sandbox, { email, name, roles, password: 'a long enough password 1' });
}

before(async () => {
  t = await startTestApp();
  sandbox = await provisionAndLogin(t);
  anna = await addUser('Anna', ['approver']);
  bert = await addUser('Bert', ['approver']);
  vera = await addUser('Vera', ['viewer']);
  admin = await signIn(t, sandbox.dashboardLogin.email, sandbox.dashboardLogin.password);
});
after(() => t.close());

type PolicyJson = Record<string, unknown> & { id: string; name: string };

async function apiPolicies(): Promise<PolicyJson[]> {
  const res = await t.request({
    method: 'GET',
    url: `/approval-policies?companyId=${sandbox.companyId}`,
    headers: { 'x-session-token': sandbox.sessionToken },
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { items: PolicyJson[] }).items;
}

const fieldsOf = (p: PolicyJson) => {
  const { id: _i, platformId: _p, companyId: _c, createdAt: _a, updatedAt: _u, ...rest } = p;
  return rest;
};

test('the new-policy form has every field of the policy routes, members being the users who may approve', async () => {
  const page = await get(t, admin, '/dashboard/approval-policies/new');
  assert.equal(page.statusCode, 200);
  assert.match(
    page.body,
    /<form method="post" action="\/dashboard\/approval-policies" class="stack policy"><input type="hidden" name="csrf_token"/,
  );
  assert.match(page.body, /<input id="pol-name" name="name" type="text" value="" required maxlength="200">/);
  assert.match(page.body, /<input type="checkbox" name="enabled" value="on" id="pol-enabled" checked> Enabled/);
  assert.match(
    page.body,
    /<select id="pol-env" name="environment"><option value="production">production<\/option><option value="test">test<\/option><option value="any" selected>any<\/option><\/select>/,
  );
  assert.match(page.body, /<input type="checkbox" name="bank:demo" value="on"> /);
  assert.match(
    page.body,
    /<input id="pol-req" name="requiredApprovals" type="number" value="1" min="1" max="10" required>/,
  );
  for (const name of ['twoFactorRequired', 'requireOneFromEachGroup', 'orderedApproval']) {
    assert.match(page.body, new RegExp(`<input type="checkbox" name="${name}" value="on" id="[^"]+"> `));
  }
  assert.equal((page.body.match(/<legend>Group \d+<\/legend>/g) ?? []).length, 3);
  assert.match(page.body, new RegExp(`name="group0.member:${anna}" value="on"> Anna \\(anna@example.com\\)`));
  assert.match(page.body, new RegExp(`name="group2.member:${bert}"`));
  assert.equal(page.body.includes(vera), false, 'a viewer is not offered as a member');
});

test('create with groups, banks and ordered approval; edit every field; the API reads what the form wrote', async () => {
  const created = await post(t, admin, '/dashboard/approval-policies', {
    name: 'Large payments',
    enabled: 'on',
    environment: 'production',
    currency: 'eur',
    minAmount: '10000.00',
    'bank:demo': 'on',
    'bank:op': 'on',
    requiredApprovals: '2',
    twoFactorRequired: 'on',
    orderedApproval: 'on',
    // Listed second, ordered first.
    'group0.name': 'Treasury',
    'group0.order': '2',
    [`group0.member:${anna}`]: 'on',
    'group1.name': 'Controllers',
    'group1.order': '1',
    [`group1.member:${bert}`]: 'on',
    'group2.name': '',
    'group2.order': '3',
  });
  assert.equal(created.statusCode, 200, created.body);
  assert.match(
    created.body,
    /<p class="notice ok" role="status">The policy Large payments is in force for new payments\.<\/p>/,
  );
  assert.match(created.body, /Controllers \(1\) → Treasury \(1\)/);
  let [policy] = await apiPolicies();
  assert.ok(policy);
  assert.deepEqual(fieldsOf(policy), {
    name: 'Large payments',
    enabled: true,
    environment: 'production',
    currency: 'EUR',
    minAmount: '10000.00',
    bankKeys: ['demo', 'op'],
    requiredApprovals: 2,
    groups: [
      { name: 'Controllers', userIds: [bert] },
      { name: 'Treasury', userIds: [anna] },
    ],
    requireOneFromEachGroup: false,
    orderedApproval: true,
    twoFactorRequired: true,
  });

  const edit = await get(t, admin, `/dashboard/approval-policies/${policy.id}`);
  assert.equal(edit.statusCode, 200);
  assert.match(
    edit.body,
    new RegExp(`<form method="post" action="/dashboard/approval-policies/${policy.id}" class="stack policy">`),
  );
  assert.match(edit.body, /<input id="pol-name" name="name" type="text" value="Large payments"/);
  assert.match(edit.body, /<option value="production" selected>/);
  assert.match(edit.body, /<input id="pol-cur" name="currency" type="text" value="EUR"/);
  assert.match(edit.body, /name="bank:op" value="on" checked>/);
  assert.match(edit.body, /<input id="group0-name" name="group0.name" type="text" value="Controllers"/);
  assert.match(edit.body, new RegExp(`name="group0.member:${bert}" value="on" checked>`));
  assert.match(edit.body, new RegExp(`name="group1.member:${anna}" value="on" checked>`));
  assert.match(edit.body, /name="orderedApproval" value="on" id="pol-ordered" checked>/);
  // Two groups, two empty slots to add more.
  assert.equal((edit.body.match(/<legend>Group \d+<\/legend>/g) ?? []).length, 4);
  assert.match(edit.body, /<button type="submit" class="primary">Save the changes<\/button>/);

  const changed = await post(t, admin, `/dashboard/approval-policies/${policy.id}`, {
    name: 'Large payments (any bank)',
    environment: 'any',
    currency: '',
    minAmount: '5000',
    requiredApprovals: '1',
    requireOneFromEachGroup: 'on',
    'group0.name': 'Controllers',
    'group0.order': '1',
    [`group0.member:${bert}`]: 'on',
    [`group0.member:${anna}`]: 'on',
  });
  assert.equal(changed.statusCode, 200, changed.body);
  assert.match(
    changed.body,
    /The policy Large payments \(any bank\) is changed; approvals already waiting keep their rules\./,
  );
  [policy] = await apiPolicies();
  assert.deepEqual(fieldsOf(policy!), {
    name: 'Large payments (any bank)',
    enabled: false,
    environment: 'any',
    currency: null,
    minAmount: '5000',
    bankKeys: null,
    requiredApprovals: 1,
    // Members in the order the form lists what was ticked.
    groups: [{ name: 'Controllers', userIds: [bert, anna] }],
    requireOneFromEachGroup: true,
    orderedApproval: false,
    twoFactorRequired: false,
  });
});

test('a refused policy comes back as sent, each issue at its field (a group by the slot it was typed in)', async () => {
  const before = (await apiPolicies()).length;
  const res = await post(t, admin, '/dashboard/approval-policies', {
    name: '<img src=x onerror=alert(1)>',
    environment: 'any',
    currency: 'EURO',
    minAmount: '1,000',
    requiredApprovals: 'two',
    // Slot 0 is ordered second: the duplicate name is reported for groups[1], which is slot 0.
    'group0.name': 'Same',
    'group0.order': '2',
    [`group0.member:${anna}`]: 'on',
    'group1.name': 'Same',
    'group1.order': '1',
    [`group1.member:${bert}`]: 'on',
    'group2.name': '',
    [`group2.member:${anna}`]: 'on',
  });
  assert.equal(res.statusCode, 400);
  assert.match(
    res.body,
    /<p class="notice error" role="alert">The policy was not saved: 5 field\(s\) to correct, marked below\.<\/p>/,
  );
  assert.match(
    res.body,
    /name="currency" type="text" value="EURO" maxlength="3" aria-invalid="true" aria-describedby="pol-cur-error"><p class="field-error" id="pol-cur-error">an ISO 4217 currency code<\/p>/,
  );
  assert.match(
    res.body,
    /value="1,000" required aria-invalid="true" aria-describedby="pol-min-error"><p class="field-error" id="pol-min-error">a non-negative decimal string such as &quot;10000.00&quot;<\/p>/,
  );
  assert.match(res.body, /<p class="field-error" id="pol-req-error">an integer from 1 to 10<\/p>/);
  assert.match(res.body, /<p class="field-error" id="group0-name-error">group names are unique in a policy<\/p>/);
  assert.equal(res.body.includes('id="group1-name-error"'), false);
  assert.match(res.body, /<p class="field-error" id="group2-name-error">a name of 1 to 100 characters<\/p>/);
  assert.match(res.body, /value="&lt;img src=x onerror=alert\(1\)&gt;"/);
  assert.equal(res.body.includes('<img src=x'), false);
  assert.equal((await apiPolicies()).length, before, 'nothing was created');
});

test("a markup name is shown as text in the list; an approver gets no policy form; another company's policy is not found", async () => {
  const created = await post(t, admin, '/dashboard/approval-policies', {
    name: '<b>bold</b> policy',
    environment: 'test',
    minAmount: '0',
    requiredApprovals: '1',
  });
  assert.equal(created.statusCode, 200, created.body);
  assert.match(
    created.body,
    /aria-label="Edit the policy &lt;b&gt;bold&lt;\/b&gt; policy">&lt;b&gt;bold&lt;\/b&gt; policy<\/a>/,
  );

  const approver = await signIn(t, 'anna@example.com', 'a long enough password 1');
  assert.equal((await get(t, approver, '/dashboard/approval-policies/new')).statusCode, 403);
  const refused = await post(t, approver, '/dashboard/approval-policies', {
    name: 'Sneaky',
    minAmount: '0',
    requiredApprovals: '1',
  });
  assert.equal(refused.statusCode, 403);
  assert.equal(
    (await apiPolicies()).some((p) => p.name === 'Sneaky'),
    false,
  );

  const other = await provisionAndLogin(t);
  const theirs = await t.request({
    method: 'POST',
    url: '/approval-policies',
    headers: { 'x-session-token': other.sessionToken },
    payload: { platformId: other.platformId, companyId: other.companyId, name: 'Theirs' },
  });
  assert.equal(theirs.statusCode, 201, theirs.body);
  const id = (theirs.json() as { id: string }).id;
  assert.equal((await get(t, admin, `/dashboard/approval-policies/${id}`)).statusCode, 404);
  const edit = await post(t, admin, `/dashboard/approval-policies/${id}`, {
    name: 'Mine now',
    minAmount: '0',
    requiredApprovals: '1',
  });
  assert.equal(edit.statusCode, 404);
});
