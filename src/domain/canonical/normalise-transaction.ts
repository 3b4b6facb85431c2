import { MAX_ID, MAX_UNSTRUCTURED } from '../validation/field-rules.ts';
import type { Ctx, Rec } from './normalise-fields.ts';
import {
  arr,
  CREDITOR,
  DOC_KEYS,
  obj,
  REG_KEYS,
  REMITTANCE_KEYS,
  SPLIT_KEYS,
  str,
  TX_KEYS,
  txt,
  ULTIMATE_CREDITOR,
  ULTIMATE_DEBTOR,
  unknownKeys,
} from './normalise-fields.ts';
import { party } from './normalise-party.ts';
import type { ReferredDocument, RegulatoryReporting, Remittance, SplitPayment, Transaction } from './types.ts';

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
  const u = txt(o['unstructured'], base, rel, 'unstructured', ctx, MAX_UNSTRUCTURED);
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
  const text = txt(o['text'], base, rel, 'text', ctx, 33);
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
  const information = txt(o['information'], base, rel, 'information', ctx, MAX_ID);
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

export function transaction(o: Rec, base: string, ctx: Ctx): Transaction {
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
  const instrDbtr = txt(o['instructionForDebtorAgent'], base, rel, 'instructionForDebtorAgent', ctx, MAX_UNSTRUCTURED);
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
