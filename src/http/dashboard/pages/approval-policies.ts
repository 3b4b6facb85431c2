import type { FastifyPluginAsync } from 'fastify';
import { changePolicy, createPolicy, listCompanyPolicies, type policyView } from '../../../app/approvals/policies.ts';
import { AppError, notFound } from '../../../app/errors.ts';
import { listUsers } from '../../../app/identity/users.ts';
import { POLICY_DEFAULTS, POLICY_ENVIRONMENTS, POLICY_LIMITS } from '../../../domain/approvals/policy.ts';
import { listProfiles } from '../../../domain/conversion/index.ts';
import { parseForm } from '../../plugins/form-body.ts';
import type { HttpServices } from '../../services.ts';
import { type FieldErrors, fieldError, inputField, invalidAttrs } from '../fields.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type DashboardView, type Notice, sendDashboardPage } from '../layout.ts';
import { approvalsPage } from './approvals.ts';

type Policy = ReturnType<typeof policyView>;
type Slot = { name: string; order: string; userIds: string[] };

/** The form's values as typed (text stays text, so a wrong value is shown back as it was sent). */
export type Draft = {
  name: string;
  enabled: boolean;
  environment: string;
  currency: string;
  minAmount: string;
  bankKeys: string[];
  requiredApprovals: string;
  twoFactorRequired: boolean;
  requireOneFromEachGroup: boolean;
  orderedApproval: boolean;
  groups: Slot[];
};

const NEW_DRAFT: Draft = {
  name: '',
  enabled: POLICY_DEFAULTS.enabled,
  environment: POLICY_DEFAULTS.environment,
  currency: '',
  minAmount: POLICY_DEFAULTS.minAmount,
  bankKeys: [],
  requiredApprovals: String(POLICY_DEFAULTS.requiredApprovals),
  twoFactorRequired: false,
  requireOneFromEachGroup: false,
  orderedApproval: false,
  groups: [],
};

function draftOf(p: Policy): Draft {
  return {
    name: p.name,
    enabled: p.enabled,
    environment: p.environment,
    currency: p.currency ?? '',
    minAmount: p.minAmount,
    bankKeys: p.bankKeys ?? [],
    requiredApprovals: String(p.requiredApprovals),
    twoFactorRequired: p.twoFactorRequired,
    requireOneFromEachGroup: p.requireOneFromEachGroup,
    orderedApproval: p.orderedApproval,
    groups: p.groups.map((g, i) => ({ name: g.name, order: String(i + 1), userIds: [...g.userIds] })),
  };
}

/** The draft a posted form describes; group slots are `group<i>.name`, `.order` and `.member:<userId>`. */
export function draftFromForm(params: Record<string, string>): Draft {
  const on = (name: string) => params[name] === 'on';
  const groups: Slot[] = [];
  for (let i = 0; i < POLICY_LIMITS.groups; i++) {
    const prefix = `group${i}.`;
    const userIds = Object.keys(params)
      .filter((k) => k.startsWith(`${prefix}member:`) && params[k] === 'on')
      .map((k) => k.slice(`${prefix}member:`.length));
    groups.push({ name: params[`${prefix}name`] ?? '', order: params[`${prefix}order`] ?? String(i + 1), userIds });
  }
  return {
    name: params['name'] ?? '',
    enabled: on('enabled'),
    environment: params['environment'] ?? 'any',
    currency: params['currency'] ?? '',
    minAmount: params['minAmount'] ?? '',
    bankKeys: Object.keys(params)
      .filter((k) => k.startsWith('bank:') && params[k] === 'on')
      .map((k) => k.slice('bank:'.length)),
    requiredApprovals: params['requiredApprovals'] ?? '',
    twoFactorRequired: on('twoFactorRequired'),
    requireOneFromEachGroup: on('requireOneFromEachGroup'),
    orderedApproval: on('orderedApproval'),
    groups: groups.filter((g) => g.name.trim() !== '' || g.userIds.length > 0),
  };
}

/**
 * The policy fields the API takes (PUT replaces every one), and for each of its groups the form slot it
 * came from, so an issue about `groups[i]` is shown at the slot the user filled. Groups are taken in
 * the order their `order` field gives (then as listed): under ordered approval that is the order.
 */
export function policyInputOf(draft: Draft) {
  const position = (s: Slot, i: number) => {
    const n = Number(s.order);
    return Number.isFinite(n) ? n : i + 1;
  };
  const slots = draft.groups.map((g, slot) => ({ g, slot, at: position(g, slot) })).sort((a, b) => a.at - b.at);
  const required = draft.requiredApprovals.trim();
  return {
    slotOf: slots.map((s) => s.slot),
    input: {
      name: draft.name,
      enabled: draft.enabled,
      environment: draft.environment,
      currency: draft.currency.trim() === '' ? null : draft.currency.trim(),
      minAmount: draft.minAmount.trim(),
      bankKeys: draft.bankKeys.length > 0 ? draft.bankKeys : null,
      // Not a whole number: NaN, which the policy's own check names.
      requiredApprovals: /^\d+$/.test(required) ? Number(required) : Number.NaN,
      groups: slots.map((s) => ({ name: s.g.name.trim(), userIds: s.g.userIds })),
      requireOneFromEachGroup: draft.requireOneFromEachGroup,
      orderedApproval: draft.orderedApproval,
      twoFactorRequired: draft.twoFactorRequired,
    },
  };
}

/** The issues of a refused policy (details.issues of the use case), by the form field they are about. */
export function errorsOf(error: AppError, slotOf: readonly number[]): FieldErrors {
  const issues = (error.details?.['issues'] ?? [{ path: '', message: error.message }]) as {
    path: string;
    message: string;
  }[];
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const group = /^groups\[(\d+)\]\.(name|userIds)/.exec(issue.path);
    const key = group
      ? `group${slotOf[Number(group[1])] ?? group[1]}.${group[2] === 'name' ? 'name' : 'members'}`
      : /^bankKeys/.test(issue.path)
        ? 'bankKeys'
        : ['name', 'environment', 'currency', 'minAmount', 'requiredApprovals', 'groups'].includes(issue.path)
          ? issue.path
          : 'form';
    out[key] = out[key] ? `${out[key]}; ${issue.message}` : issue.message;
  }
  return out;
}

type Member = { id: string; label: string };

function check(name: string, checked: boolean, label: Html | string, id?: string): Html {
  return html`<label class="check"><input type="checkbox" name="${name}" value="on"${id ? html` id="${id}"` : ''}${
    checked ? html` checked` : ''
  }> ${label}</label>`;
}

function groupSlot(slot: number, g: Slot, members: readonly Member[], errors: FieldErrors): Html {
  const id = `group${slot}`;
  // Members already in the group but no longer eligible (a changed role) stay listed, ticked.
  const known = new Set(members.map((m) => m.id));
  const all = [
    ...members,
    ...g.userIds.filter((u) => !known.has(u)).map((u) => ({ id: u, label: `${u} (not an approver)` })),
  ];
  return html`<fieldset class="group"${invalidAttrs(`${id}-members`, errors, `${id}.members`)}><legend>Group ${slot + 1}</legend>
${inputField({ id: `${id}-name`, name: `${id}.name`, label: `Group ${slot + 1}: name`, value: g.name, errors, extra: html` maxlength="${POLICY_LIMITS.groupName}"` })}
${inputField({ id: `${id}-order`, name: `${id}.order`, label: `Group ${slot + 1}: order`, type: 'number', value: g.order, errors, extra: html` min="1" max="${POLICY_LIMITS.groups}"` })}
<p class="muted">Members (users with the approver or admin role):</p>
${all.length === 0 ? html`<p class="muted">No user of the company may approve yet.</p>` : all.map((m) => check(`${id}.member:${m.id}`, g.userIds.includes(m.id), m.label))}
${fieldError(`${id}-members`, errors, `${id}.members`)}</fieldset>`;
}

/** The whole policy form: every field the policy routes take, with each field's error beside it. */
export function policyForm(
  view: DashboardView,
  draft: Draft,
  members: readonly Member[],
  errors: FieldErrors,
  policyId?: string,
): Html {
  const action = policyId
    ? `/dashboard/approval-policies/${encodeURIComponent(policyId)}`
    : '/dashboard/approval-policies';
  const environments = POLICY_ENVIRONMENTS.map(
    (e) => html`<option value="${e}"${draft.environment === e ? html` selected` : ''}>${e}</option>`,
  );
  const banks = listProfiles().map((p) =>
    check(`bank:${p.key}`, draft.bankKeys.includes(p.key), `${p.bankName} (${p.key})`),
  );
  const slots = Math.min(POLICY_LIMITS.groups, Math.max(3, draft.groups.length + 2));
  const groups = Array.from({ length: slots }, (_, i) =>
    groupSlot(i, draft.groups[i] ?? { name: '', order: String(i + 1), userIds: [] }, members, errors),
  );
  return html`<form method="post" action="${action}" class="stack policy">${csrfField(view)}
${errors['form'] ? html`<p class="field-error" id="policy-form-error">${errors['form']}</p>` : ''}
${inputField({ id: 'pol-name', name: 'name', label: 'Policy name', value: draft.name, errors, extra: html` required maxlength="${POLICY_LIMITS.name}"` })}
${check('enabled', draft.enabled, 'Enabled: applies to new payments', 'pol-enabled')}
<label for="pol-env">Environment</label><select id="pol-env" name="environment"${invalidAttrs('pol-env', errors, 'environment')}>${environments}</select>${fieldError('pol-env', errors, 'environment')}
${inputField({ id: 'pol-cur', name: 'currency', label: 'Currency (empty: any)', value: draft.currency, errors, extra: html` maxlength="3"` })}
${inputField({ id: 'pol-min', name: 'minAmount', label: 'From amount (a document whose total or largest payment reaches it)', value: draft.minAmount, errors, extra: html` required` })}
<fieldset class="banks"${invalidAttrs('pol-banks', errors, 'bankKeys')}><legend>Banks (none ticked: every bank)</legend>${banks}${fieldError('pol-banks', errors, 'bankKeys')}</fieldset>
${inputField({ id: 'pol-req', name: 'requiredApprovals', label: 'Approvals needed', type: 'number', value: draft.requiredApprovals, errors, extra: html` min="1" max="${POLICY_LIMITS.requiredApprovals}" required` })}
${check('twoFactorRequired', draft.twoFactorRequired, 'Each approval needs a 2FA code', 'pol-2fa')}
<h2>Groups</h2>
<p>Without groups, any user with the approver or admin role may approve. With groups, only their members count. Leave a group's name and members empty to leave it out.</p>
${check('requireOneFromEachGroup', draft.requireOneFromEachGroup, 'One approval from each group', 'pol-each')}
${check('orderedApproval', draft.orderedApproval, 'Groups approve in their order (the order field: 1 first)', 'pol-ordered')}
${errors['groups'] ? html`<p class="field-error" id="pol-groups-error">${errors['groups']}</p>` : ''}
${groups}
<div class="actions"><button type="submit" class="primary">${policyId ? 'Save the changes' : 'Add the policy'}</button> <a href="/dashboard/approvals">Cancel</a></div></form>`;
}

/** Users who may approve (the group members the use case accepts), for the member checkboxes. */
async function eligibleMembers(ctx: HttpServices['ctx'], view: DashboardView, companyId: string): Promise<Member[]> {
  const { users } = await listUsers(ctx, view.session, view.session.platformId, companyId);
  return users
    .filter((u) => u.status !== 'erased' && (u.roles.includes('approver') || u.roles.includes('admin')))
    .map((u) => ({ id: u.id, label: `${u.name} (${u.email})` }));
}

/**
 * The approval policy form (company admins): create and edit with every field of the policy routes
 * (POST /approval-policies, PUT /approval-policies/{id}): environment, currency, amount, banks,
 * approvals needed, 2FA, groups with their members, one from each group and ordered approval. A
 * refused policy comes back as the form as it was sent, each issue at its field.
 */
export const approvalPolicyPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  async function formPage(view: DashboardView, draft: Draft, errors: FieldErrors, policyId?: string, status = 200) {
    const companyId = currentCompanyId(view);
    const members = await eligibleMembers(ctx, view, companyId);
    const problems = Object.keys(errors).length;
    const notices: Notice[] =
      problems > 0
        ? [{ kind: 'error', text: `The policy was not saved: ${problems} field(s) to correct, marked below.` }]
        : [];
    return {
      title: policyId ? `Edit the policy ${draft.name}` : 'New approval policy',
      active: 'approvals',
      status,
      notices,
      body: policyForm(view, draft, members, errors, policyId),
    };
  }

  async function policyOf(view: DashboardView, id: string): Promise<Policy> {
    const { items } = await listCompanyPolicies(ctx, view.session, view.session.platformId, currentCompanyId(view));
    const found = items.find((p) => p.id === id);
    if (!found) throw notFound('approval policy');
    return found;
  }

  app.get('/dashboard/approval-policies/new', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    // Only an admin may read policies: the same check as listing them.
    await listCompanyPolicies(ctx, view.session, view.session.platformId, currentCompanyId(view));
    return sendDashboardPage(reply, view, await formPage(view, NEW_DRAFT, {}));
  });

  app.get('/dashboard/approval-policies/:id', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const policy = await policyOf(view, (request.params as { id: string }).id);
    return sendDashboardPage(reply, view, await formPage(view, draftOf(policy), {}, policy.id));
  });

  /** Create (no id) or replace every field (an id): the approvals page with a notice, or the form again. */
  async function save(view: DashboardView, body: unknown, policyId?: string) {
    const form = parseForm(body);
    const draft = draftFromForm(form.ok ? form.params : {});
    const { input, slotOf } = policyInputOf(draft);
    const scope = { platformId: view.session.platformId, companyId: currentCompanyId(view) };
    try {
      const saved = policyId
        ? await changePolicy(ctx, view.session, policyId, { ...input, ...scope })
        : await createPolicy(ctx, view.session, { ...input, ...scope });
      const text = policyId
        ? `The policy ${saved.name} is changed; approvals already waiting keep their rules.`
        : `The policy ${saved.name} is in force for new payments.`;
      return approvalsPage(ctx, view, 'pending', undefined, [{ kind: 'ok', text }]);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500 || error.status === 401) throw error;
      if (error.status !== 400) throw error;
      return formPage(view, draft, errorsOf(error, slotOf), policyId, 400);
    }
  }

  app.post('/dashboard/approval-policies', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    return sendDashboardPage(reply, view, await save(view, request.body));
  });

  app.post('/dashboard/approval-policies/:id', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    return sendDashboardPage(reply, view, await save(view, request.body, (request.params as { id: string }).id));
  });
};
