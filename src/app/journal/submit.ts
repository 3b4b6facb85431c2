import { isApiKeyActive } from '../../db/repositories/api-keys.ts';
import type { JournalDocumentRow } from '../../db/repositories/journal-documents.ts';
import {
  batchItem,
  claimSubmit,
  findOutboundForSubmit,
  journalInTransaction,
  type OutboundEntry,
  type SubmitAnswer,
  type SubmitContext,
  submitOutbound,
} from '../../db/repositories/journal-submit.ts';
import {
  type CompanySettings,
  type ConvertSuccess,
  convertPayment,
  getProfile,
} from '../../domain/conversion/index.ts';
import { matchPolicy } from '../../domain/journal/approval-match.ts';
import { journalLines } from '../../domain/journal/payment-lines.ts';
import { submitRequestDigest } from '../../domain/journal/submit-request.ts';
import { type DeliveryMode, endedForResubmit, outboundStatusOf } from '../../domain/lifecycle/index.ts';
import { inSpan } from '../../platform/tracing.ts';
import type { AppContext } from '../context.ts';
import { engineError, validationFailed } from '../conversion/engine-errors.ts';
import { AppError, unauthorized } from '../errors.ts';
import { assertTokenReaches, requireCompanyAdmin } from '../identity/access.ts';
import { forgetApiKey } from '../identity/authenticate.ts';
import type { KeyPrincipal, Principal, SessionPrincipal, TokenPrincipal } from '../identity/principal.ts';
import { countSubmit } from '../metrics.ts';
import { passBillingGates } from './billing-gates.ts';
import { documentView } from './document-view.ts';
import { buildOutboundEntry } from './outbound-entry.ts';
import { companySubmitContext, messageIdOf, type SubmitInput } from './submit-request.ts';

/**
 * POST /journal/payments: validate and convert with the company's bank settings, then journal the
 * document, its payment lines, its approval and its audit events atomically, through the one write
 * path of outbound documents (journal_outbound, src/db/functions). A test submit is ONE SQL statement
 * (journal_submit_batch, group-committed); a production one is a batch of one in a transaction that
 * first passes the billing gates. A host-to-host document is written `queued`: that row is the durable delivery
 * request, and the delivery relay (src/app/delivery/relay.ts) turns it into its bank-delivery job
 * exactly once (docs/adr/0010-one-statement-submit.md).
 *
 * Idempotency design: insert-first is not enough on its own (a retry racing the first request would
 * block on the unique index (company_id, idempotency_key) until the first commits, then fail, and
 * cannot tell "in flight" from "done"). So the claim first takes NON-blocking, transaction-scoped
 * advisory locks on the company's idempotency key and on its payment.messageId: a second request
 * arriving while the first is still open gets 409 conflict at once; one arriving after the commit
 * takes the lock, then sees the committed document (READ COMMITTED) and replays or refuses it. The
 * unique index stays as the last line of defence: a duplicate can never be journaled. Locks are
 * taken in one order (advisory, billing row, journal counter, chain head), the per-company
 * serialisation points last.
 */
/**
 * A submit's answer: journaled now, or an earlier document's replayed (the same request again).
 * `keyConfirmed`: the statement that journaled or found the document had checked the API key.
 */
export type SubmitOutcome =
  | { kind: 'journaled'; keyConfirmed: boolean; body: SubmitResponse }
  | { kind: 'replayed'; keyConfirmed: boolean; body: SubmitResponse };
export type SubmitResponse = ReturnType<typeof documentView> & { xml: string; warnings?: unknown[] };

/**
 * Who may submit: an API key, an installed application's token for a company its user administers,
 * or the service itself on an admin's behalf (a connection's test payment: nothing to check again).
 */
export type Submitter =
  | KeyPrincipal
  | TokenPrincipal
  | SessionPrincipal
  | { kind: 'service'; platformId: string; userId: string };

/**
 * The maker behind a submit (DESIGN.md, Approvals): the session's or the token's user, the admin behind
 * a test payment, nobody for a key.
 */
function makerOf(principal: Submitter): string | null {
  switch (principal.kind) {
    case 'token':
    case 'session':
      return principal.user.id;
    case 'service':
      return principal.userId;
    case 'key':
      return null;
  }
}

/**
 * Who may submit for the company: an API key of its platform, a token whose user administers it, or
 * a session of a company admin (a workspace admin inside the company's context): the signed-in maker
 * of maker-checker.
 */
function submitter(principal: Principal, companyId: string): Submitter {
  if (principal.kind === 'session') return requireCompanyAdmin(principal, principal.platformId, companyId);
  assertTokenReaches(principal, companyId);
  return principal;
}

/**
 * 409 connection_not_ready for a host-to-host submit whose company has no active connection to the
 * bank in the environment (DESIGN.md, Bank connectivity): refused now rather than failing at delivery.
 */
function connectionNotReady(input: SubmitInput, company: SubmitContext): AppError | undefined {
  if (company.connectionStatus === 'active') return undefined;
  const missing = company.connectionStatus === null ? ['connection'] : ['activation'];
  return new AppError(
    'connection_not_ready',
    company.connectionStatus === null
      ? `the company has no ${input.environment} connection to ${input.bankKey}; create and activate one first`
      : `the company's ${input.environment} connection to ${input.bankKey} is not active yet (${company.connectionStatus})`,
    { bankKey: input.bankKey, environment: input.environment, missing },
  );
}

/** The 201 body of a journaled document: the metadata, the generated file and any warnings. */
export function submitResponse(ctx: AppContext, row: JournalDocumentRow, xml?: string): SubmitResponse {
  const body: SubmitResponse = {
    ...documentView(row),
    xml: xml ?? (row.fileSealed ? ctx.encryptor.decrypt(row.fileSealed) : ''),
  };
  if (row.warnings && row.warnings.length > 0) body.warnings = row.warnings;
  return body;
}

/**
 * What an earlier document with the same key or message id means for this request: a replay of
 * it, a conflict, or nothing (no earlier document).
 */
function resolveEarlier(
  ctx: AppContext,
  earlier: JournalDocumentRow[],
  idempotencyKey: string,
  messageId: string | null,
  digest: string,
): Omit<Extract<SubmitOutcome, { kind: 'replayed' }>, 'keyConfirmed'> | undefined {
  // Contract rule 4 first: a messageId whose payment ended rejected or cancelled is used up, whatever
  // the key (even the original one: the bank has seen that MsgId; a new one is needed).
  const byMessage = messageId === null ? undefined : earlier.find((d) => d.messageId === messageId);
  if (byMessage && endedForResubmit(outboundStatusOf(byMessage.status))) {
    throw new AppError(
      'message_id_already_used',
      `payment.messageId ${JSON.stringify(messageId)} belongs to ${byMessage.journalNo}, which ended ${byMessage.status}; send the payment with a new messageId`,
      { originalJournalNo: byMessage.journalNo, originalStatus: byMessage.status, remedy: 'new_message_id' },
    );
  }
  const byKey = earlier.find((d) => d.idempotencyKey === idempotencyKey);
  if (byKey) {
    if (byKey.requestDigest === digest) return { kind: 'replayed', body: submitResponse(ctx, byKey) };
    throw new AppError('conflict', 'this Idempotency-Key was already used with a different request', {
      journalNo: byKey.journalNo,
    });
  }
  if (!byMessage) return undefined;
  // The same payment (same messageId) still alive: the same request under a new key is a retry and
  // replays the original (contract: "in flight or executed ... original 201 is replayed"); another
  // request reusing the messageId would be a second file with a duplicate MsgId at the bank.
  if (byMessage.requestDigest === digest) {
    return { kind: 'replayed', body: submitResponse(ctx, byMessage) };
  }
  throw new AppError('conflict', `payment.messageId is already used by ${byMessage.journalNo}`, {
    journalNo: byMessage.journalNo,
  });
}

function companySettings(settings: { chargeBearer?: string; executionDateOffsetDays?: number } | null) {
  if (!settings) return undefined;
  const out: CompanySettings = {};
  if (typeof settings.chargeBearer === 'string')
    out.chargeBearer = settings.chargeBearer as CompanySettings['chargeBearer'] & string;
  if (typeof settings.executionDateOffsetDays === 'number')
    out.executionDateOffsetDays = settings.executionDateOffsetDays;
  return out;
}

export function submitPayment(ctx: AppContext, principal: Principal, input: SubmitInput): Promise<SubmitOutcome> {
  return submitAs(ctx, submitter(principal, input.companyId), input);
}

/** The submit for a submitter already established (an API key's or token's request, or a connection's test payment). */
export function submitAs(ctx: AppContext, key: Submitter, input: SubmitInput): Promise<SubmitOutcome> {
  return inSpan('journal.submit', () => countSubmit(ctx.metrics, input, journalSubmit(ctx, key, input)));
}

async function journalSubmit(ctx: AppContext, key: Submitter, input: SubmitInput): Promise<SubmitOutcome> {
  const profile = getProfile(input.bankKey);
  if (!profile)
    throw new AppError('not_found', `no bank profile ${JSON.stringify(input.bankKey)}`, {
      bankKey: input.bankKey,
    });
  const request = submitRequestOf(key, input, profile);
  // A test submit may convert with the company's context as this process read it before: its
  // statement journals only if that context is still the company's, else it is read and converted
  // again. Production submits read it each time (their transaction has more to check anyway).
  const recent = input.environment === 'test';
  for (let read = 0; read < 3; read++) {
    const company = await companySubmitContext(ctx, key.platformId, input, { recent: recent && read === 0 });
    const pass = await submitWithContext(ctx, request, company);
    switch (pass.kind) {
      case 'done':
        return pass.outcome;
      case 'stale-context':
        continue;
      default:
        return unknownPass(pass);
    }
  }
  throw new AppError(
    'conflict',
    "the company's bank settings or approval policies changed during this request; retry shortly",
  );
}

function unknownPass(pass: never): never {
  throw new Error(`unknown submit pass ${JSON.stringify(pass)}`);
}

/** What a submit request is, before any company context: who, where, under which key. */
type SubmitRequest = {
  principal: Submitter;
  input: SubmitInput;
  profile: { deliveryMode: DeliveryMode; channel: string; answerWindowDays?: number };
  scope: { platformId: string; companyId: string };
  messageId: string | null;
  idempotencyKey: string | undefined;
  digest: string;
};

/**
 * One pass of a submit over a company context read once: done (journaled, replayed, or refused by
 * throwing), or `stale-context`: the context was remembered from an earlier read and may predate the
 * company's current settings, so the submit reads it again before it answers anything.
 */
type SubmitPass = { kind: 'done'; outcome: SubmitOutcome } | { kind: 'stale-context' };
const STALE: SubmitPass = { kind: 'stale-context' };
const done = (outcome: SubmitOutcome): SubmitPass => ({ kind: 'done', outcome });

function submitRequestOf(principal: Submitter, input: SubmitInput, profile: SubmitRequest['profile']): SubmitRequest {
  const messageId = messageIdOf(input.payment);
  const idempotencyKey = input.idempotencyKey ?? messageId ?? undefined;
  if (idempotencyKey === undefined && profile.deliveryMode === 'host-to-host') {
    throw new AppError(
      'idempotency_key_required',
      'a host-to-host submit needs an Idempotency-Key header (or idempotencyKey, or payment.messageId)',
    );
  }
  const scope = { platformId: principal.platformId, companyId: input.companyId };
  return { principal, input, profile, scope, messageId, idempotencyKey, digest: submitRequestDigest(input) };
}

/** The stages of a submit: the connection, the conversion, the entry, the journal, an earlier submit. */
async function submitWithContext(ctx: AppContext, request: SubmitRequest, company: SubmitContext): Promise<SubmitPass> {
  const { input, profile } = request;
  // Test submits have no billing gates to pass first: the connection is checked before converting.
  // (Production ones check it inside the journaling transaction, after the billing gates.) The demo
  // bank is the sandbox itself, with nothing to activate: it takes submits in any environment.
  const hostToHost = profile.deliveryMode === 'host-to-host';
  const notReady = hostToHost && profile.channel !== 'DEMO' ? connectionNotReady(input, company) : undefined;
  if (notReady && input.environment !== 'production') {
    return company.recent ? STALE : done(await earlierOrThrow(ctx, request, notReady));
  }
  const converted = await convertStage(ctx, request, company);
  if (converted.kind !== 'converted') return converted.pass;
  const { value } = converted;
  // The messageId the engine read is authoritative (it is required, so it is set when valid).
  const messageId = value.messageId || request.messageId;
  const key = request.idempotencyKey ?? messageId ?? ctx.ids.next('req');
  const lines = journalLines(input.payment);
  const entry = buildOutboundEntry(ctx, {
    platformId: request.scope.platformId,
    input,
    profile,
    converted: value,
    lines,
    policy: matchPolicy(company.policies, { environment: input.environment, bankKey: input.bankKey, lines }),
    makerUserId: makerOf(request.principal),
    key,
    digest: request.digest,
    messageId,
    now: ctx.clock.now(),
  });
  return journalStage(ctx, request, { key, messageId, entry, xml: value.xml, context: company.text, notReady });
}

/**
 * A refused request that an earlier document answers: a retry of an accepted request replays even
 * if it would be refused now (a date moved into the past, a connection deactivated); only a request
 * nothing was journaled for gets the refusal.
 */
async function earlierOrThrow(ctx: AppContext, request: SubmitRequest, refusal: AppError): Promise<SubmitOutcome> {
  if (request.idempotencyKey !== undefined) {
    const { scope, idempotencyKey, messageId, digest } = request;
    const earlier = await findOutboundForSubmit(ctx.db, scope, idempotencyKey, messageId);
    const outcome = resolveEarlier(ctx, earlier, idempotencyKey, messageId, digest);
    if (outcome) return { ...outcome, keyConfirmed: false };
  }
  throw refusal;
}

/** The payment converted with the company's bank settings (and its schema checked when asked). */
async function convertStage(
  ctx: AppContext,
  request: SubmitRequest,
  company: SubmitContext,
): Promise<{ kind: 'converted'; value: ConvertSuccess } | { kind: 'answered'; pass: SubmitPass }> {
  const { input } = request;
  const settings = companySettings(company.settings);
  const now = ctx.clock.now();
  const result = convertPayment(input.payment, input.bankKey, { now, ...(settings ? { company: settings } : {}) });
  if (!result.ok) throw engineError(result.error);
  const converted = result.value;
  // A refusal is answered only for a context read now: one remembered may predate new settings.
  if (!converted.ok) {
    if (company.recent) return { kind: 'answered', pass: STALE };
    const refusal = validationFailed(converted.issues, { unknownFieldsDropped: converted.unknownFieldsDropped });
    return { kind: 'answered', pass: done(await earlierOrThrow(ctx, request, refusal)) };
  }
  if (input.validate) {
    const check = await ctx.schemaCheck(converted.xml, converted.painVersion);
    if (check.issues.length > 0 && company.recent) return { kind: 'answered', pass: STALE };
    if (check.issues.length > 0) throw validationFailed(check.issues, { schemaValidation: { ran: check.ran } });
  }
  return { kind: 'converted', value: converted };
}

/**
 * The entry journaled, or the earlier document its claim found resolved. Twice at most: an earlier
 * document that retention removed between the claim and the read is gone.
 */
async function journalStage(
  ctx: AppContext,
  request: SubmitRequest,
  write: {
    key: string;
    messageId: string | null;
    entry: OutboundEntry;
    xml: string;
    context: string | null;
    notReady: AppError | undefined;
  },
): Promise<SubmitPass> {
  const { principal, scope, digest } = request;
  const { key, messageId, entry } = write;
  for (let attempt = 0; attempt < 2; attempt++) {
    const answer = await journalEntry(ctx, principal, scope, key, messageId, entry, write.context, write.notReady);
    if ('refused' in answer) {
      if (answer.refused === 'stale-context') return STALE;
      if (principal.kind === 'key') forgetApiKey(ctx, principal.keyId);
      throw unauthorized();
    }
    if ('journalNo' in answer) {
      const body = submitResponse(ctx, { ...entry.document, journalNo: answer.journalNo }, write.xml);
      return done({ kind: 'journaled', keyConfirmed: true, body });
    }
    if (answer.claim === 'in-flight') {
      throw new AppError(
        'conflict',
        'a request with this Idempotency-Key or messageId is still being processed; retry shortly',
      );
    }
    const earlier = await findOutboundForSubmit(ctx.db, scope, key, messageId);
    // The statement that found the earlier document had checked the key first.
    const outcome = resolveEarlier(ctx, earlier, key, messageId, digest);
    if (outcome) return done({ ...outcome, keyConfirmed: true });
  }
  throw new AppError('conflict', 'the journal changed during this request; retry shortly');
}

/**
 * Journals an entry, first checking that the API key is still active. A test submit is one statement,
 * group-committed with the submits arriving with it (checks, claim and journal: journal_submit_batch
 * via submitOutbound), which also checks that the company's context is still the one converted with.
 * A production submit also passes the billing gates, in one transaction: key, then claim (so a retry
 * replays before any gate), then the billing row lock and count, then the journal; the per-company
 * serialisation points (journal counter, chain head) come last, so they are held for the shortest time.
 */
async function journalEntry(
  ctx: AppContext,
  principal: Submitter,
  scope: { platformId: string; companyId: string },
  key: string,
  messageId: string | null,
  entry: OutboundEntry,
  context: string | null,
  notReady: AppError | undefined,
): Promise<SubmitAnswer> {
  // A token was found live when the request arrived; only a key is checked again in the statement.
  const apiKeyId = principal.kind === 'key' ? principal.keyId : null;
  if (entry.document.environment !== 'production') {
    return submitOutbound(ctx.db, scope, key, messageId, entry, { apiKeyId, context });
  }
  return ctx.db.transaction(async (tx) => {
    if (principal.kind === 'key' && !(await isApiKeyActive(tx, principal.platformId, principal.keyId)))
      return { refused: 'revoked' as const };
    const claim = await claimSubmit(tx, scope, key, messageId);
    if (claim !== 'clear') return { claim };
    await passBillingGates(ctx, tx, scope);
    // After the billing gates (DESIGN.md: a sandbox shows the 402 for any bank).
    if (notReady) throw notReady;
    return journalInTransaction(tx, batchItem(scope, key, messageId, entry, { apiKeyId, context: null }));
  });
}
