import type { CharsetName } from '../validation/charset.ts';
import { checkCharset, fitToLimit } from '../validation/charset.ts';
import type { IssueSink } from '../validation/issue.ts';

/** Shared pieces of the normaliser: the context, the known keys of each object and the field readers. */
export type Ctx = {
  unknown: string[];
  issues: IssueSink;
  /** The character set of the text being read: the bank's, or SEPA's for a cross-border transaction. */
  charset: CharsetName;
  /** Set when cross-border transactions are told apart (isCrossBorder): at a bank whose set is not SEPA's. */
  crossBorder: CrossBorder | undefined;
};

/** The bank's country, and the channel of a raw payment's type (declared, or as it will be selected). */
export type CrossBorder = { bankCountry: string; channelOf: (payment: Record<string, unknown>) => string | undefined };

export const TOP_KEYS = new Set(['schemaVersion', 'messageId', 'creationDateTime', 'initiatingParty', 'payments']);
export const INITIATING_KEYS = new Set(['name', 'organisationId']);
export const ORG_KEYS = new Set(['id', 'scheme', 'issuer']);
export const PAYMENT_KEYS = new Set([
  'paymentId',
  'paymentType',
  'priority',
  'chargeBearer',
  'localInstrument',
  'categoryPurpose',
  'executionDate',
  'batchBooking',
  'debtor',
  'ultimateDebtor',
  'transactions',
]);
export const PARTY_KEYS = new Set(['name', 'country', 'postalAddress', 'account', 'agent', 'organisationId']);
export const ADDRESS_KEYS = new Set([
  'streetName',
  'buildingNumber',
  'postCode',
  'townName',
  'countrySubDivision',
  'addressLines',
]);
export const ACCOUNT_KEYS = new Set(['iban', 'currency', 'other']);
export const OTHER_KEYS = new Set(['id', 'scheme', 'issuer']);
export const AGENT_KEYS = new Set(['bic', 'clearing', 'name', 'country']);
export const CLEARING_KEYS = new Set(['systemCode', 'memberId']);
export const TX_KEYS = new Set([
  'endToEndId',
  'instructionId',
  'amount',
  'currency',
  'creditor',
  'ultimateDebtor',
  'ultimateCreditor',
  'instructionForDebtorAgent',
  'remittance',
  'purposeCode',
  'regulatoryReporting',
  'splitPayment',
]);
export const REMITTANCE_KEYS = new Set([
  'unstructured',
  'creditorReference',
  'creditorReferenceType',
  'referredDocuments',
]);
export const DOC_KEYS = new Set(['type', 'number', 'relatedDate', 'amount']);
export const SPLIT_KEYS = new Set(['vatAmount', 'invoiceNumber', 'taxId', 'text']);
export const REG_KEYS = new Set(['code', 'amount', 'currency', 'information', 'authorityCountry']);

export type Rec = Record<string, unknown>;

/**
 * Paths are passed as a base (`payments[0].transactions[3]`) plus a constant relative part (`creditor.account`)
 * and joined only when something is reported: the clean path builds no strings.
 */
export function at(base: string, rel: string, key: string): string {
  const r = rel === '' ? key : key === '' ? rel : `${rel}.${key}`;
  return base === '' ? r : r === '' ? base : `${base}.${r}`;
}

export type PartyRels = {
  self: string;
  postalAddress: string;
  account: string;
  other: string;
  agent: string;
  clearing: string;
  org: string;
};
function partyRels(role: string): PartyRels {
  const p = role === '' ? '' : `${role}.`;
  return {
    self: role,
    postalAddress: `${p}postalAddress`,
    account: `${p}account`,
    other: `${p}account.other`,
    agent: `${p}agent`,
    clearing: `${p}agent.clearing`,
    org: `${p}organisationId`,
  };
}
export const CREDITOR = partyRels('creditor');
export const ULTIMATE_DEBTOR = partyRels('ultimateDebtor');
export const ULTIMATE_CREDITOR = partyRels('ultimateCreditor');
export const DEBTOR = partyRels('debtor');

export function isRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

/** Reports unknown keys; true when there were none. */
export function unknownKeys(o: Rec, known: Set<string>, base: string, rel: string, ctx: Ctx): boolean {
  let clean = true;
  for (const k in o) {
    if (!known.has(k)) {
      ctx.unknown.push(at(base, rel, k));
      clean = false;
    }
  }
  return clean;
}

/** `base` and `key` are joined only when an issue is raised, so the clean path allocates no strings. */
export function str(v: unknown, base: string, rel: string, key: string, ctx: Ctx): string | undefined {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return undefined;
  const path = at(base, rel, key);
  // Amounts as JSON numbers are the classic float mistake: name it as an amount problem.
  const isAmount = path.endsWith('amount') || path.endsWith('Amount');
  ctx.issues.add(
    'generic',
    isAmount ? 'invalid_amount' : 'invalid_type',
    path,
    isAmount ? `expected an exact decimal string, got ${typeName(v)}` : `expected a string, got ${typeName(v)}`,
  );
  return undefined;
}

export function obj(v: unknown, base: string, rel: string, ctx: Ctx): Rec | undefined {
  if (isRecord(v)) return v;
  if (v === undefined || v === null) return undefined;
  const path = at(base, rel, '');
  ctx.issues.add('generic', 'invalid_type', path, `expected an object, got ${typeName(v)}`);
  return undefined;
}

export function arr(v: unknown, base: string, rel: string, key: string, ctx: Ctx): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (v === undefined || v === null) return undefined;
  const path = at(base, rel, key);
  ctx.issues.add('generic', 'invalid_type', path, `expected an array, got ${typeName(v)}`);
  return undefined;
}

/**
 * A free-text field in the bank's character set: transliterated where safe (warning naming the
 * replacements), kept and reported where not; `max`, the field's ISO length, bounds what a transliteration
 * may add (fitToLimit). Returns the value to use.
 */
export function txt(v: unknown, base: string, rel: string, key: string, ctx: Ctx, max?: number): string | undefined {
  if (typeof v !== 'string') return str(v, base, rel, key, ctx);
  const r = fitToLimit(v, checkCharset(v, ctx.charset), max);
  if (r.kind === 'ok') return v;
  const path = at(base, rel, key);
  if (r.kind === 'transliterated') {
    ctx.issues.add('generic', 'charset_transliterated', path, r.message, undefined, 'warning');
    return r.value;
  }
  ctx.issues.add(
    'generic',
    'invalid_charset',
    path,
    `characters without a safe replacement in the bank's character set: ${JSON.stringify(r.characters)}`,
  );
  return v;
}

/** IBANs are accepted in print form (spaces, lower case) and kept in electronic form. */
export function iban(v: unknown, base: string, rel: string, ctx: Ctx): string | undefined {
  const s = str(v, base, rel, 'iban', ctx);
  return s !== undefined && PRINT_FORM.test(s) ? s.replace(/\s+/g, '').toUpperCase() : s;
}
const PRINT_FORM = /[\sa-z]/;
