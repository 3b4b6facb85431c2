import type { OutboundEntry, SubmitPolicy } from '../../db/repositories/journal-submit.ts';
import type { ConvertSuccess } from '../../domain/conversion/index.ts';
import { documentPaymentType, documentSummary, type JournalLine } from '../../domain/journal/payment-lines.ts';
import { answerDeadline, type DeliveryMode, submittedAs } from '../../domain/lifecycle/index.ts';
import { approvalRequestedEvent, newApproval } from '../approvals/submit-approval.ts';
import { newEvent } from '../audit/record.ts';
import { retentionUntil } from '../audit/retention-policy.ts';
import type { AppContext } from '../context.ts';
import type { SubmitInput } from './submit-request.ts';

/** What a submit knows once its payment is converted: everything its journal entry is made of. */
export type EntryFacts = {
  platformId: string;
  input: SubmitInput;
  profile: { deliveryMode: DeliveryMode; answerWindowDays?: number };
  converted: ConvertSuccess;
  lines: JournalLine[];
  /** The approval policy the document falls under, if any (frozen into its approval). */
  policy: SubmitPolicy | undefined;
  makerUserId: string | null;
  /** The idempotency key the document is journaled under, the request's digest, its message id. */
  key: string;
  digest: string;
  messageId: string | null;
  now: Date;
};

/**
 * The journal entry of a converted submit: the document row, its payment lines, its approval and
 * the audit and outbox events for the journal number the store hands out. No I/O: ids, time and
 * sealing come from the context's providers, so the entry is what the facts say and nothing else.
 */
export function buildOutboundEntry(ctx: AppContext, facts: EntryFacts): OutboundEntry {
  const { input, converted, policy, now } = facts;
  const { status, deliveryStatus } = submittedAs(facts.profile.deliveryMode, policy !== undefined);
  const documentId = ctx.ids.next('doc');
  // The policy's rules are frozen into the approval now (DESIGN.md): editing the policy later never
  // changes this approval. The maker is the user behind the submit, none for an API key.
  const approval = policy
    ? newApproval(ctx, {
        platformId: facts.platformId,
        companyId: input.companyId,
        documentId,
        policy,
        makerUserId: facts.makerUserId,
        now,
      })
    : undefined;
  const summary = documentSummary(facts.lines, converted.totals);
  return {
    document: {
      id: documentId,
      platformId: facts.platformId,
      companyId: input.companyId,
      direction: 'outbound',
      type: 'pain.001',
      sourceFormat: converted.painVersion,
      bankKey: input.bankKey,
      environment: input.environment,
      status,
      messageId: facts.messageId,
      importSource: 'api',
      transactionCount: converted.transactionCount,
      totals: converted.totals,
      paymentType: documentPaymentType(input.payment, converted.autoSelected),
      idempotencyKey: facts.key,
      requestDigest: facts.digest,
      deliveryMode: facts.profile.deliveryMode,
      deliveryStatus,
      summary,
      accountIban: null,
      accountCurrency: null,
      contentDigest: null,
      blockIndex: null,
      payloadSealed: ctx.encryptor.encrypt(JSON.stringify(input.payment)),
      fileSealed: ctx.encryptor.encrypt(converted.xml),
      warnings: converted.warnings.length > 0 ? converted.warnings : null,
      details: null,
      collected: false,
      collectedAt: null,
      createdAt: now,
      updatedAt: now,
      expiresAt: retentionUntil(now, input.environment),
    },
    lines: lineRows(facts, documentId),
    approval: approval ?? null,
    outbox: (journalNo) =>
      approval
        ? [
            approvalRequestedEvent(ctx, {
              approval,
              journalNo,
              messageId: facts.messageId,
              bankKey: input.bankKey,
              environment: input.environment,
              totals: converted.totals,
            }),
          ]
        : [],
    events: (journalNo) => entryEvents(ctx, facts, { documentId, status, summary, approval }, journalNo),
  };
}

/** The document's payment lines, each pending until the bank answers, open until its answer deadline. */
function lineRows(facts: EntryFacts, documentId: string): OutboundEntry['lines'] {
  const openUntil = answerDeadline(facts.now, facts.profile.answerWindowDays);
  return facts.lines.map((l) => ({
    documentId,
    lineIndex: l.lineIndex,
    platformId: facts.platformId,
    companyId: facts.input.companyId,
    paymentId: l.paymentId,
    endToEndId: l.endToEndId,
    instructionId: l.instructionId,
    amountMinor: l.amountMinor,
    amount: l.amount,
    currency: l.currency,
    payeeName: l.payeeName,
    payeeIban: l.payeeIban,
    executionDate: l.executionDate,
    state: 'pending',
    evidence: null,
    updatedAt: facts.now,
    openUntil,
  }));
}

/** payment.submitted, and with a policy payment.pending-approval and approval.requested. */
function entryEvents(
  ctx: AppContext,
  facts: EntryFacts,
  doc: { documentId: string; status: string; summary: string; approval: ReturnType<typeof newApproval> | undefined },
  journalNo: string,
) {
  const { input, converted, policy } = facts;
  const { documentId, approval } = doc;
  const metadata = {
    documentId,
    journalNo,
    messageId: facts.messageId,
    status: doc.status,
    totals: converted.totals,
    transactionCount: converted.transactionCount,
    idempotencyKey: facts.key,
  };
  const about = {
    platformId: facts.platformId,
    companyId: input.companyId,
    bankKey: input.bankKey,
    environment: input.environment,
  };
  const submitted = newEvent(ctx, {
    ...about,
    type: 'payment.submitted',
    message: `${journalNo} submitted: ${doc.summary}`,
    metadata,
  });
  if (!policy) return [submitted];
  return [
    submitted,
    newEvent(ctx, {
      ...about,
      type: 'payment.pending-approval',
      message: `${journalNo} waits for approval under policy ${policy.id}`,
      metadata: { ...metadata, policyId: policy.id },
    }),
    newEvent(ctx, {
      ...about,
      type: 'approval.requested',
      actorUserId: approval?.makerUserId ?? null,
      message: `${journalNo} needs ${policy.rules.requiredApprovals} approval(s) under policy ${policy.name}`,
      metadata: {
        approvalId: approval?.id,
        documentId,
        journalNo,
        policyId: policy.id,
        policyName: policy.name,
        rules: policy.rules,
        makerUserId: approval?.makerUserId ?? null,
        expiresAt: approval?.expiresAt?.toISOString(),
      },
    }),
  ];
}
