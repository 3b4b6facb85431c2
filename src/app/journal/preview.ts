import { convertPayment, getProfile, type ValidationIssue } from '../../domain/conversion/index.ts';
import { type WhitelistCheck, whitelistOutcome, whitelistQueries } from '../../domain/journal/whitelist.ts';
import type { AppContext } from '../context.ts';
import { engineError, validationFailed } from '../conversion/engine-errors.ts';
import { AppError } from '../errors.ts';
import { assertTokenReaches } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';
import { companySubmitContext, type SubmitInput } from './submit-request.ts';
import { whitelistClientFor } from './whitelist-client.ts';

/**
 * POST /journal/payments/preview: what a submit would produce, journaling, approving and
 * dispatching nothing and needing no live connection. No billing gate, no rate limit. Per-company
 * bank settings are not applied (they belong to the submit only), so the preview shows the payment
 * as given plus the engine's own defaults.
 */
type Rec = Record<string, unknown>;

/** The payment type of each payment: as given, else as auto-selected (for warnings' paymentType). */
function paymentTypes(payment: unknown, autoSelected: ReadonlyArray<{ paymentId: string; selected: string }>) {
  const payments = (payment as Rec | null)?.['payments'];
  if (!Array.isArray(payments)) return [];
  return payments.map((p) => {
    const given = (p as Rec | null)?.['paymentType'];
    if (typeof given === 'string' && given !== '') return given;
    const id = (p as Rec | null)?.['paymentId'];
    return autoSelected.find((a) => a.paymentId === id)?.selected;
  });
}

function withPaymentType(issue: ValidationIssue, types: Array<string | undefined>): ValidationIssue {
  if (issue.paymentType !== undefined) return issue;
  const index = /^payments\[(\d+)\]/.exec(issue.path)?.[1];
  const type = index === undefined ? types[0] : types[Number(index)];
  return type === undefined ? issue : { ...issue, paymentType: type };
}

export async function previewPayment(ctx: AppContext, principal: Principal, input: SubmitInput) {
  const { platformId } = principal;
  if (principal.kind === 'session') throw new AppError('forbidden', 'this route takes an API key or a token');
  assertTokenReaches(principal, input.companyId);
  const profile = getProfile(input.bankKey);
  if (!profile)
    throw new AppError('not_found', `no bank profile ${JSON.stringify(input.bankKey)}`, {
      bankKey: input.bankKey,
    });
  await companySubmitContext(ctx, platformId, input);

  const now = ctx.clock.now();
  const result = convertPayment(input.payment, input.bankKey, { now });
  if (!result.ok) throw engineError(result.error);
  const converted = result.value;
  if (!converted.ok) throw validationFailed(converted.issues, { unknownFieldsDropped: converted.unknownFieldsDropped });
  let schemaValidation: { ran: string[] } | undefined;
  if (input.validate) {
    const check = await ctx.schemaCheck(converted.xml, converted.painVersion);
    if (check.issues.length > 0) throw validationFailed(check.issues, { schemaValidation: { ran: check.ran } });
    schemaValidation = { ran: check.ran };
  }
  const types = paymentTypes(input.payment, converted.autoSelected);

  const applicable = profile.countryCode === 'PL';
  let checks: WhitelistCheck[] = [];
  if (applicable) {
    const client = whitelistClientFor(ctx);
    checks = await Promise.all(
      whitelistQueries(input.payment, now.toISOString().slice(0, 10)).map((q) => client.check(q)),
    );
  }
  return {
    xml: converted.xml,
    painVersion: converted.painVersion,
    preview: true as const,
    warnings: converted.warnings.map((w) => withPaymentType(w, types)),
    autoSelected: converted.autoSelected,
    autoFilled: converted.autoFilled,
    unknownFieldsDropped: converted.unknownFieldsDropped,
    whitelist: { applicable: applicable && checks.length > 0, outcome: whitelistOutcome(checks), checks },
    ...(schemaValidation ? { schemaValidation } : {}),
  };
}
