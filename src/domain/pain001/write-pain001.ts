import type { Party, Transaction } from '../canonical/types.ts';
import { formatMinor } from '../money/money.ts';
import type { DocumentPlan, PaymentPlan } from '../validation/plan.ts';
import { minorAt } from '../validation/plan.ts';
import type { ChunkSink } from './chunk-writer.ts';
import { ChunkWriter } from './chunk-writer.ts';
import { esc, escText } from './escape.ts';
import type { VersionTags } from './parts.ts';
import {
  accountXml,
  addressXml,
  agentXml,
  codeOrPrtry,
  orgIdXml,
  partyXml,
  regulatoryXml,
  remittanceXml,
} from './parts.ts';

/**
 * Streaming pain.001 writer (.001.001.03, .09 and .11) for a validated document plan. One PmtInf per
 * canonical payment, split per currency or per transaction only where the bank's grouping says so.
 * NbOfTxs and CtrlSum are exact at group and PmtInf level (DESIGN.md). The PmtInf header is built once
 * per group; the per-transaction path is one template per transaction.
 */

type Group = {
  plan: PaymentPlan;
  pmtInfId: string;
  indices: number[] | undefined;
  count: number;
  sum: bigint;
  exp: number;
  ctrlSum: string;
};

/**
 * Sum of minor units across currencies, at the largest exponent among them. Summed as doubles while that
 * is provably exact (every term and the running total below 2^53), else again with bigint.
 */
function controlSum(plan: PaymentPlan, indices: number[] | undefined): { sum: bigint; exp: number } {
  const n = indices ? indices.length : plan.minors.length;
  let exp = 0;
  for (let k = 0; k < n; k++) {
    const e = plan.exponents[indices ? (indices[k] as number) : k] ?? 2;
    if (e > exp) exp = e;
  }
  if (plan.bigMinors === undefined) {
    let sum = 0;
    let exact = true;
    for (let k = 0; k < n && exact; k++) {
      const j = indices ? (indices[k] as number) : k;
      const e = plan.exponents[j] ?? 2;
      sum += (plan.minors[j] ?? 0) * 10 ** (exp - e);
      exact = sum <= Number.MAX_SAFE_INTEGER;
    }
    if (exact) return { sum: BigInt(sum), exp };
  }
  let sum = 0n;
  for (let k = 0; k < n; k++) {
    const j = indices ? (indices[k] as number) : k;
    const e = plan.exponents[j] ?? 2;
    const m = minorAt(plan, j);
    sum += e === exp ? m : m * 10n ** BigInt(exp - e);
  }
  return { sum, exp };
}

function groupsOf(doc: DocumentPlan): Group[] {
  const mode = doc.profile.flavour.grouping;
  const out: Group[] = [];
  for (const plan of doc.payments) {
    const id = plan.payment.paymentId ?? '';
    const txs = plan.payment.transactions;
    let parts: Array<number[] | undefined>;
    if (mode === 'per-transaction' && txs.length > 1) parts = txs.map((_, j) => [j]);
    else if (mode === 'per-currency') {
      const by = new Map<string, number[]>();
      for (let j = 0; j < txs.length; j++) {
        const c = txs[j]?.currency ?? '';
        const list = by.get(c);
        if (list) list.push(j);
        else by.set(c, [j]);
      }
      parts = by.size > 1 ? [...by.values()] : [undefined];
    } else parts = [undefined];
    for (let k = 0; k < parts.length; k++) {
      const indices = parts[k];
      const { sum, exp } = controlSum(plan, indices);
      out.push({
        plan,
        pmtInfId: parts.length === 1 ? id : `${id}-${k + 1}`,
        indices,
        count: indices ? indices.length : txs.length,
        sum,
        exp,
        ctrlSum: formatMinor(sum, exp),
      });
    }
  }
  return out;
}

function amountText(tx: Transaction, plan: PaymentPlan, j: number): string {
  const a = tx.amount ?? '';
  const exp = plan.exponents[j] ?? 2;
  const dot = a.indexOf('.');
  // Keep the caller's text when it already has the currency's fraction digits: exact round trip, no work.
  const canonical = exp === 0 ? dot < 0 : dot > 0 && a.length - dot - 1 === exp;
  return canonical ? a : formatMinor(minorAt(plan, j), exp);
}

function pmtTpInf(plan: PaymentPlan, ind: string): string {
  const e = plan.encoding;
  let x = '';
  if (e.priority) x += `<InstrPrty>${e.priority}</InstrPrty>`;
  if (e.serviceLevel) x += `<SvcLvl><Cd>${esc(e.serviceLevel)}</Cd></SvcLvl>`;
  if (e.localInstrument) x += `<LclInstrm>${codeOrPrtry(e.localInstrument)}</LclInstrm>`;
  if (e.categoryPurpose) x += `<CtgyPurp><Cd>${esc(e.categoryPurpose)}</Cd></CtgyPurp>`;
  return x === '' ? '' : `${ind}<PmtTpInf>${x}</PmtTpInf>\n`;
}

/** What a PmtInf header needs of its group. */
export type GroupHead = Pick<Group, 'plan' | 'pmtInfId' | 'count' | 'ctrlSum'>;

export function versionTags(painVersion: DocumentPlan['painVersion']): VersionTags {
  const v09 = painVersion !== 'pain.001.001.03';
  return { v09, v11: painVersion === 'pain.001.001.11', bic: v09 ? 'BICFI' : 'BIC' };
}

/** XML declaration, Document, CstmrCdtTrfInitn and GrpHdr with the message's totals. */
export function documentHead(doc: DocumentPlan, count: number, ctrlSum: string): string {
  const ip = doc.doc.initiatingParty;
  const scheme = doc.profile.flavour.initiatingPartyScheme;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:${doc.painVersion}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n<CstmrCdtTrfInitn>\n  <GrpHdr>\n` +
    `    <MsgId>${escText(doc.doc.messageId ?? '')}</MsgId>\n    <CreDtTm>${doc.creationDateTime}</CreDtTm>\n` +
    `    <NbOfTxs>${count}</NbOfTxs>\n    <CtrlSum>${ctrlSum}</CtrlSum>\n` +
    `    <InitgPty>\n${ip?.name ? `      <Nm>${escText(ip.name)}</Nm>\n` : ''}${orgIdXml(ip?.organisationId, scheme === 'none' ? undefined : scheme, '      ')}    </InitgPty>\n  </GrpHdr>\n`
  );
}

export const DOCUMENT_END = '</CstmrCdtTrfInitn>\n</Document>\n';
export const PMTINF_END = '  </PmtInf>\n';

export function pmtInfHeader(doc: DocumentPlan, g: GroupHead, t: VersionTags): string {
  const p = g.plan.payment;
  const i = '    ';
  const date = p.executionDate ?? '';
  let x = `  <PmtInf>\n${i}<PmtInfId>${escText(g.pmtInfId)}</PmtInfId>\n${i}<PmtMtd>TRF</PmtMtd>\n`;
  const batch = g.plan.encoding.batchBooking;
  if (batch !== undefined) x += `${i}<BtchBookg>${batch}</BtchBookg>\n`;
  x += `${i}<NbOfTxs>${g.count}</NbOfTxs>\n${i}<CtrlSum>${g.ctrlSum}</CtrlSum>\n`;
  x += pmtTpInf(g.plan, i);
  x += t.v09 ? `${i}<ReqdExctnDt><Dt>${date}</Dt></ReqdExctnDt>\n` : `${i}<ReqdExctnDt>${date}</ReqdExctnDt>\n`;
  x += partyXml('Dbtr', p.debtor, i);
  x += accountXml('DbtrAcct', p.debtor?.account, i);
  x += agentXml('DbtrAgt', p.debtor?.agent, i, t, true);
  x += partyXml('UltmtDbtr', p.ultimateDebtor, i);
  if (g.plan.encoding.chargeBearer) x += `${i}<ChrgBr>${g.plan.encoding.chargeBearer}</ChrgBr>\n`;
  return x;
}

/**
 * One CdtTrfTxInf. The common creditor (BIC agent, name, structured address, IBAN) is written inline in one
 * string; anything rarer goes through the shared element builders, which produce the same text.
 */
function transactionXml(tx: Transaction, amount: string, typeCode: string | undefined, t: VersionTags): string {
  const i = '      ';
  const instr = tx.instructionId ? `<InstrId>${escText(tx.instructionId)}</InstrId>` : '';
  let x = `    <CdtTrfTxInf>\n      <PmtId>${instr}<EndToEndId>${escText(tx.endToEndId ?? '')}</EndToEndId></PmtId>\n      <Amt><InstdAmt Ccy="${tx.currency}">${amount}</InstdAmt></Amt>\n`;
  if (tx.ultimateDebtor) x += partyXml('UltmtDbtr', tx.ultimateDebtor, i);
  const c = tx.creditor;
  if (c !== undefined) x += creditorXml(c, t);
  else x += agentXml('CdtrAgt', undefined, i, t, false);
  if (tx.ultimateCreditor) x += partyXml('UltmtCdtr', tx.ultimateCreditor, i);
  if (tx.instructionForDebtorAgent) {
    const text = escText(tx.instructionForDebtorAgent);
    x += t.v11
      ? `${i}<InstrForDbtrAgt><InstrInf>${text}</InstrInf></InstrForDbtrAgt>\n`
      : `${i}<InstrForDbtrAgt>${text}</InstrForDbtrAgt>\n`;
  }
  if (tx.purposeCode) x += `${i}<Purp><Cd>${tx.purposeCode}</Cd></Purp>\n`;
  if (tx.regulatoryReporting) x += regulatoryXml(tx.regulatoryReporting, tx.currency, i);
  if (tx.splitPayment) x += remittanceXml(tx, typeCode, i);
  else {
    const r = tx.remittance;
    if (r) {
      // Only free text: the common remittance, written inline (same text as remittanceXml).
      if (r.creditorReference === undefined && r.referredDocuments === undefined) {
        if (r.unstructured) x += `${i}<RmtInf><Ustrd>${escText(r.unstructured)}</Ustrd></RmtInf>\n`;
      } else x += remittanceXml(tx, typeCode, i);
    }
  }
  return `${x}    </CdtTrfTxInf>\n`;
}

/** CdtrAgt, Cdtr and CdtrAcct of a creditor: agentXml, partyXml and accountXml inlined for the common shapes. */
function creditorXml(c: Party, t: VersionTags): string {
  const i = '      ';
  const g = c.agent;
  let x: string;
  if (g?.bic && g.clearing === undefined && !g.name && !g.country) {
    x = `${i}<CdtrAgt><FinInstnId><${t.bic}>${g.bic}</${t.bic}></FinInstnId></CdtrAgt>\n${i}<Cdtr>\n`;
  } else x = `${agentXml('CdtrAgt', g, i, t, false)}${i}<Cdtr>\n`;
  if (c.name) x += `${i}  <Nm>${escText(c.name)}</Nm>\n`;
  const a = c.postalAddress;
  if (a !== undefined && a.countrySubDivision === undefined && a.addressLines === undefined) {
    x += `${i}  <PstlAdr>`;
    if (a.streetName) x += `<StrtNm>${escText(a.streetName)}</StrtNm>`;
    if (a.buildingNumber) x += `<BldgNb>${escText(a.buildingNumber)}</BldgNb>`;
    if (a.postCode) x += `<PstCd>${escText(a.postCode)}</PstCd>`;
    if (a.townName) x += `<TwnNm>${escText(a.townName)}</TwnNm>`;
    x += c.country ? `<Ctry>${c.country}</Ctry></PstlAdr>\n` : '</PstlAdr>\n';
  } else x += addressXml(c, `${i}  `);
  if (c.organisationId !== undefined) x += orgIdXml(c.organisationId, undefined, `${i}  `);
  x += `${i}</Cdtr>\n`;
  const acct = c.account;
  if (acct?.iban && !acct.currency) return `${x}${i}<CdtrAcct><Id><IBAN>${acct.iban}</IBAN></Id></CdtrAcct>\n`;
  return x + accountXml('CdtrAcct', acct, i);
}

export function writePain001(doc: DocumentPlan, sink: ChunkSink): void {
  const t = versionTags(doc.painVersion);
  const out = new ChunkWriter(sink);
  const groups = groupsOf(doc);
  let count = 0;
  let sum = 0n;
  let exp = 0;
  for (const g of groups) {
    const s = g;
    if (s.exp > exp) {
      sum *= 10n ** BigInt(s.exp - exp);
      exp = s.exp;
    }
    sum += s.sum * 10n ** BigInt(exp - s.exp);
    count += g.count;
  }
  out.write(documentHead(doc, count, formatMinor(sum, exp)));
  for (const g of groups) {
    out.write(pmtInfHeader(doc, g, t));
    const plan = g.plan;
    const txs = plan.payment.transactions;
    const typeCode = plan.type?.code;
    const n = g.indices ? g.indices.length : txs.length;
    for (let k = 0; k < n; k++) {
      const j = g.indices ? (g.indices[k] as number) : k;
      const tx = txs[j] as Transaction;
      out.write(transactionXml(tx, amountText(tx, plan, j), typeCode, t));
    }
    out.write(PMTINF_END);
  }
  out.write(DOCUMENT_END);
  out.end();
}

/** The whole file as one string: fine for the sizes an HTTP response carries. */
export function pain001ToString(doc: DocumentPlan): string {
  const chunks: string[] = [];
  writePain001(doc, (c) => chunks.push(c));
  return chunks.join('');
}
