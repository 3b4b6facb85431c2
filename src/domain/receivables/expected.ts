import { currencyExponent } from '../money/currencies.ts';
import { formatMinor, parseAmount } from '../money/money.ts';
import {
  normaliseReference,
  REFERENCE_TYPES,
  type ReferenceType,
  validateReference,
} from '../references/creditor-reference.ts';

/**
 * An expected payment as `POST /expected-payments` states it (DESIGN.md, Receivables), checked and
 * reduced to what the store keeps: exact minor units, normalised references. Pure; every issue at once.
 */
export type ExpectedInput = {
  direction?: unknown;
  amount?: unknown;
  amountMin?: unknown;
  amountMax?: unknown;
  currency?: unknown;
  dateFrom?: unknown;
  dateTo?: unknown;
  counterparty?: { name?: unknown; iban?: unknown; accountOther?: unknown } | undefined;
  reference?: { type?: unknown; value?: unknown; generate?: unknown } | undefined;
  remittanceContains?: unknown;
  metadata?: unknown;
};

export type ExpectedFields = {
  direction: 'credit' | 'debit';
  amountMinMinor: bigint;
  amountMaxMinor: bigint;
  currency: string;
  dateFrom: string;
  dateTo: string;
  counterpartyName: string | null;
  counterpartyIban: string | null;
  counterpartyOther: string | null;
  referenceType: ReferenceType | 'NONE' | null;
  referenceValue: string | null;
  /** A reference to generate (the caller draws the base): `reference.generate` was true without a value. */
  generate: ReferenceType | null;
  remittanceContains: string | null;
  metadata: Record<string, string>;
};

export type Issue = { path: string; message: string };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const validDate = (v: unknown): v is string =>
  typeof v === 'string' &&
  DATE.test(v) &&
  !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) &&
  new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);
const optionalText = (v: unknown, path: string, max: number, issues: Issue[]): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length === 0 || v.length > max) {
    issues.push({ path, message: `must be a string of 1 to ${max} characters` });
    return null;
  }
  return v;
};

export function checkExpected(
  input: ExpectedInput,
): { ok: true; fields: ExpectedFields } | { ok: false; issues: Issue[] } {
  const issues: Issue[] = [];
  const direction = input.direction ?? 'credit';
  if (direction !== 'credit' && direction !== 'debit') issues.push({ path: 'direction', message: 'credit or debit' });
  const currency = typeof input.currency === 'string' ? input.currency : '';
  if (currencyExponent(currency) === undefined) issues.push({ path: 'currency', message: 'an ISO 4217 currency' });
  const { min, max } = checkAmounts(input, currency, issues);
  if (!validDate(input.dateFrom)) issues.push({ path: 'dateFrom', message: 'a date YYYY-MM-DD' });
  if (!validDate(input.dateTo)) issues.push({ path: 'dateTo', message: 'a date YYYY-MM-DD' });
  if (validDate(input.dateFrom) && validDate(input.dateTo) && input.dateFrom > input.dateTo)
    issues.push({ path: 'dateTo', message: 'must not be before dateFrom' });
  const cp = input.counterparty ?? {};
  const counterpartyName = optionalText(cp.name, 'counterparty.name', 140, issues);
  const ibanText = optionalText(cp.iban, 'counterparty.iban', 34, issues);
  const counterpartyIban = ibanText === null ? null : ibanText.replace(/\s/g, '').toUpperCase();
  if (counterpartyIban !== null && !/^[A-Z]{2}\d{2}[A-Z0-9]{1,30}$/.test(counterpartyIban))
    issues.push({ path: 'counterparty.iban', message: 'not an IBAN' });
  const counterpartyOther = optionalText(cp.accountOther, 'counterparty.accountOther', 34, issues);
  const reference = checkExpectedReference(input.reference, issues);
  const remittanceContains = optionalText(input.remittanceContains, 'remittanceContains', 140, issues);
  const metadata = checkMetadata(input.metadata, issues);
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    fields: {
      direction: direction as 'credit' | 'debit',
      amountMinMinor: min,
      amountMaxMinor: max,
      currency,
      dateFrom: input.dateFrom as string,
      dateTo: input.dateTo as string,
      counterpartyName,
      counterpartyIban,
      counterpartyOther,
      ...reference,
      remittanceContains,
      metadata,
    },
  };
}

/** An exact amount, or a range amountMin..amountMax, in minor units (0 where it is missing or invalid). */
function checkAmounts(input: ExpectedInput, currency: string, issues: Issue[]): { min: bigint; max: bigint } {
  const amountOf = (v: unknown, path: string): bigint => {
    const r = parseAmount(v, currency);
    if (!r.ok) {
      if (r.error.code !== 'invalid_currency') issues.push({ path, message: r.error.message });
      return 0n;
    }
    return r.minor;
  };
  if (input.amount !== undefined) {
    if (input.amountMin !== undefined || input.amountMax !== undefined)
      issues.push({ path: 'amount', message: 'either amount or amountMin and amountMax, not both' });
    const amount = amountOf(input.amount, 'amount');
    return { min: amount, max: amount };
  }
  if (input.amountMin !== undefined && input.amountMax !== undefined) {
    const min = amountOf(input.amountMin, 'amountMin');
    const max = amountOf(input.amountMax, 'amountMax');
    if (min > 0n && max > 0n && min > max) issues.push({ path: 'amountMax', message: 'must not be below amountMin' });
    return { min, max };
  }
  issues.push({ path: 'amount', message: 'amount, or amountMin and amountMax, is required' });
  return { min: 0n, max: 0n };
}

/** The expected reference: a type and a value (its check digits checked), a type to generate one for, or NONE. */
function checkExpectedReference(
  reference: ExpectedInput['reference'],
  issues: Issue[],
): Pick<ExpectedFields, 'referenceType' | 'referenceValue' | 'generate'> {
  const none = { referenceType: null, referenceValue: null, generate: null };
  if (reference === undefined) return none;
  const { type, value, generate } = reference;
  if (type === 'NONE') return { ...none, referenceType: 'NONE' };
  if (typeof type !== 'string' || !(REFERENCE_TYPES as readonly string[]).includes(type)) {
    issues.push({ path: 'reference.type', message: 'SCOR, FI, OCR, KID or NONE' });
    return none;
  }
  const referenceType = type as ReferenceType;
  if (typeof value === 'string' && value !== '') {
    if (generate === true) issues.push({ path: 'reference.generate', message: 'either a value or generate, not both' });
    const v = validateReference(referenceType, value);
    if (!v.valid) issues.push({ path: 'reference.value', message: v.reason ?? 'invalid' });
    return { referenceType, referenceValue: normaliseReference(referenceType, value), generate: null };
  }
  if (generate === true) return { referenceType, referenceValue: null, generate: referenceType };
  issues.push({ path: 'reference.value', message: 'a value, or generate: true' });
  return { referenceType, referenceValue: null, generate: null };
}

/** Metadata: at most 20 string values of at most 500 characters, keys of at most 40. */
function checkMetadata(m: ExpectedInput['metadata'], issues: Issue[]): Record<string, string> {
  const metadata: Record<string, string> = {};
  if (m === undefined) return metadata;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) {
    issues.push({ path: 'metadata', message: 'an object' });
    return metadata;
  }
  const entries = Object.entries(m);
  if (entries.length > 20) issues.push({ path: 'metadata', message: 'at most 20 keys' });
  for (const [k, v] of entries) {
    if (typeof v !== 'string' || k.length > 40 || v.length > 500)
      issues.push({
        path: `metadata.${k}`,
        message: 'string values of at most 500 characters, keys of at most 40',
      });
    else metadata[k] = v;
  }
  return metadata;
}

/** Minor units as the API writes amounts (money.ts). */
export function amountText(minor: bigint, currency: string): string {
  return formatMinor(minor, currencyExponent(currency) ?? 2);
}
