import type { Executor } from '../../db/executor.ts';
import {
  type ApprovalRow,
  findApprovalCompany,
  insertDeliveryRequest,
  lockApproval,
  updateApproval,
} from '../../db/repositories/approvals.ts';
import {
  type JournalDocumentRow,
  lockDocument,
  outboundOf,
  updateDocumentStatus,
} from '../../db/repositories/journal-documents.ts';
import {
  type ApprovalDecision,
  approvalDecision,
  approveRefusal,
  type DecisionRefusal,
  isSatisfied,
  rejectRefusal,
} from '../../domain/approvals/rules.ts';
import {
  type ApprovalStatus,
  approvalTransition,
  type DocumentEvent,
  deliveryTransition,
  documentTransition,
} from '../../domain/lifecycle/index.ts';
import { type AuditEvent, recordEvents } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import { emitEvent } from '../events/outbox.ts';
import { requireCompanyMember, requireSession } from '../identity/access.ts';
import { type CodeVerdict, withCodeLimits } from '../identity/code-limits.ts';
import type { Principal, SessionPrincipal } from '../identity/principal.ts';
import { stepUpSubject } from '../identity/two-factor.ts';
import { readApproval } from './queue.ts';
import { secondFactorVerified } from './second-factor.ts';
import { rolesIn, stateOf } from './view.ts';

/**
 * POST /approvals/{id}/approve and /reject (DESIGN.md, Approvals): a checker's decision, in one
 * transaction with what it causes. Locks in the order every writer of a document uses (the document,
 * then its approval, then the chain heads for the audit events), so two checkers deciding at once, a
 * decision racing the client's cancel and a decision racing the expiry sweep are serialised: the second
 * reads what the first wrote and is refused (409 approval_not_pending) or adds to it.
 * The last approval the rules need makes the document `converted` and writes its delivery request (the
 * delivery outbox) in the same transaction; a rejection cancels the document.
 */
const REASON_MAX = 500;

type Decided = { session: SessionPrincipal; scope: { platformId: string; companyId: string }; documentId: string };

async function decisionScope(ctx: AppContext, principal: Principal, id: string): Promise<Decided> {
  const session = requireSession(principal);
  const found = await findApprovalCompany(ctx.db, session.platformId, id);
  if (!found) throw notFound('approval');
  requireCompanyMember(session, session.platformId, found.companyId);
  return {
    session,
    scope: { platformId: session.platformId, companyId: found.companyId },
    documentId: found.documentId,
  };
}

function refused(refusal: DecisionRefusal, row: ApprovalRow): AppError {
  const messages: Record<DecisionRefusal, string> = {
    approval_not_pending: `the approval is ${row.status}`,
    maker_cannot_approve: 'the maker of a payment cannot decide on it',
    already_decided: 'you have already decided on this approval',
    not_an_approver:
      'only users with the approver or admin role, and in one of the policy groups when it has groups, decide',
    out_of_order: 'this policy takes approvals group by group, and an earlier group has not approved yet',
  };
  // Not a checker at all is the generic 403 of the control plane; the table gives each its status.
  const code = refusal === 'not_an_approver' ? 'forbidden' : refusal;
  return new AppError(code, messages[refusal], refusal === 'approval_not_pending' ? { status: row.status } : undefined);
}

/** The document and its approval, locked in that order; the approval must still be the one named. */
async function lockPair(tx: Executor, d: Decided, id: string): Promise<{ doc: JournalDocumentRow; row: ApprovalRow }> {
  const doc = await lockDocument(tx, d.scope, d.documentId);
  const row = await lockApproval(tx, d.scope, id);
  if (!doc || !row) throw notFound('approval');
  return { doc, row };
}

/** A pending approval past its expiry is refused like an expired one, before the sweep gets to it. */
function expiredByTime(row: ApprovalRow, now: Date): boolean {
  return row.status === 'pending' && row.expiresAt !== null && row.expiresAt.getTime() <= now.getTime();
}

type Checker = { userId: string; userName: string; roles: ReturnType<typeof rolesIn> };
type LockedDecision = {
  tx: Executor;
  doc: JournalDocumentRow;
  row: ApprovalRow;
  state: ReturnType<typeof stateOf>;
  checker: Checker;
  scope: Decided['scope'];
  now: Date;
};

/**
 * The part approve and reject share: the checker's scope, then, in one transaction, the document and
 * approval locked, an approval past its expiry refused as expired, and the decision's own refusal rule
 * applied before `decide` writes what the decision causes. Answers the approval as it now reads.
 */
async function decideLocked(
  ctx: AppContext,
  principal: Principal,
  id: string,
  refusalOf: (state: LockedDecision['state'], checker: Checker) => DecisionRefusal | undefined,
  decide: (locked: LockedDecision) => Promise<void>,
) {
  const d = await decisionScope(ctx, principal, id);
  const { session, scope } = d;
  const checker = { userId: session.user.id, userName: session.user.name, roles: rolesIn(session, scope.companyId) };
  await ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const { doc, row } = await lockPair(tx, d, id);
    if (expiredByTime(row, now)) throw refused('approval_not_pending', { ...row, status: 'expired' });
    const state = stateOf(row);
    const refusal = refusalOf(state, checker);
    if (refusal) throw refused(refusal, row);
    await decide({ tx, doc, row, state, checker, scope, now });
  });
  return readApproval(ctx, principal, id);
}

/**
 * A code sent with an approval is a step-up: wrong ones count per user and per session, and a locked
 * step-up answers 429 before the approval is read (identity/code-limits.ts, ADR 0057).
 */
export async function approve(ctx: AppContext, principal: Principal, id: string, input: { code?: string | undefined }) {
  if (input.code === undefined || principal.kind !== 'session')
    return approveChecked(ctx, principal, id, input, () => {});
  return withCodeLimits(ctx, stepUpSubject(principal, 'POST /approvals/{id}/approve'), (verdict) =>
    approveChecked(ctx, principal, id, input, verdict),
  );
}

async function approveChecked(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: { code?: string | undefined },
  verdict: (v: CodeVerdict) => void,
) {
  return decideLocked(ctx, principal, id, approveRefusal, async ({ tx, doc, row, state, checker, scope, now }) => {
    // A code is checked when the policy needs one, and whenever one is sent: a wrong code is never
    // accepted silently, and a verified one is recorded with the decision.
    let twoFactor = false;
    if (state.rules.twoFactorRequired || input.code !== undefined) {
      twoFactor = await secondFactorVerified(ctx, tx, scope.platformId, checker.userId, input.code, verdict);
      if (!twoFactor) {
        throw new AppError(
          'two_factor_required',
          'this policy needs a valid TOTP code from your authenticator (enable 2FA first if you have not)',
        );
      }
    }
    const decision = approvalDecision(state, checker, now, twoFactor);
    const decisions = [...state.decisions, decision];
    const events: AuditEvent[] = [decisionAudit(doc, row, decision)];
    if (!isSatisfied(state.rules, decisions)) {
      await updateApproval(tx, scope, row.id, 'pending', { decisions, updatedAt: now });
    } else {
      await closeApproval(tx, scope, row, 'approved', { decisions, closedReason: null, now });
      await moveDocument(tx, doc, { type: 'approved' }, now);
      if (doc.deliveryMode === 'host-to-host') {
        await insertDeliveryRequest(tx, {
          documentId: doc.id,
          platformId: doc.platformId,
          companyId: doc.companyId,
          createdAt: now,
        });
      }
      await emitApprovalEvent(ctx, tx, 'approval.approved', doc, row, { approvals: decisions.length });
      events.push(
        outcomeAudit(doc, row, 'approval.approved', checker.userId, `${doc.journalNo} approved: released for delivery`),
      );
    }
    await recordEvents(ctx, tx, events);
  });
}

export async function reject(ctx: AppContext, principal: Principal, id: string, input: { reason: string }) {
  const reason = input.reason.trim();
  if (reason.length === 0) throw badRequest('a rejection needs a reason', { field: 'reason' });
  if (reason.length > REASON_MAX)
    throw badRequest(`the reason is longer than ${REASON_MAX} characters`, { field: 'reason' });
  return decideLocked(ctx, principal, id, rejectRefusal, async ({ tx, doc, row, state, checker, scope, now }) => {
    const decision: ApprovalDecision = {
      userId: checker.userId,
      userName: checker.userName,
      decision: 'reject',
      at: now.toISOString(),
      reason,
    };
    const decisions = [...state.decisions, decision];
    // One rejection rejects the approval and cancels the document (DESIGN.md).
    await closeApproval(tx, scope, row, 'rejected', { decisions, closedReason: reason, now });
    await moveDocument(tx, doc, { type: 'approval-closed' }, now);
    await emitApprovalEvent(ctx, tx, 'approval.rejected', doc, row, { reason, rejectedBy: checker.userId });
    await recordEvents(ctx, tx, [
      decisionAudit(doc, row, decision),
      outcomeAudit(doc, row, 'approval.rejected', checker.userId, `${doc.journalNo} rejected: ${reason}`),
      cancelledAudit(doc, checker.userId, `rejected by an approver: ${reason}`),
    ]);
  });
}

/** Moves the approval out of pending as the state machine allows (conditional on pending). */
export async function closeApproval(
  tx: Executor,
  scope: { platformId: string; companyId: string },
  row: ApprovalRow,
  to: ApprovalStatus,
  change: { decisions?: ApprovalDecision[]; closedReason: string | null; now: Date },
): Promise<void> {
  const move = approvalTransition(row.status, to);
  if (!move.ok) throw new Error(move.reason);
  await updateApproval(tx, scope, row.id, row.status, {
    status: move.to,
    ...(change.decisions ? { decisions: change.decisions } : {}),
    closedReason: change.closedReason,
    decidedAt: change.now,
    updatedAt: change.now,
  });
}

/**
 * The document's move for the approval's outcome, with its delivery state (host-to-host): released
 * (`converted`, delivery `queued`) or closed (`cancelled`, delivery `cancelled`).
 */
export async function moveDocument(
  tx: Executor,
  doc: JournalDocumentRow,
  event: Extract<DocumentEvent, { type: 'approved' | 'approval-closed' }>,
  now: Date,
): Promise<void> {
  const move = documentTransition(outboundOf(doc), event);
  if (!move.ok) throw new AppError('approval_not_pending', `${doc.journalNo}: ${move.reason}`);
  const scope = { platformId: doc.platformId, companyId: doc.companyId };
  if (doc.deliveryMode !== 'host-to-host' || doc.deliveryStatus === null) {
    await updateDocumentStatus(tx, scope, doc.id, { from: doc.status, to: move.to }, now);
    return;
  }
  const delivery = deliveryTransition(doc.deliveryStatus, {
    type: event.type === 'approved' ? 'approved' : 'cancelled',
  });
  if (!delivery.ok) throw new Error(`${doc.id}: ${delivery.reason}`);
  await updateDocumentStatus(
    tx,
    scope,
    doc.id,
    { from: doc.status, to: move.to, delivery: { from: doc.deliveryStatus, to: delivery.to } },
    now,
  );
}

/** approval.approved / rejected / expired through the outbox: the document's fields and the approval's. */
export async function emitApprovalEvent(
  ctx: AppContext,
  tx: Executor,
  type: 'approval.approved' | 'approval.rejected' | 'approval.expired',
  doc: JournalDocumentRow,
  row: ApprovalRow,
  extra: Record<string, unknown>,
): Promise<void> {
  await emitEvent(ctx, tx, {
    type,
    platformId: doc.platformId,
    companyId: doc.companyId,
    data: {
      approvalId: row.id,
      documentId: doc.id,
      journalNo: doc.journalNo,
      messageId: doc.messageId,
      bankKey: doc.bankKey,
      environment: doc.environment,
      status: type.slice('approval.'.length),
      totals: doc.totals,
      policyId: row.policyId,
      policyName: row.policyName,
      ...extra,
    },
  });
}

function about(doc: JournalDocumentRow) {
  return {
    platformId: doc.platformId,
    companyId: doc.companyId,
    bankKey: doc.bankKey,
    environment: doc.environment,
  };
}

/** Each single decision is an audit event with its actor (DESIGN.md). */
function decisionAudit(doc: JournalDocumentRow, row: ApprovalRow, decision: ApprovalDecision): AuditEvent {
  return {
    ...about(doc),
    type: 'approval.decision',
    actorUserId: decision.userId,
    message: `${doc.journalNo}: ${decision.userName} decided ${decision.decision}`,
    metadata: {
      approvalId: row.id,
      documentId: doc.id,
      journalNo: doc.journalNo,
      decision: decision.decision,
      ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
      ...(decision.group !== undefined ? { group: decision.group } : {}),
      twoFactor: decision.twoFactor === true,
    },
  };
}

export function outcomeAudit(
  doc: JournalDocumentRow,
  row: ApprovalRow,
  type: string,
  actorUserId: string | null,
  message: string,
): AuditEvent {
  return {
    ...about(doc),
    type,
    actorUserId,
    message,
    metadata: { approvalId: row.id, documentId: doc.id, journalNo: doc.journalNo, policyId: row.policyId },
  };
}

export function cancelledAudit(doc: JournalDocumentRow, actorUserId: string | null, reason: string): AuditEvent {
  return {
    ...about(doc),
    type: 'payment.cancelled',
    actorUserId,
    message: `${doc.journalNo} cancelled: ${reason}`,
    metadata: { documentId: doc.id, journalNo: doc.journalNo, messageId: doc.messageId, status: 'cancelled', reason },
  };
}
