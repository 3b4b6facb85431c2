import type { ApprovalRow } from '../../db/repositories/approvals.ts';
import {
  type ApprovalState,
  approveRefusal,
  type Checker,
  coveredGroups,
  DEFAULT_RULES,
} from '../../domain/approvals/rules.ts';
import { currencyExponent } from '../../domain/money/currencies.ts';
import { formatMinor } from '../../domain/money/money.ts';
import { isCompanyAdmin } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';

/**
 * Who is looking at an approval, as far as deciding goes: a checker (a signed-in user with their roles
 * in the company), or why they cannot decide at all. An API key and an installed application's token
 * never decide (DESIGN.md: approvals are decided by signed-in users; never delegable).
 */
export type Viewer = { checker: Checker; twoFactorEnrolled: boolean } | { blockReason: string };

/** The roles a session user holds in the company: a workspace admin inside its context is its admin. */
export function rolesIn(principal: Principal, companyId: string): string[] {
  if (principal.kind !== 'session') return [];
  if (principal.user.companyId === companyId) return principal.user.roles;
  return isCompanyAdmin(principal, companyId) ? ['admin'] : [];
}

export function viewerOf(principal: Principal, companyId: string, twoFactorEnrolled: boolean): Viewer {
  if (principal.kind !== 'session') return { blockReason: 'session_required' };
  return { checker: { userId: principal.user.id, roles: rolesIn(principal, companyId) }, twoFactorEnrolled };
}

/** canApprove and blockReason for the viewer: the refusal code approving now would get, or null. */
export function approvalAbility(
  state: ApprovalState,
  viewer: Viewer,
): { canApprove: boolean; blockReason: string | null } {
  if ('blockReason' in viewer) return { canApprove: false, blockReason: viewer.blockReason };
  const refusal = approveRefusal(state, viewer.checker);
  if (refusal) return { canApprove: false, blockReason: refusal };
  if (state.rules.twoFactorRequired && !viewer.twoFactorEnrolled) {
    return { canApprove: false, blockReason: 'two_factor_required' };
  }
  return { canApprove: true, blockReason: null };
}

export type DocumentFacts = {
  documentId: string;
  journalNo: string;
  messageId: string | null;
  totals: ReadonlyArray<{ currency: string; amount: string }>;
  lines: ReadonlyArray<{ amountMinor: bigint; currency: string; payeeName: string | null }>;
};

export function stateOf(row: ApprovalRow): ApprovalState {
  return {
    status: row.status,
    makerUserId: row.makerUserId,
    rules: row.rules ?? DEFAULT_RULES,
    decisions: row.decisions,
  };
}

/**
 * The approval as the routes show it (DESIGN.md, Approvals; the per-payment view's approval summary is
 * the same object): amounts in the document's first currency, the groups and whether each is covered,
 * the decisions with the names users have now (an erased user shows as erased), and what the viewer
 * may do.
 */
export function approvalView(row: ApprovalRow, doc: DocumentFacts, viewer: Viewer, names: Map<string, string>) {
  const state = stateOf(row);
  const { rules } = state;
  const currency = doc.totals[0]?.currency ?? doc.lines[0]?.currency ?? null;
  const exponent = currency ? (currencyExponent(currency) ?? 2) : 2;
  let max: bigint | undefined;
  let maxPayee: string | null = null;
  for (const line of doc.lines) {
    if (line.currency === currency && (max === undefined || line.amountMinor > max)) {
      max = line.amountMinor;
      maxPayee = line.payeeName;
    }
  }
  const payees = [...new Set(doc.lines.map((l) => l.payeeName).filter((n): n is string => !!n))];
  const covered = coveredGroups(rules, state.decisions);
  const nameOf = (userId: string, atDecision: string) => names.get(userId) ?? atDecision;
  const ability = approvalAbility(state, viewer);
  return {
    id: row.id,
    documentId: doc.documentId,
    journalNo: doc.journalNo,
    status: row.status,
    policyId: row.policyId,
    policyName: row.policyName,
    paymentRef: doc.messageId ?? doc.journalNo,
    payeeName: payees.length === 1 ? payees[0]! : payees.length === 0 ? null : `${payees.length} payees`,
    currency,
    maxTransaction: max === undefined ? null : formatMinor(max, exponent),
    maxTransactionPayee: maxPayee,
    journalTotal: doc.totals.find((t) => t.currency === currency)?.amount ?? null,
    requiredApprovals: rules.requiredApprovals,
    requireOneFromEachGroup: rules.requireOneFromEachGroup,
    orderedApproval: rules.orderedApproval,
    groupCount: rules.groups.length,
    groups: rules.groups.map((g, i) => ({ name: g.name, satisfied: covered[i] ?? false })),
    approvals: state.decisions
      .filter((d) => d.decision === 'approve')
      .map((d) => ({ userId: d.userId, userName: nameOf(d.userId, d.userName), at: d.at })),
    rejections: state.decisions
      .filter((d) => d.decision === 'reject')
      .map((d) => ({ userId: d.userId, userName: nameOf(d.userId, d.userName), at: d.at, reason: d.reason ?? null })),
    makerUserId: row.makerUserId,
    canApprove: ability.canApprove,
    blockReason: ability.blockReason,
    twoFactorRequired: rules.twoFactorRequired,
    closedReason: row.closedReason,
    createdAt: row.createdAt.toISOString(),
    decidedAt: row.decidedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}

export type ApprovalView = ReturnType<typeof approvalView>;
