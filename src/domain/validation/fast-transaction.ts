import type { BankProfile, PaymentTypeEntry } from '../banks/types.ts';
import { NOT_PROVIDED } from '../canonical/generated-instruction-id.ts';
import type { Transaction } from '../canonical/types.ts';
import { currencyExponent } from '../money/currencies.ts';
import { formatMinor, plainMinor } from '../money/money.ts';
import { creditorNeedsBic, needsRegulatoryReport } from './bank-rules.ts';
import type { CharsetName } from './charset.ts';
import { CHAR_REFUSED, charsetClasses, checkOutside, fitToLimit, isCrossBorder } from './charset.ts';
import { isCountryCode } from './countries.ts';
import {
  MAX_BUILDING,
  MAX_ID,
  MAX_NAME,
  MAX_POST_CODE,
  MAX_STREET,
  MAX_TOWN,
  MAX_UNSTRUCTURED,
} from './field-rules.ts';
import { isExternalCode } from './formats.ts';
import { isValidIban } from './iban.ts';
import type { IssueSink } from './issue.ts';
import type { Getter } from './payment-type-rules.ts';
import {
  checkAccount,
  checkReference,
  isSepaScheme,
  meetsRequirements,
  overSepaAmount,
  SEPA_NAME_MAX,
} from './payment-type-rules.ts';
import type { PaymentPlan } from './plan.ts';
import { isBlank } from './text-rules.ts';
import type { UniqueIds } from './unique-ids.ts';

/**
 * The fused converter's reading of one transaction: the caller's object is read once, checked against all
 * three levels and turned into the fields the writer needs, with no normalised copy. It takes the common
 * shape only (ids, amount, a creditor with name, address, IBAN and BIC, free text or a creditor reference,
 * purpose) and only a transaction without errors: for anything else it answers false and the caller runs
 * the full path, which reports every issue in its order.
 * Free text is checked against the bank's charset while it is written (pain001/fast-transaction-xml.ts):
 * the writer reads each character once, and only a field with a character outside the charset goes to
 * `transliterate`, which raises the normaliser's warning. Lengths are checked here on the text as given
 * (a replacement is never shorter than what it replaces; and declining is always safe) and again by the
 * writer on what it wrote. Identifiers and the BIC are checked the same way, as the writer copies them
 * (isIdentifierClassed, isBicShapeAt): here only their lengths.
 * Each check here is the predicate of a rule in generic.ts, bank-rules.ts or payment-type-rules.ts; the
 * property test in test/domain-conversion/fused-equivalence.test.ts holds both paths to the same output.
 */

/** Fields every transaction the reader accepts has, non-blank: a type requiring one of them needs no further check. */
export const READER_GUARANTEES: ReadonlySet<string> = new Set([
  'endToEndId',
  'amount',
  'currency',
  'creditor.name',
  'creditor.account.iban',
]);

/** The free-text fields, as ids for transliteration warnings. */
export const FIELD_NAME = 1;
export const FIELD_STREET = 2;
export const FIELD_BUILDING = 3;
export const FIELD_POST_CODE = 4;
export const FIELD_TOWN = 5;
export const FIELD_UNSTRUCTURED = 6;

/** One transaction as the writer needs it: values as given (text not yet checked against the charset). Reused. */
export type TxFields = {
  endToEndId: string;
  instructionId: string | undefined;
  currency: string;
  /**
   * The currency differs from the previous transaction's of the payment (always so for its first): the
   * writer's per-currency work (totals, the InstdAmt piece) happens only then, without comparing again.
   */
  newCurrency: boolean;
  /** The amount as written: the caller's text when it has the currency's fraction digits, else formatted. */
  amount: string;
  minor: number;
  exponent: number;
  bic: string | undefined;
  name: string;
  country: string | undefined;
  address: boolean;
  streetName: string | undefined;
  buildingNumber: string | undefined;
  postCode: string | undefined;
  townName: string | undefined;
  iban: string;
  unstructured: string | undefined;
  creditorReference: string | undefined;
  purposeCode: string | undefined;
};

export function emptyFields(): TxFields {
  return {
    endToEndId: '',
    instructionId: undefined,
    currency: '',
    newCurrency: true,
    amount: '',
    minor: 0,
    exponent: 2,
    bic: undefined,
    name: '',
    country: undefined,
    address: false,
    streetName: undefined,
    buildingNumber: undefined,
    postCode: undefined,
    townName: undefined,
    iban: '',
    unstructured: undefined,
    creditorReference: undefined,
    purposeCode: undefined,
  };
}

/** What stays the same for every transaction of one payment. */
export type TxRun = {
  sink: IssueSink;
  profile: BankProfile;
  plan: PaymentPlan;
  type: PaymentTypeEntry;
  requirements: Getter[][];
  /** The character set of the transaction being read (readTransaction sets it) and its classes. */
  charset: CharsetName;
  classes: Uint8Array;
  /** The bank's own set, for a domestic transaction. */
  ownCharset: CharsetName;
  ownClasses: Uint8Array;
  /** The declared type's channel where its transactions may cross borders (isCrossBorder), else undefined. */
  crossChannel: string | undefined;
  /** `payments[i]`, for the rare issue path. */
  base: string;
  /** The bank's November 2026 address rule applies here and wants town and country in every address. */
  townAndCountry: boolean;
  /** The type is XB_SWIFT, whose amounts from a threshold on need a reporting code. */
  reported: boolean;
  /** Generic (Max140Text), bank and SEPA scheme name limits folded into one. */
  nameLimit: number;
  /** The type belongs to the SEPA scheme: its amount limit applies (payment-type-rules.ts). */
  sepa: boolean;
  unstructuredLimit: number;
  seenEndToEnd: UniqueIds;
  /** Transliteration warnings: (transaction, FIELD_ id) pairs and their messages (transliterationWarnings). */
  warned: number[];
  warnMessages: string[];
  /**
   * The last currency read, which the bank and the type accept, and its exponent: batches rarely change
   * currency, so one comparison per transaction spares the lookups (a string comparison is a builtin call).
   */
  currency: string;
  exponent: number;
};

export function transactionRun(
  sink: IssueSink,
  profile: BankProfile,
  plan: PaymentPlan,
  type: PaymentTypeEntry,
  requirements: Getter[][],
  addressRule: boolean,
  genericNameMax: number,
  seenEndToEnd: UniqueIds,
): TxRun {
  const f = profile.flavour;
  return {
    sink,
    profile,
    plan,
    type,
    requirements,
    charset: f.charset,
    classes: charsetClasses(f.charset),
    ownCharset: f.charset,
    ownClasses: charsetClasses(f.charset),
    crossChannel: f.charset !== 'sepa' ? type.channel : undefined,
    base: `payments[${plan.index}]`,
    townAndCountry: addressRule && f.addressMode !== 'any',
    reported: type.code === 'XB_SWIFT',
    nameLimit: Math.min(genericNameMax, f.nameMaxLength, isSepaScheme(type) ? SEPA_NAME_MAX : genericNameMax),
    sepa: isSepaScheme(type),
    unstructuredLimit: Math.min(MAX_UNSTRUCTURED, f.unstructuredMaxLength),
    seenEndToEnd,
    warned: [],
    warnMessages: [],
    currency: '',
    exponent: 0,
  };
}

type Rec = Record<string, unknown>;

function isObject(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own and inherited enumerable keys, as the normaliser's unknown-key check sees them. */
function keyCount(o: Rec): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

const SEPA = charsetClasses('sepa');

/** The SEPA classes with `/` marked (SLASH): an id without a slash, the usual one, needs no slash rule. */
const SLASH = 8;
/** Classes of identifier characters, for XmlBytes#classed: 0 in the SEPA set, SLASH for `/`, else refused. */
export const ID_CLASSES = SEPA.slice();
ID_CLASSES[47] = SLASH;

/**
 * checkIdentifier's two rules (SEPA set; no leading, trailing or double slash) for an id of at most 35
 * characters, from the classes of its characters ORed (`acc`, as XmlBytes#classed gives them while it
 * writes the id): the writer checks ids as it copies them, so each character is read once.
 */
export function isIdentifierClassed(acc: number, s: string): boolean {
  if (acc === 0) return true;
  return acc === SLASH && slashesPlaced(s);
}

/** No leading, trailing or double slash. */
function slashesPlaced(s: string): boolean {
  let prev = 47;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 47 && prev === 47) return false;
    prev = c;
  }
  return prev !== 47;
}

function isSepaText(s: string): boolean {
  let acc = 0;
  for (let i = 0; i < s.length; i++) acc |= SEPA[s.charCodeAt(i)] as number;
  return acc === 0;
}

/** False when a character lies outside the charset (a text the writer would have to transliterate). */
export function inCharset(s: string, classes: Uint8Array): boolean {
  let acc = 0;
  for (let i = 0; i < s.length; i++) acc |= classes[s.charCodeAt(i)] as number;
  return (acc & CHAR_REFUSED) === 0;
}

/** The ISO length of each field, which a transliteration may not push a text past (as the normaliser's txt). */
const ISO_LIMITS: Record<number, number> = {
  [FIELD_NAME]: MAX_NAME,
  [FIELD_STREET]: MAX_STREET,
  [FIELD_BUILDING]: MAX_BUILDING,
  [FIELD_POST_CODE]: MAX_POST_CODE,
  [FIELD_TOWN]: MAX_TOWN,
  [FIELD_UNSTRUCTURED]: MAX_UNSTRUCTURED,
};

/**
 * Where the normaliser reports a transliterated field, from the closing bracket of the transaction's index:
 * a path is then the payment's prefix, the index and this (two joins; a batch can have thousands).
 */
const FIELD_PATHS: Record<number, string> = {
  [FIELD_NAME]: '].creditor.name',
  [FIELD_STREET]: '].creditor.postalAddress.streetName',
  [FIELD_BUILDING]: '].creditor.postalAddress.buildingNumber',
  [FIELD_POST_CODE]: '].creditor.postalAddress.postCode',
  [FIELD_TOWN]: '].creditor.postalAddress.townName',
  [FIELD_UNSTRUCTURED]: '].remittance.unstructured',
};

/**
 * The transliteration warnings of one payment's transactions, in the normaliser's order, as issues. During
 * the pass they are kept as numbers (transaction, field) and a shared message, so a batch where a third of
 * the transactions has one keeps no object per warning alive while it is converted (young-generation churn).
 */
export function transliterationWarnings(run: TxRun, sink: IssueSink): void {
  const w = run.warned;
  const prefix = `${run.base}.transactions[`;
  for (let k = 0; k < w.length; k += 2) {
    sink.add(
      'generic',
      'charset_transliterated',
      prefix + (w[k] as number) + FIELD_PATHS[w[k + 1] as number],
      run.warnMessages[k >> 1] as string,
      undefined,
      'warning',
    );
  }
}

/**
 * A text with a character outside the charset (refused by `run.classes`), as the normaliser's `txt` leaves
 * it: transliterated, with its warning recorded; undefined when some character has no safe replacement.
 */
export function transliterate(v: string, run: TxRun, field: number, j: number): string | undefined {
  const r = fitToLimit(v, checkOutside(v, run.charset), ISO_LIMITS[field]);
  if (r.kind === 'invalid') return undefined;
  if (r.kind === 'ok') return v;
  run.warned.push(j, field);
  run.warnMessages.push(r.message);
  return r.value;
}

/** An optional address line as given: undefined when absent, null when the fast path cannot take it. */
function addressText(v: unknown, max: number): string | undefined | null {
  if (v === undefined) return undefined;
  return typeof v !== 'string' || v.length > max ? null : v;
}

/**
 * Reads transaction `j` into `f`; false when the full path must take over (see above). Phase by phase, in
 * the normaliser's order (so warnings keep theirs); each phase writes its fields into `f` (a false leaves
 * `f` half-written, and the caller then drops the whole fast path).
 */
export function readTransaction(o: Rec, j: number, run: TxRun, f: TxFields): boolean {
  if (!hasTransactionShape(o)) return false;
  if (!readIdsAndAmount(o, run, f)) return false;
  const c = o['creditor'] as Rec;
  if (!hasCreditorShape(c)) return false;
  if (!readCreditor(o, c, run, f)) return false;
  const rem = o['remittance'];
  f.unstructured = undefined;
  f.creditorReference = undefined;
  if (rem !== undefined && !readRemittance(rem as Rec, run, f)) return false;
  if (!meetsTypeRules(o, j, run, f)) return false;
  f.instructionId = o['instructionId'] as string | undefined;
  f.purposeCode = o['purposeCode'] as string | undefined;
  return true;
}

/** The transaction's own keys: the required ones of their types, the optional ones when given, nothing else. */
function hasTransactionShape(o: Rec): boolean {
  const instr = o['instructionId'];
  const rem = o['remittance'];
  const purpose = o['purposeCode'];
  let keys = 4;
  const e2e = o['endToEndId'];
  if (typeof e2e !== 'string' || typeof o['amount'] !== 'string' || typeof o['currency'] !== 'string') return false;
  if (!isObject(o['creditor'])) return false;
  if (instr !== undefined) {
    // Its characters are checked as the writer copies it (isIdentifierClassed).
    if (typeof instr !== 'string' || instr.length > MAX_ID) return false;
    keys++;
  }
  if (rem !== undefined) {
    if (!isObject(rem)) return false;
    keys++;
  }
  if (purpose !== undefined) {
    if (typeof purpose !== 'string' || !isExternalCode(purpose)) return false;
    keys++;
  }
  return keyCount(o) === keys;
}

/** Generic: ids, amount and currency (the bank's and the payment type's currencies). */
function readIdsAndAmount(o: Rec, run: TxRun, f: TxFields): boolean {
  const e2e = o['endToEndId'] as string;
  const amount = o['amount'] as string;
  const currency = o['currency'] as string;
  if (isBlank(e2e) || e2e.length > MAX_ID) return false;
  if (e2e !== NOT_PROVIDED && !run.seenEndToEnd.add(e2e)) return false;
  const newCurrency = currency !== run.currency;
  if (newCurrency) {
    const e = currencyExponent(currency);
    if (e === undefined) return false;
    // Bank: its currencies; payment type: its currencies.
    const currencies = run.profile.flavour.currencies;
    if (currencies.length > 0 && !currencies.includes(currency)) return false;
    if (run.type.currencies && !run.type.currencies.includes(currency)) return false;
    run.currency = currency;
    run.exponent = e;
  }
  const exponent = run.exponent;
  const minor = plainMinor(amount, exponent);
  if (minor <= 0 || (run.sepa && overSepaAmount(minor, exponent))) return false;
  f.endToEndId = e2e;
  f.currency = currency;
  f.newCurrency = newCurrency;
  // Keep the caller's text when it already has the currency's fraction digits (as the general writer does).
  // A plain amount (plainMinor) has at most `exponent` fraction digits, so it has all of them exactly when
  // its dot sits `exponent` characters from the end; one without a fraction has no dot.
  const canonical = exponent === 0 || amount.charCodeAt(amount.length - exponent - 1) === 46;
  f.amount = canonical ? amount : formatMinor(BigInt(minor), exponent);
  f.minor = minor;
  f.exponent = exponent;
  return true;
}

/** The creditor's keys: name and account required, country, postal address and agent optional. */
function hasCreditorShape(c: Rec): boolean {
  const country = c['country'];
  const pa = c['postalAddress'];
  const agent = c['agent'];
  if (typeof c['name'] !== 'string' || !isObject(c['account'])) return false;
  let creditorKeys = 2;
  if (country !== undefined) {
    if (typeof country !== 'string' || !isCountryCode(country)) return false;
    creditorKeys++;
  }
  if (pa !== undefined) {
    if (!isObject(pa)) return false;
    creditorKeys++;
  }
  if (agent !== undefined) {
    if (!isObject(agent)) return false;
    creditorKeys++;
  }
  return keyCount(c) === creditorKeys;
}

/** The creditor, in the normaliser's order: name, country, address, account, agent. */
function readCreditor(o: Rec, c: Rec, run: TxRun, f: TxFields): boolean {
  const name = c['name'] as string;
  const country = c['country'] as string | undefined;
  const pa = c['postalAddress'] as Rec | undefined;
  // Transliteration keeps a blank text blank and a non-blank one non-blank, and never shortens it.
  if (isBlank(name) || name.length > run.nameLimit) return false;
  f.address = pa !== undefined;
  if (pa !== undefined && !readAddress(pa, country, run, f)) return false;
  const account = c['account'] as Rec;
  const iban = account['iban'];
  if (typeof iban !== 'string' || keyCount(account) !== 1 || !isValidIban(iban)) return false;
  if (run.crossChannel !== undefined) {
    const crossBorder = isCrossBorder(run.crossChannel, run.profile.countryCode, iban.slice(0, 2));
    run.charset = crossBorder ? 'sepa' : run.ownCharset;
    run.classes = crossBorder ? SEPA : run.ownClasses;
  }
  const agent = c['agent'] as Rec | undefined;
  let bic: string | undefined;
  if (agent !== undefined) {
    const b = agent['bic'];
    // Its shape is checked as the writer copies it (isBicShapeAt).
    if (typeof b !== 'string' || keyCount(agent) !== 1 || (b.length !== 8 && b.length !== 11)) return false;
    bic = b;
  } else if (creditorNeedsBic(run.profile, o as Transaction)) return false;
  f.name = name;
  f.country = country;
  f.iban = iban;
  f.bic = bic;
  return true;
}

/** The creditor's postal address: its four lines within their lengths, nothing else. */
function readAddress(pa: Rec, country: string | undefined, run: TxRun, f: TxFields): boolean {
  const street = addressText(pa['streetName'], MAX_STREET);
  const building = addressText(pa['buildingNumber'], MAX_BUILDING);
  const post = addressText(pa['postCode'], MAX_POST_CODE);
  const town = addressText(pa['townName'], MAX_TOWN);
  if (street === null || building === null || post === null || town === null) return false;
  const n = +(street !== undefined) + +(building !== undefined) + +(post !== undefined) + +(town !== undefined);
  if (keyCount(pa) !== n) return false;
  // Bank: the November 2026 rule wants town and country in every address.
  if (run.townAndCountry && (isBlank(town) || isBlank(country as string))) return false;
  f.streetName = street;
  f.buildingNumber = building;
  f.postCode = post;
  f.townName = town;
  return true;
}

/** Remittance: free text (charset, generic and bank limits) and a creditor reference (SEPA set, 35). */
function readRemittance(rem: Rec, run: TxRun, f: TxFields): boolean {
  const u = rem['unstructured'];
  const r = rem['creditorReference'];
  const rt = rem['creditorReferenceType'];
  let remKeys = 0;
  if (u !== undefined) {
    if (typeof u !== 'string' || u.length > run.unstructuredLimit) return false;
    f.unstructured = u;
    remKeys++;
  }
  if (r !== undefined) {
    if (typeof r !== 'string' || r === '' || r.length > MAX_ID || !isSepaText(r)) return false;
    f.creditorReference = r;
    remKeys++;
  }
  if (rt !== undefined) {
    if (typeof rt !== 'string' || rt.length > MAX_ID) return false;
    remKeys++;
  }
  if (keyCount(rem) !== remKeys) return false;
  return !(u !== undefined && run.profile.flavour.noUnstructuredWithReference && !isBlank(f.creditorReference));
}

/** Payment type: per-transaction requirements, the regulatory report, the check-digit rules. */
function meetsTypeRules(o: Rec, j: number, run: TxRun, f: TxFields): boolean {
  const type = run.type;
  if (run.requirements.length > 0 && !meetsRequirements(o as Transaction, run.requirements)) return false;
  const plan = run.plan;
  plan.minors[j] = f.minor;
  plan.exponents[j] = f.exponent;
  if (run.reported && needsRegulatoryReport(run.profile, plan, j)) return false;
  const ref = f.creditorReference;
  if (type.referenceRule !== undefined || ref !== undefined || type.accountRule !== undefined) {
    // Check digits: the rules themselves, on the caller's object (they read no transliterated field).
    const errors = run.sink.errorCount;
    const tb = `${run.base}.transactions[${j}]`;
    if (type.referenceRule !== undefined || ref !== undefined) checkReference(run.sink, type, o as Transaction, tb);
    if (type.accountRule !== undefined) checkAccount(run.sink, type, o as Transaction, tb);
    if (run.sink.errorCount > errors) return false;
  }
  return true;
}
