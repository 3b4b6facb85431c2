import type { ConnectivityProfile } from '../banks/connectivity.ts';
import { connectivityProfiles as connectivityData } from '../banks/connectivity.ts';
import { findPaymentType, PAYMENT_TYPES } from '../banks/payment-types.ts';
import { BANK_PROFILES, findBankProfile } from '../banks/profiles.ts';
import type { AutoSelection } from '../banks/select-type.ts';
import type { BankProfile, PainVersion, PaymentTypeEntry } from '../banks/types.ts';
import { isPainVersion, PAIN_VERSIONS } from '../banks/types.ts';
import type { CanonicalPayment } from '../canonical/types.ts';
import { formatMinor } from '../money/money.ts';
import { pain001ToString } from '../pain001/write-pain001.ts';
import type { ValidationIssue } from '../validation/issue.ts';
import type { CompanySettings } from '../validation/prepare.ts';
import type { ValidationRun } from '../validation/validate.ts';
import { runValidation } from '../validation/validate.ts';
import type { ConversionError } from './errors.ts';
import { convertFused } from './fused.ts';

/** `validate=true`: schema model always, official XSD when the caller passes its text; says which ran. */
export { validateGeneratedXml } from '../xsd/index.ts';
/**
 * The conversion engine's public face: what the routes, the CLI, the worker and the benchmark call.
 * Pure: the clock comes in as `now`; nothing here reads files or the network.
 */
export type {
  AutoSelection,
  BankProfile,
  CompanySettings,
  ConnectivityProfile,
  ConversionError,
  PainVersion,
  PaymentTypeEntry,
  ValidationIssue,
};
export { PAIN_VERSIONS };

export type EngineOptions = {
  /** Output version; defaults to the bank profile's. An unknown value is a `unknown_pain_version` error (400). */
  painVersion?: string;
  /** The clock: CreDtTm when the payment gives none, and the base of a company execution-date offset. */
  now?: Date;
  /** Per-company defaults a journal route passes; /convert and /validate do not. */
  company?: CompanySettings;
  /** `false` skips the fused converter and validates level by level (tests compare the two paths). */
  fused?: boolean;
};

export type ValidateResult = {
  valid: boolean;
  issues: ValidationIssue[];
  unknownFieldsDropped: string[];
  autoSelected: AutoSelection[];
  autoFilled: string[];
  painVersion: PainVersion;
};

export type ConvertSuccess = {
  ok: true;
  /** The file (from the fused converter, a rope of chunks that the first reader flattens). */
  xml: string;
  painVersion: PainVersion;
  /** Warning-severity issues only (for `X-Validation-Warnings`). */
  warnings: ValidationIssue[];
  autoSelected: AutoSelection[];
  autoFilled: string[];
  unknownFieldsDropped: string[];
  messageId: string;
  transactionCount: number;
  /** Totals per currency, exact decimal strings (journal `totals`). */
  totals: Array<{ currency: string; amount: string }>;
};
export type ConvertFailure = {
  ok: false;
  issues: ValidationIssue[];
  unknownFieldsDropped: string[];
  autoSelected: AutoSelection[];
  autoFilled: string[];
};
export type ConvertResult = ConvertSuccess | ConvertFailure;

export type EngineResult<T> = { ok: true; value: T } | { ok: false; error: ConversionError };

function resolve(
  bankKey: string,
  painVersion: string | undefined,
): EngineResult<{ profile: BankProfile; version: PainVersion }> {
  const profile = findBankProfile(bankKey);
  if (!profile)
    return {
      ok: false,
      error: { code: 'unknown_bank', status: 404, message: `no bank profile ${JSON.stringify(bankKey)}`, bankKey },
    };
  const version = painVersion ?? profile.painVersion;
  if (!isPainVersion(version)) {
    return {
      ok: false,
      error: {
        code: 'unknown_pain_version',
        status: 400,
        message: `painVersion must be one of ${PAIN_VERSIONS.join(', ')}`,
        painVersion: version,
        allowed: [...PAIN_VERSIONS],
      },
    };
  }
  return { ok: true, value: { profile, version } };
}

/** xs:dateTime without fraction: `2026-11-21T08:55:00` plus `Z` unless the bank wants no offset (SEB). */
function creationDateTime(doc: CanonicalPayment, profile: BankProfile, now: Date | undefined): string {
  const given = doc.creationDateTime;
  if (given !== undefined) {
    // SEB reads CreDtTm as local time without an offset: keep the wall-clock part as given.
    return profile.flavour.creationDateTimeWithoutOffset ? given.replace(/(Z|[+-]\d{2}:\d{2})$/, '') : given;
  }
  const base = (now ?? new Date(0)).toISOString().slice(0, 19);
  return profile.flavour.creationDateTimeWithoutOffset ? base : `${base}Z`;
}

export function validatePayment(raw: unknown, bankKey: string, opts: EngineOptions = {}): EngineResult<ValidateResult> {
  const r = resolve(bankKey, opts.painVersion);
  if (!r.ok) return r;
  const run = runValidation(raw, r.value.profile, r.value.version, opts.now, opts.company);
  return {
    ok: true,
    value: {
      valid: run.errorCount === 0,
      issues: run.issues,
      unknownFieldsDropped: run.unknownFieldsDropped,
      autoSelected: run.autoSelected,
      autoFilled: run.autoFilled,
      painVersion: r.value.version,
    },
  };
}

/** Exact totals per currency: doubles while every running sum stays below 2^53, bigint beyond. */
function totalsOf(run: ValidationRun): Array<{ currency: string; amount: string }> {
  const by = new Map<string, { small: number; big: bigint; exp: number }>();
  for (const plan of run.plans) {
    const txs = plan.payment.transactions;
    for (let j = 0; j < txs.length; j++) {
      const c = txs[j]?.currency ?? '';
      let cur = by.get(c);
      if (!cur) {
        cur = { small: 0, big: 0n, exp: plan.exponents[j] ?? 2 };
        by.set(c, cur);
      }
      const big = plan.bigMinors?.get(j);
      if (big !== undefined) cur.big += big;
      else {
        const m = plan.minors[j] ?? 0;
        // Flush before the double sum could leave the exact range (rounding only ever overshoots here).
        if (cur.small + m > Number.MAX_SAFE_INTEGER) {
          cur.big += BigInt(cur.small);
          cur.small = 0;
        }
        cur.small += m;
      }
    }
  }
  return [...by].map(([currency, v]) => ({ currency, amount: formatMinor(v.big + BigInt(v.small), v.exp) }));
}

/**
 * Validates and, when no error-severity issue was found, writes the file. The fused converter
 * (fused.ts) does both in one pass; when it declines (any error, or a shape it does not read itself)
 * the full path below validates level by level and writes from the normalised document, so issues and
 * output are the same either way.
 */
export function convertPayment(raw: unknown, bankKey: string, opts: EngineOptions = {}): EngineResult<ConvertResult> {
  const r = resolve(bankKey, opts.painVersion);
  if (!r.ok) return r;
  const { profile, version } = r.value;
  const fused =
    opts.fused === false
      ? undefined
      : convertFused(raw, profile, version, opts.now, opts.company, (doc) => creationDateTime(doc, profile, opts.now));
  if (fused) {
    if (fused.doc.creationDateTime === undefined) fused.autoFilled.push('creationDateTime');
    const success: ConvertSuccess = {
      ok: true,
      xml: fused.xml,
      painVersion: version,
      warnings: fused.issues,
      autoSelected: fused.autoSelected,
      autoFilled: fused.autoFilled,
      unknownFieldsDropped: fused.unknownFieldsDropped,
      messageId: fused.doc.messageId ?? '',
      transactionCount: fused.transactionCount,
      totals: fused.totals,
    };
    return { ok: true, value: success };
  }
  const run = runValidation(raw, profile, version, opts.now, opts.company);
  if (run.errorCount > 0) {
    return {
      ok: true,
      value: {
        ok: false,
        issues: run.issues,
        unknownFieldsDropped: run.unknownFieldsDropped,
        autoSelected: run.autoSelected,
        autoFilled: run.autoFilled,
      },
    };
  }
  const plan = {
    doc: run.doc,
    profile,
    painVersion: version,
    payments: run.plans,
    creationDateTime: creationDateTime(run.doc, profile, opts.now),
  };
  const xml = pain001ToString(plan);
  if (run.doc.creationDateTime === undefined) run.autoFilled.push('creationDateTime');
  const success: ConvertSuccess = {
    ok: true,
    xml,
    painVersion: version,
    warnings: run.issues.filter((i) => i.severity === 'warning'),
    autoSelected: run.autoSelected,
    autoFilled: run.autoFilled,
    unknownFieldsDropped: run.unknownFieldsDropped,
    messageId: run.doc.messageId ?? '',
    transactionCount: run.plans.reduce((n, p) => n + p.payment.transactions.length, 0),
    totals: totalsOf(run),
  };
  return { ok: true, value: success };
}

/** Profile summary as the contract's "Bank profile" resource, plus delivery details the routes show. */
export type ProfileView = {
  key: string;
  bankName: string;
  countryCode: string;
  bic: string;
  painVersion: PainVersion;
  painVersions: PainVersion[];
  deliveryMode: BankProfile['deliveryMode'];
  channel: BankProfile['channel'];
  /**
   * Whether a payment may ask for PmtInf/BtchBookg (`payments[].batchBooking`), and what the file says when
   * it does not ask; `{choice: false, default: null}`: the bank books as agreed with the account holder,
   * the file carries none and a payment's batchBooking is the error batch_booking_not_allowed.
   */
  batchBooking: { choice: boolean; default: boolean | null };
  unsupported?: { reason: string };
  paymentTypes: Array<Pick<PaymentTypeEntry, 'code' | 'label' | 'description' | 'requires' | 'channel'>>;
};

function batchBookingOf(p: BankProfile): ProfileView['batchBooking'] {
  const b = p.flavour.batchBooking;
  return b === 'omit' ? { choice: false, default: null } : { choice: true, default: b === 'true' };
}

function view(p: BankProfile): ProfileView {
  const v: ProfileView = {
    key: p.key,
    bankName: p.bankName,
    countryCode: p.countryCode,
    bic: p.bic,
    painVersion: p.painVersion,
    painVersions: p.painVersions,
    deliveryMode: p.deliveryMode,
    channel: p.channel,
    batchBooking: batchBookingOf(p),
    paymentTypes: bankTypes(p),
  };
  if (p.unsupported) v.unsupported = p.unsupported;
  return v;
}

function bankTypes(p: BankProfile): ProfileView['paymentTypes'] {
  const out: ProfileView['paymentTypes'] = [];
  for (const code of p.paymentTypes) {
    const t = findPaymentType(code);
    if (t)
      out.push({ code: t.code, label: t.label, description: t.description, requires: t.requires, channel: t.channel });
  }
  return out;
}

export function listProfiles(): ProfileView[] {
  return BANK_PROFILES.map(view);
}

export function getProfile(bankKey: string): ProfileView | undefined {
  const p = findBankProfile(bankKey);
  return p ? view(p) : undefined;
}

export function listPaymentTypes(): PaymentTypeEntry[] {
  return PAYMENT_TYPES.map((t) => ({ ...t }));
}

/** The bank's payment types with their catalog entries, ISO encoding after the bank's overrides; undefined for an unknown bank. */
export function bankPaymentTypes(bankKey: string): PaymentTypeEntry[] | undefined {
  const p = findBankProfile(bankKey);
  if (!p) return undefined;
  const out: PaymentTypeEntry[] = [];
  for (const code of p.paymentTypes) {
    const t = findPaymentType(code);
    if (!t) continue;
    const over = p.encodingOverrides?.[code];
    out.push(over ? { ...t, isoEncoding: { ...t.isoEncoding, ...over } } : { ...t });
  }
  return out;
}

export type BankStatus = {
  bankKey: string;
  bankName: string;
  status: 'supported' | 'unsupported';
  reason?: string;
  painVersion: PainVersion;
  painVersions: PainVersion[];
  deliveryMode: BankProfile['deliveryMode'];
  channel: BankProfile['channel'];
  paymentTypeCount: number;
};

export function bankStatus(bankKey: string): BankStatus | undefined {
  const p = findBankProfile(bankKey);
  if (!p) return undefined;
  const s: BankStatus = {
    bankKey: p.key,
    bankName: p.bankName,
    status: p.unsupported ? 'unsupported' : 'supported',
    painVersion: p.painVersion,
    painVersions: p.painVersions,
    deliveryMode: p.deliveryMode,
    channel: p.channel,
    paymentTypeCount: p.paymentTypes.length,
  };
  if (p.unsupported) s.reason = p.unsupported.reason;
  return s;
}

export function connectivityProfiles(): ConnectivityProfile[] {
  return connectivityData();
}
