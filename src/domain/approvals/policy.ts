import { currencyExponent } from '../money/currencies.ts';
import type { ApprovalGroup } from './rules.ts';

/**
 * An approval policy as a company admin writes it (DESIGN.md, Approvals), and its checks. A policy
 * that could never be satisfied (more approvals than its groups have members, or group rules without
 * groups) is refused when it is written, not discovered when a payment waits on it.
 */
export const POLICY_ENVIRONMENTS = ['production', 'test', 'any'] as const;
export type PolicyEnvironment = (typeof POLICY_ENVIRONMENTS)[number];

export type PolicyFields = {
  name: string;
  enabled: boolean;
  environment: PolicyEnvironment;
  currency: string | null;
  minAmount: string;
  bankKeys: string[] | null;
  requiredApprovals: number;
  groups: ApprovalGroup[];
  requireOneFromEachGroup: boolean;
  orderedApproval: boolean;
  twoFactorRequired: boolean;
};

export const POLICY_LIMITS = {
  name: 200,
  groups: 10,
  groupName: 100,
  groupMembers: 50,
  requiredApprovals: 10,
} as const;

export const POLICY_DEFAULTS: Omit<PolicyFields, 'name'> = {
  enabled: true,
  environment: 'any',
  currency: null,
  minAmount: '0',
  bankKeys: null,
  requiredApprovals: 1,
  groups: [],
  requireOneFromEachGroup: false,
  orderedApproval: false,
  twoFactorRequired: false,
};

export type PolicyIssue = { path: string; code: string; message: string };

const DECIMAL = /^\d{1,15}(\.\d{1,6})?$/;

/** Every problem of a policy at once (empty: valid). Users and banks are checked by the caller. */
export function policyIssues(p: PolicyFields): PolicyIssue[] {
  const issues: PolicyIssue[] = [];
  const add = (path: string, code: string, message: string) => issues.push({ path, code, message });
  if (p.name.trim().length === 0) add('name', 'required', 'a policy needs a name');
  if (p.name.length > POLICY_LIMITS.name) add('name', 'too_long', `at most ${POLICY_LIMITS.name} characters`);
  if (!POLICY_ENVIRONMENTS.includes(p.environment)) add('environment', 'invalid', 'production, test or any');
  if (p.currency !== null && (!/^[A-Z]{3}$/.test(p.currency) || currencyExponent(p.currency) === undefined))
    add('currency', 'invalid_currency', 'an ISO 4217 currency code');
  if (!DECIMAL.test(p.minAmount))
    add('minAmount', 'invalid_amount', 'a non-negative decimal string such as "10000.00"');
  if (p.bankKeys !== null && p.bankKeys.length === 0)
    add('bankKeys', 'invalid', 'leave bankKeys out to match every bank');
  if (
    !Number.isInteger(p.requiredApprovals) ||
    p.requiredApprovals < 1 ||
    p.requiredApprovals > POLICY_LIMITS.requiredApprovals
  )
    add('requiredApprovals', 'invalid', `an integer from 1 to ${POLICY_LIMITS.requiredApprovals}`);
  if (p.groups.length > POLICY_LIMITS.groups) add('groups', 'too_many', `at most ${POLICY_LIMITS.groups} groups`);
  const names = new Set<string>();
  p.groups.forEach((g, i) => {
    if (g.name.trim().length === 0 || g.name.length > POLICY_LIMITS.groupName)
      add(`groups[${i}].name`, 'invalid', `a name of 1 to ${POLICY_LIMITS.groupName} characters`);
    if (names.has(g.name)) add(`groups[${i}].name`, 'duplicate', 'group names are unique in a policy');
    names.add(g.name);
    if (g.userIds.length === 0 || g.userIds.length > POLICY_LIMITS.groupMembers)
      add(`groups[${i}].userIds`, 'invalid', `1 to ${POLICY_LIMITS.groupMembers} users`);
    if (new Set(g.userIds).size !== g.userIds.length)
      add(`groups[${i}].userIds`, 'duplicate', 'a user is named once per group');
  });
  if (p.groups.length === 0 && (p.requireOneFromEachGroup || p.orderedApproval))
    add('groups', 'required', 'requireOneFromEachGroup and orderedApproval need groups');
  if (p.groups.length > 0) {
    const members = new Set(p.groups.flatMap((g) => g.userIds));
    if (members.size < p.requiredApprovals)
      add(
        'requiredApprovals',
        'unsatisfiable',
        `the groups have ${members.size} members, fewer than requiredApprovals`,
      );
    if ((p.requireOneFromEachGroup || p.orderedApproval) && members.size < p.groups.length)
      add('groups', 'unsatisfiable', 'one approval from each group needs as many distinct members as groups');
  }
  return issues;
}
