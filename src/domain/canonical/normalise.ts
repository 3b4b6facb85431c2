import { type CharsetName, isCrossBorder } from '../validation/charset.ts';
import { MAX_NAME } from '../validation/field-rules.ts';
import type { IssueSink } from '../validation/issue.ts';
import type { CrossBorder, Ctx, Rec } from './normalise-fields.ts';
import {
  arr,
  DEBTOR,
  INITIATING_KEYS,
  isRecord,
  obj,
  PAYMENT_KEYS,
  str,
  TOP_KEYS,
  txt,
  typeName,
  ULTIMATE_DEBTOR,
  unknownKeys,
} from './normalise-fields.ts';
import { orgId, party } from './normalise-party.ts';
import { transaction } from './normalise-transaction.ts';
import type { CanonicalPayment, InitiatingParty, Payment, Transaction } from './types.ts';
import { CURRENT_SCHEMA_VERSION } from './types.ts';

/**
 * Turns arbitrary JSON into a canonical payment: unknown fields are dropped and reported by dotted path,
 * a field of the wrong JSON type is dropped and reported as an `invalid_type` issue, free text is put
 * into the bank's character set (transliterated with a warning, or reported where impossible) and IBANs
 * into electronic form. Never throws, never modifies its input.
 * Hand-written per type rather than schema-driven: this runs once per transaction on the hot path.
 */

/**
 * Stands in for a transaction that was not an object, so later indices keep pointing at the submitted
 * element; the validation levels skip it (its `invalid_type` issue says everything there is to say).
 */
export const INVALID_TRANSACTION: Transaction = Object.freeze({});

export type NormaliseResult = { payment: CanonicalPayment; unknownFieldsDropped: string[] };

/**
 * `shell` leaves transactions to the caller (the fused converter reads each one once, validating and
 * writing it in the same step): they are copied as they came, into an array of our own, and the issue
 * count after each payment's own fields is recorded so transaction issues can be put back in order.
 * `plain` turns false when some transaction is not an object (the full path then reports it).
 */
type Shell = { ends: number[]; plain: boolean };

/** The country of a raw transaction's creditor account (its IBAN's), else of the creditor. */
function creditorCountry(t: Rec): string | undefined {
  const c = t['creditor'];
  if (!isRecord(c)) return undefined;
  const a = c['account'];
  const iban = isRecord(a) ? a['iban'] : undefined;
  if (typeof iban === 'string') {
    const compact = iban.replace(/\s+/g, '');
    if (compact.length >= 2) return compact.slice(0, 2).toUpperCase();
  }
  return typeof c['country'] === 'string' ? c['country'] : undefined;
}

/** Payments are always copied (there are few): later steps fill defaults into them. */
function payment(o: Rec, base: string, ctx: Ctx, shell?: Shell): Payment {
  const rel = '';
  unknownKeys(o, PAYMENT_KEYS, base, rel, ctx);
  const r: Payment = { transactions: [] };
  const id = str(o['paymentId'], base, rel, 'paymentId', ctx);
  if (id !== undefined) r.paymentId = id;
  const type = str(o['paymentType'], base, rel, 'paymentType', ctx);
  if (type !== undefined) r.paymentType = type;
  const priority = str(o['priority'], base, rel, 'priority', ctx);
  if (priority !== undefined) r.priority = priority;
  const chargeBearer = str(o['chargeBearer'], base, rel, 'chargeBearer', ctx);
  if (chargeBearer !== undefined) r.chargeBearer = chargeBearer;
  const lcl = str(o['localInstrument'], base, rel, 'localInstrument', ctx);
  if (lcl !== undefined) r.localInstrument = lcl;
  const ctgy = str(o['categoryPurpose'], base, rel, 'categoryPurpose', ctx);
  if (ctgy !== undefined) r.categoryPurpose = ctgy;
  const date = str(o['executionDate'], base, rel, 'executionDate', ctx);
  if (date !== undefined) r.executionDate = date;
  const batch = o['batchBooking'];
  if (typeof batch === 'boolean') r.batchBooking = batch;
  else if (batch !== undefined && batch !== null)
    ctx.issues.add('generic', 'invalid_type', `${base}.batchBooking`, 'expected a boolean (true or false)');
  if (o['debtor'] !== undefined) {
    const p = party(o['debtor'], base, DEBTOR, ctx);
    // The debtor gets the bank's BIC filled in: always our own copy.
    if (p) r.debtor = { ...p };
  }
  if (o['ultimateDebtor'] !== undefined) {
    const p = party(o['ultimateDebtor'], base, ULTIMATE_DEBTOR, ctx);
    if (p) r.ultimateDebtor = p;
  }
  const txs = arr(o['transactions'], base, rel, 'transactions', ctx);
  if (shell) {
    shell.ends.push(ctx.issues.issues.length);
    if (txs) {
      for (let i = 0; i < txs.length && shell.plain; i++) shell.plain = isRecord(txs[i]);
      r.transactions = txs.slice() as Transaction[];
    }
    return r;
  }
  // A type that can cross borders: each transaction's text in the set of where it goes.
  const crossBorder = ctx.crossBorder;
  const channel = crossBorder !== undefined && ctx.charset !== 'sepa' ? crossBorder.channelOf(o) : undefined;
  if (txs) {
    for (let i = 0; i < txs.length; i++) {
      const tp = `${base}.transactions[${i}]`;
      const t = txs[i];
      if (isRecord(t)) {
        const own = ctx.charset;
        if (
          channel !== undefined &&
          isCrossBorder(channel, (crossBorder as CrossBorder).bankCountry, creditorCountry(t))
        ) {
          ctx.charset = 'sepa';
        }
        r.transactions.push(transaction(t, tp, ctx));
        ctx.charset = own;
      } else {
        ctx.issues.add('generic', 'invalid_type', tp, `expected an object, got ${typeName(t)}`);
        // Keep the index stable so later paths still point at the submitted element.
        r.transactions.push(INVALID_TRANSACTION);
      }
    }
  }
  return r;
}

/**
 * `crossBorder` makes a transaction of a cross-border type (SWIFT, or SEPA and TARGET2 to another country)
 * read its text in the SEPA set rather than the bank's `charset`.
 */
export function normaliseCanonical(
  raw: unknown,
  issues: IssueSink,
  charset: CharsetName = 'sepa',
  crossBorder?: CrossBorder,
): NormaliseResult {
  return normaliseWith(raw, issues, charset, undefined, crossBorder);
}

export type ShellResult = NormaliseResult & Shell;

/** Everything but the transactions (see `Shell`); the caller normalises and checks those itself. */
export function normaliseShell(raw: unknown, issues: IssueSink, charset: CharsetName): ShellResult {
  const shell: Shell = { ends: [], plain: true };
  return { ...normaliseWith(raw, issues, charset, shell, undefined), ...shell };
}

function normaliseWith(
  raw: unknown,
  issues: IssueSink,
  charset: CharsetName,
  shell: Shell | undefined,
  crossBorder: CrossBorder | undefined,
): NormaliseResult {
  const ctx: Ctx = { unknown: [], issues, charset, crossBorder };
  const out: CanonicalPayment = { schemaVersion: CURRENT_SCHEMA_VERSION, payments: [] };
  if (!isRecord(raw)) {
    issues.add('generic', 'invalid_type', '', `expected a canonical payment object, got ${typeName(raw)}`);
    return { payment: out, unknownFieldsDropped: [] };
  }
  unknownKeys(raw, TOP_KEYS, '', '', ctx);
  const version = str(raw['schemaVersion'], '', '', 'schemaVersion', ctx);
  if (version !== undefined) out.schemaVersion = version;
  const messageId = str(raw['messageId'], '', '', 'messageId', ctx);
  if (messageId !== undefined) out.messageId = messageId;
  const created = str(raw['creationDateTime'], '', '', 'creationDateTime', ctx);
  if (created !== undefined) out.creationDateTime = created;
  const ip = obj(raw['initiatingParty'], '', 'initiatingParty', ctx);
  if (ip) {
    unknownKeys(ip, INITIATING_KEYS, '', 'initiatingParty', ctx);
    const r: InitiatingParty = {};
    const name = txt(ip['name'], '', 'initiatingParty', 'name', ctx, MAX_NAME);
    if (name !== undefined) r.name = name;
    if (ip['organisationId'] !== undefined) {
      const id = orgId(ip['organisationId'], '', 'initiatingParty.organisationId', ctx);
      if (id) r.organisationId = id;
    }
    out.initiatingParty = r;
  }
  const payments = arr(raw['payments'], '', '', 'payments', ctx);
  if (payments) {
    for (let i = 0; i < payments.length; i++) {
      const p = payments[i];
      if (isRecord(p)) out.payments.push(payment(p, `payments[${i}]`, ctx, shell));
      else {
        issues.add('generic', 'invalid_type', `payments[${i}]`, `expected an object, got ${typeName(p)}`);
        out.payments.push({ transactions: [] });
        shell?.ends.push(issues.issues.length);
      }
    }
  }
  return { payment: out, unknownFieldsDropped: ctx.unknown };
}
