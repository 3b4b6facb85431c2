import type { ApprovalStatus } from '../lifecycle/index.ts';

/**
 * Maker-checker rules (DESIGN.md, Approvals), pure: who may decide an approval, and when it is
 * satisfied. The rules are frozen into the approval at submit, so a policy edited later never changes
 * an approval in flight.
 *
 * - The maker never counts as a checker, and one user counts once (a second decision is refused).
 * - Without groups, any user with the approver or admin role may decide. With groups, only their
 *   members may; `requireOneFromEachGroup` needs an approval from a member of every group (one user
 *   covers one group only, however many groups name them); `orderedApproval` needs the groups in their
 *   order: an approval is taken only from a member of the first group not yet covered (or, once every
 *   group is covered, from any member), and it covers that group. Ordered approval therefore also
 *   needs one approval per group.
 * - Satisfied: at least `requiredApprovals` approvals, and every group covered when the rules need it.
 * - A rejection by any user who may decide rejects the whole approval, in any order: stopping a payment
 *   is always allowed to a checker.
 */
export type ApprovalGroup = { name: string; userIds: readonly string[] };

export type ApprovalRules = {
  requiredApprovals: number;
  groups: readonly ApprovalGroup[];
  requireOneFromEachGroup: boolean;
  orderedApproval: boolean;
  twoFactorRequired: boolean;
};

export type ApprovalDecision = {
  userId: string;
  userName: string;
  decision: 'approve' | 'reject';
  /** ISO date-time. */
  at: string;
  reason?: string;
  /** Under ordered approval: the index of the group this approval covered. */
  group?: number;
  /** Whether a second factor was verified with this decision. */
  twoFactor?: boolean;
};

export type ApprovalState = {
  status: ApprovalStatus;
  makerUserId: string | null;
  rules: ApprovalRules;
  decisions: readonly ApprovalDecision[];
};

/** The user deciding: their id and roles in the company (a workspace admin in its context is an admin). */
export type Checker = { userId: string; roles: readonly string[] };

/** Why a user may not decide now; each is an error code of the decision routes. */
export type DecisionRefusal =
  | 'approval_not_pending'
  | 'maker_cannot_approve'
  | 'already_decided'
  | 'not_an_approver'
  | 'out_of_order';

export const DEFAULT_RULES: ApprovalRules = {
  requiredApprovals: 1,
  groups: [],
  requireOneFromEachGroup: false,
  orderedApproval: false,
  twoFactorRequired: false,
};

function hasCheckerRole(checker: Checker): boolean {
  return checker.roles.includes('approver') || checker.roles.includes('admin');
}

function groupsOf(rules: ApprovalRules, userId: string): number[] {
  const out: number[] = [];
  rules.groups.forEach((g, i) => {
    if (g.userIds.includes(userId)) out.push(i);
  });
  return out;
}

function approvalsOf(decisions: readonly ApprovalDecision[]): ApprovalDecision[] {
  return decisions.filter((d) => d.decision === 'approve');
}

/** Whether the rules need every group covered (one approval from each). */
function needsEveryGroup(rules: ApprovalRules): boolean {
  return rules.groups.length > 0 && (rules.requireOneFromEachGroup || rules.orderedApproval);
}

/**
 * Which groups the approvals cover, one user covering one group. Ordered approval records the group
 * each approval covered; otherwise the best assignment is found (a bipartite matching: the groups are
 * few, so augmenting paths are cheap), so the order in which members approved never matters.
 */
export function coveredGroups(rules: ApprovalRules, decisions: readonly ApprovalDecision[]): boolean[] {
  const approvals = approvalsOf(decisions);
  const covered = rules.groups.map(() => false);
  if (rules.orderedApproval) {
    for (const a of approvals) if (a.group !== undefined && a.group < covered.length) covered[a.group] = true;
    return covered;
  }
  if (!rules.requireOneFromEachGroup) {
    for (const a of approvals) for (const g of groupsOf(rules, a.userId)) covered[g] = true;
    return covered;
  }
  const holder: Array<string | undefined> = rules.groups.map(() => undefined);
  const tryAssign = (userId: string, seen: Set<number>): boolean => {
    for (const g of groupsOf(rules, userId)) {
      if (seen.has(g)) continue;
      seen.add(g);
      const current = holder[g];
      if (current === undefined || tryAssign(current, seen)) {
        holder[g] = userId;
        return true;
      }
    }
    return false;
  };
  for (const a of approvals) tryAssign(a.userId, new Set());
  return holder.map((h) => h !== undefined);
}

/** Whether the approvals so far satisfy the rules. */
export function isSatisfied(rules: ApprovalRules, decisions: readonly ApprovalDecision[]): boolean {
  if (approvalsOf(decisions).length < rules.requiredApprovals) return false;
  return !needsEveryGroup(rules) || coveredGroups(rules, decisions).every(Boolean);
}

/** Refusals every decision shares: status, maker, a second decision, eligibility. */
function commonRefusal(state: ApprovalState, checker: Checker): DecisionRefusal | undefined {
  if (state.status !== 'pending') return 'approval_not_pending';
  if (state.makerUserId !== null && state.makerUserId === checker.userId) return 'maker_cannot_approve';
  if (state.decisions.some((d) => d.userId === checker.userId)) return 'already_decided';
  if (!hasCheckerRole(checker)) return 'not_an_approver';
  if (state.rules.groups.length > 0 && groupsOf(state.rules, checker.userId).length === 0) return 'not_an_approver';
  return undefined;
}

/**
 * Under ordered approval, the group an approval by this user covers now: the first group not yet
 * covered when they are in it; once every group is covered, their first group. Undefined when they
 * are only in later groups (out of order), or the rules are not ordered.
 */
export function orderedGroupFor(state: ApprovalState, userId: string): number | undefined {
  if (!state.rules.orderedApproval || state.rules.groups.length === 0) return undefined;
  const covered = coveredGroups(state.rules, state.decisions);
  const mine = groupsOf(state.rules, userId);
  const current = covered.indexOf(false);
  if (current === -1) return mine[0];
  if (mine.includes(current)) return current;
  // An extra approval from a group already covered does not jump the order.
  const earlier = mine.find((g) => g < current);
  return earlier;
}

/** Why this user may not approve now (without the second factor, which the caller checks), or undefined. */
export function approveRefusal(state: ApprovalState, checker: Checker): DecisionRefusal | undefined {
  const common = commonRefusal(state, checker);
  if (common) return common;
  if (state.rules.orderedApproval && state.rules.groups.length > 0) {
    if (orderedGroupFor(state, checker.userId) === undefined) return 'out_of_order';
  }
  return undefined;
}

/** Why this user may not reject now, or undefined. A checker may reject in any order. */
export function rejectRefusal(state: ApprovalState, checker: Checker): DecisionRefusal | undefined {
  return commonRefusal(state, checker);
}

/** The decision record of an approval by this user (with the group it covers under ordered approval). */
export function approvalDecision(
  state: ApprovalState,
  checker: Checker & { userName: string },
  at: Date,
  twoFactor: boolean,
): ApprovalDecision {
  const group = orderedGroupFor(state, checker.userId);
  return {
    userId: checker.userId,
    userName: checker.userName,
    decision: 'approve',
    at: at.toISOString(),
    ...(group !== undefined ? { group } : {}),
    ...(twoFactor ? { twoFactor: true } : {}),
  };
}

/** Pending approvals expire after this long (DESIGN.md): the document is cancelled. */
export const APPROVAL_LIFETIME_DAYS = 14;

export function approvalExpiry(createdAt: Date): Date {
  return new Date(createdAt.getTime() + APPROVAL_LIFETIME_DAYS * 24 * 60 * 60 * 1000);
}
