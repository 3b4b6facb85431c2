import type { CharsetName } from '../validation/charset.ts';
import { checkCharset } from '../validation/charset.ts';
import type { IssueSink } from '../validation/issue.ts';
import type {
  Account,
  Agent,
  CanonicalPayment,
  Clearing,
  InitiatingParty,
  OrganisationId,
  OtherAccount,
  Party,
  Payment,
  PostalAddress,
  ReferredDocument,
  RegulatoryReporting,
  Remittance,
  SplitPayment,
  Transaction,
} from './types.ts';
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

type Ctx = { unknown: string[]; issues: IssueSink; charset: CharsetName };

const TOP_KEYS = new Set(['schemaVersion', 'messageId', 'creationDateTime', 'initiatingParty', 'payments']);
const INITIATING_KEYS = new Set(['name', 'organisationId']);
const ORG_KEYS = new Set(['id', 'scheme', 'issuer']);
const PAYMENT_KEYS = new Set([
  'paymentId',
  'paymentType',
  'priority',
  'chargeBearer',
  'localInstrument',
  'categoryPurpose',
  'executionDate',
  'debtor',
  'ultimateDebtor',
  'transactions',
]);
const PARTY_KEYS = new Set(['name', 'country', 'postalAddress', 'account', 'agent', 'organisationId']);
const ADDRESS_KEYS = new Set([
  'streetName',
  'buildingNumber',
  'postCode',
  'townName',
  'countrySubDivision',
  'addressLines',
]);
const ACCOUNT_KEYS = new Set(['iban', 'currency', 'other']);
const OTHER_KEYS = new Set(['id', 'scheme', 'issuer']);
const AGENT_KEYS = new Set(['bic', 'clearing', 'name', 'country']);
const CLEARING_KEYS = new Set(['systemCode', 'memberId']);
const TX_KEYS = new Set([
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
const REMITTANCE_KEYS = new Set(['unstructured', 'creditorReference', 'creditorReferenceType', 'referredDocuments']);
const DOC_KEYS = new Set(['type', 'number', 'relatedDate', 'amount']);
const SPLIT_KEYS = new Set(['vatAmount', 'invoiceNumber', 'taxId', 'text']);
const REG_KEYS = new Set(['code', 'amount', 'currency', 'information', 'authorityCountry']);

type Rec = Record<string, unknown>;

/**
 * Paths are passed as a base (`payments[0].transactions[3]`) plus a constant relative part (`creditor.account`)
 * and joined only when something is reported: the clean path builds no strings.
 */
function at(base: string, rel: string, key: string): string {
  const r = rel === '' ? key : key === '' ? rel : `${rel}.${key}`;
  return base === '' ? r : r === '' ? base : `${base}.${r}`;
}

type PartyRels = {
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
const CREDITOR = partyRels('creditor');
const ULTIMATE_DEBTOR = partyRels('ultimateDebtor');
const ULTIMATE_CREDITOR = partyRels('ultimateCreditor');
const DEBTOR = partyRels('debtor');

function isRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

/** Reports unknown keys; true when there were none. */
function unknownKeys(o: Rec, known: Set<string>, base: string, rel: string, ctx: Ctx): boolean {
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
function str(v: unknown, base: string, rel: string, key: string, ctx: Ctx): string | undefined {
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

function obj(v: unknown, base: string, rel: string, ctx: Ctx): Rec | undefined {
  if (isRecord(v)) return v;
  if (v === undefined || v === null) return undefined;
  const path = at(base, rel, '');
  ctx.issues.add('generic', 'invalid_type', path, `expected an object, got ${typeName(v)}`);
  return undefined;
}

function arr(v: unknown, base: string, rel: string, key: string, ctx: Ctx): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (v === undefined || v === null) return undefined;
  const path = at(base, rel, key);
  ctx.issues.add('generic', 'invalid_type', path, `expected an array, got ${typeName(v)}`);
  return undefined;
}

/**
 * A free-text field in the bank's character set: transliterated where safe (warning naming the
 * replacements), kept and reported where not. Returns the value to use.
 */
function txt(v: unknown, base: string, rel: string, key: string, ctx: Ctx): string | undefined {
  if (typeof v !== 'string') return str(v, base, rel, key, ctx);
  const r = checkCharset(v, ctx.charset);
  if (r.kind === 'ok') return v;
  const path = at(base, rel, key);
  if (r.kind === 'transliterated') {
    ctx.issues.add(
      'generic',
      'charset_transliterated',
      path,
      `characters outside the bank's character set were replaced: ${r.replacements}`,
      undefined,
      'warning',
    );
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
function iban(v: unknown, base: string, rel: string, ctx: Ctx): string | undefined {
  const s = str(v, base, rel, 'iban', ctx);
  return s !== undefined && PRINT_FORM.test(s) ? s.replace(/\s+/g, '').toUpperCase() : s;
}
const PRINT_FORM = /[\sa-z]/;

// Each builder below returns the input object itself when it is already canonical (known keys, right
// types, nothing transliterated): the common case then allocates nothing and keeps no second copy of a
// large batch alive. Otherwise it returns a fresh object; the caller's object is never modified.

function orgId(v: unknown, base: string, rel: string, ctx: Ctx): OrganisationId | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, ORG_KEYS, base, rel, ctx);
  const id = str(o['id'], base, rel, 'id', ctx);
  const scheme = str(o['scheme'], base, rel, 'scheme', ctx);
  const issuer = str(o['issuer'], base, rel, 'issuer', ctx);
  if (clean && id === o['id'] && scheme === o['scheme'] && issuer === o['issuer']) return o as OrganisationId;
  const r: OrganisationId = {};
  if (id !== undefined) r.id = id;
  if (scheme !== undefined) r.scheme = scheme;
  if (issuer !== undefined) r.issuer = issuer;
  return r;
}

function address(v: unknown, base: string, rel: string, ctx: Ctx): PostalAddress | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  let clean = unknownKeys(o, ADDRESS_KEYS, base, rel, ctx);
  const streetName = txt(o['streetName'], base, rel, 'streetName', ctx);
  const buildingNumber = txt(o['buildingNumber'], base, rel, 'buildingNumber', ctx);
  const postCode = txt(o['postCode'], base, rel, 'postCode', ctx);
  const townName = txt(o['townName'], base, rel, 'townName', ctx);
  const sub = txt(o['countrySubDivision'], base, rel, 'countrySubDivision', ctx);
  const rawLines = o['addressLines'];
  let lines: string[] | undefined;
  const arrLines = arr(rawLines, base, rel, 'addressLines', ctx);
  if (arrLines) {
    lines = [];
    let same = true;
    for (let i = 0; i < arrLines.length; i++) {
      const line = txt(arrLines[i], base, rel, `addressLines[${i}]`, ctx);
      if (line !== arrLines[i]) same = false;
      if (line !== undefined) lines.push(line);
    }
    if (same) lines = arrLines as string[];
  }
  clean =
    clean &&
    streetName === o['streetName'] &&
    buildingNumber === o['buildingNumber'] &&
    postCode === o['postCode'] &&
    townName === o['townName'] &&
    sub === o['countrySubDivision'] &&
    lines === rawLines;
  if (clean) return o as PostalAddress;
  const r: PostalAddress = {};
  if (streetName !== undefined) r.streetName = streetName;
  if (buildingNumber !== undefined) r.buildingNumber = buildingNumber;
  if (postCode !== undefined) r.postCode = postCode;
  if (townName !== undefined) r.townName = townName;
  if (sub !== undefined) r.countrySubDivision = sub;
  if (lines !== undefined) r.addressLines = lines;
  return r;
}

function otherAccount(v: unknown, base: string, rel: string, ctx: Ctx): OtherAccount | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, OTHER_KEYS, base, rel, ctx);
  const id = str(o['id'], base, rel, 'id', ctx);
  const scheme = str(o['scheme'], base, rel, 'scheme', ctx);
  const issuer = str(o['issuer'], base, rel, 'issuer', ctx);
  if (clean && id === o['id'] && scheme === o['scheme'] && issuer === o['issuer']) return o as OtherAccount;
  const r: OtherAccount = {};
  if (id !== undefined) r.id = id;
  if (scheme !== undefined) r.scheme = scheme;
  if (issuer !== undefined) r.issuer = issuer;
  return r;
}

function account(v: unknown, base: string, rel: string, ctx: Ctx): Account | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, ACCOUNT_KEYS, base, rel, ctx);
  const ib = iban(o['iban'], base, rel, ctx);
  const currency = str(o['currency'], base, rel, 'currency', ctx);
  const other = o['other'] === undefined ? undefined : otherAccount(o['other'], base, `${rel}.other`, ctx);
  if (clean && ib === o['iban'] && currency === o['currency'] && other === o['other']) return o as Account;
  const r: Account = {};
  if (ib !== undefined) r.iban = ib;
  if (currency !== undefined) r.currency = currency;
  if (other !== undefined) r.other = other;
  return r;
}

function clearing(v: unknown, base: string, rel: string, ctx: Ctx): Clearing | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, CLEARING_KEYS, base, rel, ctx);
  const systemCode = str(o['systemCode'], base, rel, 'systemCode', ctx);
  const memberId = str(o['memberId'], base, rel, 'memberId', ctx);
  if (clean && systemCode === o['systemCode'] && memberId === o['memberId']) return o as Clearing;
  const r: Clearing = {};
  if (systemCode !== undefined) r.systemCode = systemCode;
  if (memberId !== undefined) r.memberId = memberId;
  return r;
}

function agent(v: unknown, base: string, rel: string, ctx: Ctx): Agent | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, AGENT_KEYS, base, rel, ctx);
  const bic = str(o['bic'], base, rel, 'bic', ctx);
  const c = o['clearing'] === undefined ? undefined : clearing(o['clearing'], base, `${rel}.clearing`, ctx);
  const name = txt(o['name'], base, rel, 'name', ctx);
  const country = str(o['country'], base, rel, 'country', ctx);
  if (clean && bic === o['bic'] && c === o['clearing'] && name === o['name'] && country === o['country'])
    return o as Agent;
  const r: Agent = {};
  if (bic !== undefined) r.bic = bic;
  if (c !== undefined) r.clearing = c;
  if (name !== undefined) r.name = name;
  if (country !== undefined) r.country = country;
  return r;
}

function party(v: unknown, base: string, R: PartyRels, ctx: Ctx): Party | undefined {
  const rel = R.self;
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, PARTY_KEYS, base, rel, ctx);
  const name = txt(o['name'], base, rel, 'name', ctx);
  const country = str(o['country'], base, rel, 'country', ctx);
  const pa = o['postalAddress'] === undefined ? undefined : address(o['postalAddress'], base, R.postalAddress, ctx);
  const acct = o['account'] === undefined ? undefined : account(o['account'], base, R.account, ctx);
  const ag = o['agent'] === undefined ? undefined : agent(o['agent'], base, R.agent, ctx);
  const org = o['organisationId'] === undefined ? undefined : orgId(o['organisationId'], base, R.org, ctx);
  if (
    clean &&
    name === o['name'] &&
    country === o['country'] &&
    pa === o['postalAddress'] &&
    acct === o['account'] &&
    ag === o['agent'] &&
    org === o['organisationId']
  ) {
    return o as Party;
  }
  const r: Party = {};
  if (name !== undefined) r.name = name;
  if (country !== undefined) r.country = country;
  if (pa !== undefined) r.postalAddress = pa;
  if (acct !== undefined) r.account = acct;
  if (ag !== undefined) r.agent = ag;
  if (org !== undefined) r.organisationId = org;
  return r;
}

function referredDocument(v: unknown, base: string, rel: string, ctx: Ctx): ReferredDocument | undefined {
  const d = obj(v, base, rel, ctx);
  if (!d) return undefined;
  const clean = unknownKeys(d, DOC_KEYS, base, rel, ctx);
  const type = str(d['type'], base, rel, 'type', ctx);
  const number = str(d['number'], base, rel, 'number', ctx);
  const relatedDate = str(d['relatedDate'], base, rel, 'relatedDate', ctx);
  const amount = str(d['amount'], base, rel, 'amount', ctx);
  if (
    clean &&
    type === d['type'] &&
    number === d['number'] &&
    relatedDate === d['relatedDate'] &&
    amount === d['amount']
  ) {
    return d as ReferredDocument;
  }
  const rd: ReferredDocument = {};
  if (type !== undefined) rd.type = type;
  if (number !== undefined) rd.number = number;
  if (relatedDate !== undefined) rd.relatedDate = relatedDate;
  if (amount !== undefined) rd.amount = amount;
  return rd;
}

function remittance(v: unknown, base: string, rel: string, ctx: Ctx): Remittance | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, REMITTANCE_KEYS, base, rel, ctx);
  const u = txt(o['unstructured'], base, rel, 'unstructured', ctx);
  const ref = str(o['creditorReference'], base, rel, 'creditorReference', ctx);
  const refType = str(o['creditorReferenceType'], base, rel, 'creditorReferenceType', ctx);
  const rawDocs = o['referredDocuments'];
  let docs: ReferredDocument[] | undefined;
  const list = arr(rawDocs, base, rel, 'referredDocuments', ctx);
  if (list) {
    docs = [];
    let same = true;
    for (let i = 0; i < list.length; i++) {
      const d = referredDocument(list[i], base, `${rel}.referredDocuments[${i}]`, ctx);
      if (d !== list[i]) same = false;
      if (d) docs.push(d);
    }
    if (same) docs = list as ReferredDocument[];
  }
  if (
    clean &&
    u === o['unstructured'] &&
    ref === o['creditorReference'] &&
    refType === o['creditorReferenceType'] &&
    docs === rawDocs
  ) {
    return o as Remittance;
  }
  const r: Remittance = {};
  if (u !== undefined) r.unstructured = u;
  if (ref !== undefined) r.creditorReference = ref;
  if (refType !== undefined) r.creditorReferenceType = refType;
  if (docs !== undefined) r.referredDocuments = docs;
  return r;
}

function splitPayment(v: unknown, base: string, rel: string, ctx: Ctx): SplitPayment | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, SPLIT_KEYS, base, rel, ctx);
  const vat = str(o['vatAmount'], base, rel, 'vatAmount', ctx);
  const inv = str(o['invoiceNumber'], base, rel, 'invoiceNumber', ctx);
  const taxId = str(o['taxId'], base, rel, 'taxId', ctx);
  const text = txt(o['text'], base, rel, 'text', ctx);
  if (clean && vat === o['vatAmount'] && inv === o['invoiceNumber'] && taxId === o['taxId'] && text === o['text'])
    return o as SplitPayment;
  const r: SplitPayment = {};
  if (vat !== undefined) r.vatAmount = vat;
  if (inv !== undefined) r.invoiceNumber = inv;
  if (taxId !== undefined) r.taxId = taxId;
  if (text !== undefined) r.text = text;
  return r;
}

function regulatory(v: unknown, base: string, rel: string, ctx: Ctx): RegulatoryReporting | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, REG_KEYS, base, rel, ctx);
  const code = str(o['code'], base, rel, 'code', ctx);
  const amount = str(o['amount'], base, rel, 'amount', ctx);
  const currency = str(o['currency'], base, rel, 'currency', ctx);
  const information = txt(o['information'], base, rel, 'information', ctx);
  const country = str(o['authorityCountry'], base, rel, 'authorityCountry', ctx);
  if (
    clean &&
    code === o['code'] &&
    amount === o['amount'] &&
    currency === o['currency'] &&
    information === o['information'] &&
    country === o['authorityCountry']
  ) {
    return o as RegulatoryReporting;
  }
  const r: RegulatoryReporting = {};
  if (code !== undefined) r.code = code;
  if (amount !== undefined) r.amount = amount;
  if (currency !== undefined) r.currency = currency;
  if (information !== undefined) r.information = information;
  if (country !== undefined) r.authorityCountry = country;
  return r;
}

function transaction(o: Rec, base: string, ctx: Ctx): Transaction {
  const rel = '';
  const clean = unknownKeys(o, TX_KEYS, base, rel, ctx);
  const e2e = str(o['endToEndId'], base, rel, 'endToEndId', ctx);
  const instr = str(o['instructionId'], base, rel, 'instructionId', ctx);
  const amount = str(o['amount'], base, rel, 'amount', ctx);
  const currency = str(o['currency'], base, rel, 'currency', ctx);
  const creditor = o['creditor'] === undefined ? undefined : party(o['creditor'], base, CREDITOR, ctx);
  const ud = o['ultimateDebtor'] === undefined ? undefined : party(o['ultimateDebtor'], base, ULTIMATE_DEBTOR, ctx);
  const uc =
    o['ultimateCreditor'] === undefined ? undefined : party(o['ultimateCreditor'], base, ULTIMATE_CREDITOR, ctx);
  const instrDbtr = txt(o['instructionForDebtorAgent'], base, rel, 'instructionForDebtorAgent', ctx);
  const rem = o['remittance'] === undefined ? undefined : remittance(o['remittance'], base, 'remittance', ctx);
  const purpose = str(o['purposeCode'], base, rel, 'purposeCode', ctx);
  const reg =
    o['regulatoryReporting'] === undefined
      ? undefined
      : regulatory(o['regulatoryReporting'], base, 'regulatoryReporting', ctx);
  const sp = o['splitPayment'] === undefined ? undefined : splitPayment(o['splitPayment'], base, 'splitPayment', ctx);
  if (
    clean &&
    e2e === o['endToEndId'] &&
    instr === o['instructionId'] &&
    amount === o['amount'] &&
    currency === o['currency'] &&
    creditor === o['creditor'] &&
    ud === o['ultimateDebtor'] &&
    uc === o['ultimateCreditor'] &&
    instrDbtr === o['instructionForDebtorAgent'] &&
    rem === o['remittance'] &&
    purpose === o['purposeCode'] &&
    reg === o['regulatoryReporting'] &&
    sp === o['splitPayment']
  ) {
    return o as Transaction;
  }
  const r: Transaction = {};
  if (e2e !== undefined) r.endToEndId = e2e;
  if (instr !== undefined) r.instructionId = instr;
  if (amount !== undefined) r.amount = amount;
  if (currency !== undefined) r.currency = currency;
  if (creditor) r.creditor = creditor;
  if (ud) r.ultimateDebtor = ud;
  if (uc) r.ultimateCreditor = uc;
  if (instrDbtr !== undefined) r.instructionForDebtorAgent = instrDbtr;
  if (rem) r.remittance = rem;
  if (purpose !== undefined) r.purposeCode = purpose;
  if (reg) r.regulatoryReporting = reg;
  if (sp) r.splitPayment = sp;
  return r;
}

/** Payments are always copied (there are few): later steps fill defaults into them. */
function payment(o: Rec, base: string, ctx: Ctx): Payment {
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
  if (txs) {
    for (let i = 0; i < txs.length; i++) {
      const tp = `${base}.transactions[${i}]`;
      const t = txs[i];
      if (isRecord(t)) r.transactions.push(transaction(t, tp, ctx));
      else {
        ctx.issues.add('generic', 'invalid_type', tp, `expected an object, got ${typeName(t)}`);
        // Keep the index stable so later paths still point at the submitted element.
        r.transactions.push(INVALID_TRANSACTION);
      }
    }
  }
  return r;
}

export function normaliseCanonical(raw: unknown, issues: IssueSink, charset: CharsetName = 'sepa'): NormaliseResult {
  const ctx: Ctx = { unknown: [], issues, charset };
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
    const name = txt(ip['name'], '', 'initiatingParty', 'name', ctx);
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
      if (isRecord(p)) out.payments.push(payment(p, `payments[${i}]`, ctx));
      else {
        issues.add('generic', 'invalid_type', `payments[${i}]`, `expected an object, got ${typeName(p)}`);
        out.payments.push({ transactions: [] });
      }
    }
  }
  return { payment: out, unknownFieldsDropped: ctx.unknown };
}
