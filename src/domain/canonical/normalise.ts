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
 * Turns arbitrary JSON into a fresh canonical payment. Only known fields are copied (so later steps may
 * transliterate in place without touching the caller's object); unknown ones are reported by dotted path;
 * a field of the wrong JSON type is dropped and reported as an `invalid_type` issue. Never throws.
 * Hand-written per type rather than schema-driven: this runs once per transaction on the hot path.
 */
export type NormaliseResult = { payment: CanonicalPayment; unknownFieldsDropped: string[] };

type Ctx = { unknown: string[]; issues: IssueSink };

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

function isRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

function unknownKeys(o: Rec, known: Set<string>, path: string, ctx: Ctx): void {
  for (const k in o) {
    if (!known.has(k)) ctx.unknown.push(path === '' ? k : `${path}.${k}`);
  }
}

/** `base` and `key` are joined only when an issue is raised, so the clean path allocates no strings. */
function str(v: unknown, base: string, key: string, ctx: Ctx): string | undefined {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return undefined;
  const path = base === '' ? key : `${base}.${key}`;
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

function obj(v: unknown, path: string, ctx: Ctx): Rec | undefined {
  if (isRecord(v)) return v;
  if (v === undefined || v === null) return undefined;
  ctx.issues.add('generic', 'invalid_type', path, `expected an object, got ${typeName(v)}`);
  return undefined;
}

function arr(v: unknown, path: string, ctx: Ctx): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (v === undefined || v === null) return undefined;
  ctx.issues.add('generic', 'invalid_type', path, `expected an array, got ${typeName(v)}`);
  return undefined;
}

function orgId(v: unknown, path: string, ctx: Ctx): OrganisationId | undefined {
  const o = obj(v, path, ctx);
  if (!o) return undefined;
  unknownKeys(o, ORG_KEYS, path, ctx);
  const r: OrganisationId = {};
  const id = str(o['id'], path, 'id', ctx);
  if (id !== undefined) r.id = id;
  const scheme = str(o['scheme'], path, 'scheme', ctx);
  if (scheme !== undefined) r.scheme = scheme;
  const issuer = str(o['issuer'], path, 'issuer', ctx);
  if (issuer !== undefined) r.issuer = issuer;
  return r;
}

function address(v: unknown, path: string, ctx: Ctx): PostalAddress | undefined {
  const o = obj(v, path, ctx);
  if (!o) return undefined;
  unknownKeys(o, ADDRESS_KEYS, path, ctx);
  const r: PostalAddress = {};
  const streetName = str(o['streetName'], path, 'streetName', ctx);
  if (streetName !== undefined) r.streetName = streetName;
  const buildingNumber = str(o['buildingNumber'], path, 'buildingNumber', ctx);
  if (buildingNumber !== undefined) r.buildingNumber = buildingNumber;
  const postCode = str(o['postCode'], path, 'postCode', ctx);
  if (postCode !== undefined) r.postCode = postCode;
  const townName = str(o['townName'], path, 'townName', ctx);
  if (townName !== undefined) r.townName = townName;
  const sub = str(o['countrySubDivision'], path, 'countrySubDivision', ctx);
  if (sub !== undefined) r.countrySubDivision = sub;
  const lines = arr(o['addressLines'], `${path}.addressLines`, ctx);
  if (lines) {
    const out: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = str(lines[i], path, `addressLines[${i}]`, ctx);
      if (line !== undefined) out.push(line);
    }
    r.addressLines = out;
  }
  return r;
}

function account(v: unknown, path: string, ctx: Ctx): Account | undefined {
  const o = obj(v, path, ctx);
  if (!o) return undefined;
  unknownKeys(o, ACCOUNT_KEYS, path, ctx);
  const r: Account = {};
  const iban = str(o['iban'], path, 'iban', ctx);
  if (iban !== undefined) r.iban = iban;
  const currency = str(o['currency'], path, 'currency', ctx);
  if (currency !== undefined) r.currency = currency;
  const other = obj(o['other'], `${path}.other`, ctx);
  if (other) {
    unknownKeys(other, OTHER_KEYS, `${path}.other`, ctx);
    const ro: OtherAccount = {};
    const id = str(other['id'], `${path}.other`, 'id', ctx);
    if (id !== undefined) ro.id = id;
    const scheme = str(other['scheme'], `${path}.other`, 'scheme', ctx);
    if (scheme !== undefined) ro.scheme = scheme;
    const issuer = str(other['issuer'], `${path}.other`, 'issuer', ctx);
    if (issuer !== undefined) ro.issuer = issuer;
    r.other = ro;
  }
  return r;
}

function agent(v: unknown, path: string, ctx: Ctx): Agent | undefined {
  const o = obj(v, path, ctx);
  if (!o) return undefined;
  unknownKeys(o, AGENT_KEYS, path, ctx);
  const r: Agent = {};
  const bic = str(o['bic'], path, 'bic', ctx);
  if (bic !== undefined) r.bic = bic;
  const clearing = obj(o['clearing'], `${path}.clearing`, ctx);
  if (clearing) {
    unknownKeys(clearing, CLEARING_KEYS, `${path}.clearing`, ctx);
    const rc: Clearing = {};
    const systemCode = str(clearing['systemCode'], `${path}.clearing`, 'systemCode', ctx);
    if (systemCode !== undefined) rc.systemCode = systemCode;
    const memberId = str(clearing['memberId'], `${path}.clearing`, 'memberId', ctx);
    if (memberId !== undefined) rc.memberId = memberId;
    r.clearing = rc;
  }
  const name = str(o['name'], path, 'name', ctx);
  if (name !== undefined) r.name = name;
  const country = str(o['country'], path, 'country', ctx);
  if (country !== undefined) r.country = country;
  return r;
}

function party(v: unknown, path: string, ctx: Ctx): Party | undefined {
  const o = obj(v, path, ctx);
  if (!o) return undefined;
  unknownKeys(o, PARTY_KEYS, path, ctx);
  const r: Party = {};
  const name = str(o['name'], path, 'name', ctx);
  if (name !== undefined) r.name = name;
  const country = str(o['country'], path, 'country', ctx);
  if (country !== undefined) r.country = country;
  if (o['postalAddress'] !== undefined) {
    const a = address(o['postalAddress'], `${path}.postalAddress`, ctx);
    if (a) r.postalAddress = a;
  }
  if (o['account'] !== undefined) {
    const a = account(o['account'], `${path}.account`, ctx);
    if (a) r.account = a;
  }
  if (o['agent'] !== undefined) {
    const a = agent(o['agent'], `${path}.agent`, ctx);
    if (a) r.agent = a;
  }
  if (o['organisationId'] !== undefined) {
    const id = orgId(o['organisationId'], `${path}.organisationId`, ctx);
    if (id) r.organisationId = id;
  }
  return r;
}

function remittance(v: unknown, path: string, ctx: Ctx): Remittance | undefined {
  const o = obj(v, path, ctx);
  if (!o) return undefined;
  unknownKeys(o, REMITTANCE_KEYS, path, ctx);
  const r: Remittance = {};
  const u = str(o['unstructured'], path, 'unstructured', ctx);
  if (u !== undefined) r.unstructured = u;
  const ref = str(o['creditorReference'], path, 'creditorReference', ctx);
  if (ref !== undefined) r.creditorReference = ref;
  const refType = str(o['creditorReferenceType'], path, 'creditorReferenceType', ctx);
  if (refType !== undefined) r.creditorReferenceType = refType;
  const docs = arr(o['referredDocuments'], `${path}.referredDocuments`, ctx);
  if (docs) {
    const out: ReferredDocument[] = [];
    for (let i = 0; i < docs.length; i++) {
      const dp = `${path}.referredDocuments[${i}]`;
      const d = obj(docs[i], dp, ctx);
      if (!d) continue;
      unknownKeys(d, DOC_KEYS, dp, ctx);
      const rd: ReferredDocument = {};
      const type = str(d['type'], dp, 'type', ctx);
      if (type !== undefined) rd.type = type;
      const number = str(d['number'], dp, 'number', ctx);
      if (number !== undefined) rd.number = number;
      const relatedDate = str(d['relatedDate'], dp, 'relatedDate', ctx);
      if (relatedDate !== undefined) rd.relatedDate = relatedDate;
      const amount = str(d['amount'], dp, 'amount', ctx);
      if (amount !== undefined) rd.amount = amount;
      out.push(rd);
    }
    r.referredDocuments = out;
  }
  return r;
}

function splitPayment(v: unknown, path: string, ctx: Ctx): SplitPayment | undefined {
  const o = obj(v, path, ctx);
  if (!o) return undefined;
  unknownKeys(o, SPLIT_KEYS, path, ctx);
  const r: SplitPayment = {};
  const vat = str(o['vatAmount'], path, 'vatAmount', ctx);
  if (vat !== undefined) r.vatAmount = vat;
  const inv = str(o['invoiceNumber'], path, 'invoiceNumber', ctx);
  if (inv !== undefined) r.invoiceNumber = inv;
  const taxId = str(o['taxId'], path, 'taxId', ctx);
  if (taxId !== undefined) r.taxId = taxId;
  const text = str(o['text'], path, 'text', ctx);
  if (text !== undefined) r.text = text;
  return r;
}

function regulatory(v: unknown, path: string, ctx: Ctx): RegulatoryReporting | undefined {
  const o = obj(v, path, ctx);
  if (!o) return undefined;
  unknownKeys(o, REG_KEYS, path, ctx);
  const r: RegulatoryReporting = {};
  const code = str(o['code'], path, 'code', ctx);
  if (code !== undefined) r.code = code;
  const amount = str(o['amount'], path, 'amount', ctx);
  if (amount !== undefined) r.amount = amount;
  const currency = str(o['currency'], path, 'currency', ctx);
  if (currency !== undefined) r.currency = currency;
  const information = str(o['information'], path, 'information', ctx);
  if (information !== undefined) r.information = information;
  const country = str(o['authorityCountry'], path, 'authorityCountry', ctx);
  if (country !== undefined) r.authorityCountry = country;
  return r;
}

function transaction(o: Rec, path: string, ctx: Ctx): Transaction {
  unknownKeys(o, TX_KEYS, path, ctx);
  const r: Transaction = {};
  const e2e = str(o['endToEndId'], path, 'endToEndId', ctx);
  if (e2e !== undefined) r.endToEndId = e2e;
  const instr = str(o['instructionId'], path, 'instructionId', ctx);
  if (instr !== undefined) r.instructionId = instr;
  const amount = str(o['amount'], path, 'amount', ctx);
  if (amount !== undefined) r.amount = amount;
  const currency = str(o['currency'], path, 'currency', ctx);
  if (currency !== undefined) r.currency = currency;
  if (o['creditor'] !== undefined) {
    const p = party(o['creditor'], `${path}.creditor`, ctx);
    if (p) r.creditor = p;
  }
  if (o['ultimateDebtor'] !== undefined) {
    const p = party(o['ultimateDebtor'], `${path}.ultimateDebtor`, ctx);
    if (p) r.ultimateDebtor = p;
  }
  if (o['ultimateCreditor'] !== undefined) {
    const p = party(o['ultimateCreditor'], `${path}.ultimateCreditor`, ctx);
    if (p) r.ultimateCreditor = p;
  }
  const instrDbtr = str(o['instructionForDebtorAgent'], path, 'instructionForDebtorAgent', ctx);
  if (instrDbtr !== undefined) r.instructionForDebtorAgent = instrDbtr;
  if (o['remittance'] !== undefined) {
    const rem = remittance(o['remittance'], `${path}.remittance`, ctx);
    if (rem) r.remittance = rem;
  }
  const purpose = str(o['purposeCode'], path, 'purposeCode', ctx);
  if (purpose !== undefined) r.purposeCode = purpose;
  if (o['regulatoryReporting'] !== undefined) {
    const reg = regulatory(o['regulatoryReporting'], `${path}.regulatoryReporting`, ctx);
    if (reg) r.regulatoryReporting = reg;
  }
  if (o['splitPayment'] !== undefined) {
    const sp = splitPayment(o['splitPayment'], `${path}.splitPayment`, ctx);
    if (sp) r.splitPayment = sp;
  }
  return r;
}

function payment(o: Rec, path: string, ctx: Ctx): Payment {
  unknownKeys(o, PAYMENT_KEYS, path, ctx);
  const r: Payment = { transactions: [] };
  const id = str(o['paymentId'], path, 'paymentId', ctx);
  if (id !== undefined) r.paymentId = id;
  const type = str(o['paymentType'], path, 'paymentType', ctx);
  if (type !== undefined) r.paymentType = type;
  const priority = str(o['priority'], path, 'priority', ctx);
  if (priority !== undefined) r.priority = priority;
  const chargeBearer = str(o['chargeBearer'], path, 'chargeBearer', ctx);
  if (chargeBearer !== undefined) r.chargeBearer = chargeBearer;
  const lcl = str(o['localInstrument'], path, 'localInstrument', ctx);
  if (lcl !== undefined) r.localInstrument = lcl;
  const ctgy = str(o['categoryPurpose'], path, 'categoryPurpose', ctx);
  if (ctgy !== undefined) r.categoryPurpose = ctgy;
  const date = str(o['executionDate'], path, 'executionDate', ctx);
  if (date !== undefined) r.executionDate = date;
  if (o['debtor'] !== undefined) {
    const p = party(o['debtor'], `${path}.debtor`, ctx);
    if (p) r.debtor = p;
  }
  if (o['ultimateDebtor'] !== undefined) {
    const p = party(o['ultimateDebtor'], `${path}.ultimateDebtor`, ctx);
    if (p) r.ultimateDebtor = p;
  }
  const txs = arr(o['transactions'], `${path}.transactions`, ctx);
  if (txs) {
    for (let i = 0; i < txs.length; i++) {
      const tp = `${path}.transactions[${i}]`;
      const t = txs[i];
      if (isRecord(t)) r.transactions.push(transaction(t, tp, ctx));
      else {
        ctx.issues.add('generic', 'invalid_type', tp, `expected an object, got ${typeName(t)}`);
        // Keep the index stable so later paths still point at the submitted element.
        r.transactions.push({});
      }
    }
  }
  return r;
}

export function normaliseCanonical(raw: unknown, issues: IssueSink): NormaliseResult {
  const ctx: Ctx = { unknown: [], issues };
  const out: CanonicalPayment = { schemaVersion: CURRENT_SCHEMA_VERSION, payments: [] };
  if (!isRecord(raw)) {
    issues.add('generic', 'invalid_type', '', `expected a canonical payment object, got ${typeName(raw)}`);
    return { payment: out, unknownFieldsDropped: [] };
  }
  unknownKeys(raw, TOP_KEYS, '', ctx);
  const version = str(raw['schemaVersion'], '', 'schemaVersion', ctx);
  if (version !== undefined) out.schemaVersion = version;
  const messageId = str(raw['messageId'], '', 'messageId', ctx);
  if (messageId !== undefined) out.messageId = messageId;
  const created = str(raw['creationDateTime'], '', 'creationDateTime', ctx);
  if (created !== undefined) out.creationDateTime = created;
  const ip = obj(raw['initiatingParty'], 'initiatingParty', ctx);
  if (ip) {
    unknownKeys(ip, INITIATING_KEYS, 'initiatingParty', ctx);
    const r: InitiatingParty = {};
    const name = str(ip['name'], 'initiatingParty', 'name', ctx);
    if (name !== undefined) r.name = name;
    if (ip['organisationId'] !== undefined) {
      const id = orgId(ip['organisationId'], 'initiatingParty.organisationId', ctx);
      if (id) r.organisationId = id;
    }
    out.initiatingParty = r;
  }
  const payments = arr(raw['payments'], 'payments', ctx);
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
