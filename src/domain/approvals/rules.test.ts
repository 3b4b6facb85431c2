import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchPolicy, type PolicyForMatch } from '../journal/approval-match.ts';
import { POLICY_DEFAULTS, policyIssues } from './policy.ts';
import {
  type ApprovalDecision,
  type ApprovalRules,
  type ApprovalState,
  approvalDecision,
  approveRefusal,
  coveredGroups,
  DEFAULT_RULES,
  isSatisfied,
  rejectRefusal,
} from './rules.ts';

const approver = (userId: string) => ({ userId, userName: userId, roles: ['approver'] });
const at = new Date('2026-11-26T12:00:00Z');

function state(
  rules: Partial<ApprovalRules>,
  decisions: ApprovalDecision[] = [],
  makerUserId: string | null = 'maker',
): ApprovalState {
  return { status: 'pending', makerUserId, rules: { ...DEFAULT_RULES, ...rules }, decisions };
}

/** Approves as each user in turn, asserting each is allowed; answers the decisions. */
function approveAll(rules: Partial<ApprovalRules>, users: string[]): ApprovalDecision[] {
  let decisions: ApprovalDecision[] = [];
  for (const u of users) {
    const s = state(rules, decisions);
    assert.equal(approveRefusal(s, approver(u)), undefined, `${u} may approve`);
    decisions = [...decisions, approvalDecision(s, approver(u), at, false)];
  }
  return decisions;
}

test('the maker never counts, one user counts once, only approvers and admins decide', () => {
  const s = state({ requiredApprovals: 2 });
  assert.equal(approveRefusal(s, approver('maker')), 'maker_cannot_approve');
  assert.equal(rejectRefusal(s, approver('maker')), 'maker_cannot_approve');
  assert.equal(approveRefusal(s, { userId: 'v', roles: ['viewer'] }), 'not_an_approver');
  assert.equal(approveRefusal(s, { userId: 'a', roles: ['admin'] }), undefined);
  const one = approveAll({ requiredApprovals: 2 }, ['a']);
  assert.equal(approveRefusal(state({ requiredApprovals: 2 }, one), approver('a')), 'already_decided');
  assert.equal(rejectRefusal(state({ requiredApprovals: 2 }, one), approver('a')), 'already_decided');
  assert.equal(isSatisfied({ ...DEFAULT_RULES, requiredApprovals: 2 }, one), false);
  assert.equal(
    isSatisfied({ ...DEFAULT_RULES, requiredApprovals: 2 }, approveAll({ requiredApprovals: 2 }, ['a', 'b'])),
    true,
  );
  // An API key's submit has no maker: every checker may decide.
  assert.equal(approveRefusal(state({}, [], null), approver('maker')), undefined);
  assert.equal(approveRefusal({ ...s, status: 'approved' }, approver('a')), 'approval_not_pending');
});

test('groups name who may decide; one from each group needs every group covered, one user covering one', () => {
  const groups = [
    { name: 'finance', userIds: ['f1', 'both'] },
    { name: 'board', userIds: ['both', 'b1'] },
  ];
  const rules = { requiredApprovals: 2, groups, requireOneFromEachGroup: true };
  assert.equal(approveRefusal(state(rules), approver('outsider')), 'not_an_approver');
  // 'both' sits in two groups but covers one: with f1 the matching still covers both groups.
  const twoFromOneSide = approveAll(rules, ['both', 'f1']);
  assert.deepEqual(coveredGroups({ ...DEFAULT_RULES, ...rules }, twoFromOneSide), [true, true]);
  assert.equal(isSatisfied({ ...DEFAULT_RULES, ...rules }, twoFromOneSide), true);
  // Alone, 'both' covers one group only.
  const alone = approveAll({ ...rules, requiredApprovals: 1 }, ['both']);
  assert.equal(isSatisfied({ ...DEFAULT_RULES, ...rules, requiredApprovals: 1 }, alone), false);
  // Without requireOneFromEachGroup, two members of one group are enough.
  const loose = { requiredApprovals: 2, groups };
  assert.equal(isSatisfied({ ...DEFAULT_RULES, ...loose }, approveAll(loose, ['f1', 'both'])), true);
});

test('ordered approval takes the groups in their order, and rejection in any order', () => {
  const rules = {
    requiredApprovals: 2,
    orderedApproval: true,
    groups: [
      { name: 'first', userIds: ['a'] },
      { name: 'second', userIds: ['b'] },
    ],
  };
  assert.equal(approveRefusal(state(rules), approver('b')), 'out_of_order');
  assert.equal(
    rejectRefusal(state(rules), approver('b')),
    undefined,
    'stopping a payment is always allowed to a checker',
  );
  const decisions = approveAll(rules, ['a', 'b']);
  assert.deepEqual(
    decisions.map((d) => d.group),
    [0, 1],
  );
  assert.equal(isSatisfied({ ...DEFAULT_RULES, ...rules }, decisions), true);
});

test('one policy applies: highest minAmount, then most approvals, then the oldest', () => {
  const p = (id: string, minAmount: string, requiredApprovals: number): PolicyForMatch => ({
    id,
    enabled: true,
    environment: 'any',
    currency: null,
    minAmount,
    bankKeys: null,
    rules: { requiredApprovals },
  });
  const doc = {
    environment: 'test',
    bankKey: 'demo',
    lines: [{ currency: 'EUR', amountMinor: 100_000n, exponent: 2 }],
  };
  assert.equal(matchPolicy([p('old', '10', 1), p('high', '500.00', 1), p('over', '1000.01', 5)], doc)?.id, 'high');
  assert.equal(matchPolicy([p('one', '500', 1), p('two', '500.0', 2)], doc)?.id, 'two');
  assert.equal(matchPolicy([p('first', '500', 2), p('second', '500', 2)], doc)?.id, 'first');
  assert.equal(matchPolicy([p('over', '1000.01', 1)], doc), undefined);
});

test('a policy that could never be satisfied is refused when written', () => {
  const base = { ...POLICY_DEFAULTS, name: 'p' };
  assert.deepEqual(policyIssues(base), []);
  const codes = (p: typeof base) => policyIssues(p).map((i) => `${i.path}:${i.code}`);
  assert.deepEqual(codes({ ...base, orderedApproval: true }), ['groups:required']);
  assert.deepEqual(codes({ ...base, requiredApprovals: 3, groups: [{ name: 'g', userIds: ['a', 'b'] }] }), [
    'requiredApprovals:unsatisfiable',
  ]);
  assert.deepEqual(codes({ ...base, minAmount: '1e5', currency: 'EURO', name: ' ' }), [
    'name:required',
    'currency:invalid_currency',
    'minAmount:invalid_amount',
  ]);
});
