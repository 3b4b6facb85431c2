import type { TxFields } from '../validation/fast-transaction.ts';
import {
  AMP_BUILDING,
  AMP_NAME,
  AMP_POST_CODE,
  AMP_STREET,
  AMP_TOWN,
  AMP_UNSTRUCTURED,
} from '../validation/fast-transaction.ts';
import type { VersionTags } from './parts.ts';
import { remittanceXml } from './parts.ts';

/**
 * One CdtTrfTxInf from the fields the fused reader produced: the same text transactionXml writes for
 * that shape (write-pain001.ts), as one template. The reader already knows which fields hold `&`, so
 * nothing is searched again; everything else it let through needs no escaping (SEPA-set ids, codes,
 * IBAN, BIC, amounts).
 */

function amp(s: string): string {
  return s.replace(/&/g, '&amp;');
}

function field(v: string | undefined, bit: number, f: TxFields, open: string, close: string): string {
  return v ? `${open}${f.amp & bit ? amp(v) : v}${close}` : '';
}

function address(f: TxFields): string {
  if (!f.address) return f.country ? `        <PstlAdr><Ctry>${f.country}</Ctry></PstlAdr>\n` : '';
  return (
    '        <PstlAdr>' +
    field(f.streetName, AMP_STREET, f, '<StrtNm>', '</StrtNm>') +
    field(f.buildingNumber, AMP_BUILDING, f, '<BldgNb>', '</BldgNb>') +
    field(f.postCode, AMP_POST_CODE, f, '<PstCd>', '</PstCd>') +
    field(f.townName, AMP_TOWN, f, '<TwnNm>', '</TwnNm>') +
    (f.country ? `<Ctry>${f.country}</Ctry></PstlAdr>\n` : '</PstlAdr>\n')
  );
}

function remittance(f: TxFields, typeCode: string | undefined): string {
  const u = f.unstructured;
  if (f.creditorReference === undefined) {
    return u ? `      <RmtInf><Ustrd>${f.amp & AMP_UNSTRUCTURED ? amp(u) : u}</Ustrd></RmtInf>\n` : '';
  }
  // Structured references (and the Danish card prefix) through the general builder: same text by construction.
  const r: { unstructured?: string; creditorReference: string } = { creditorReference: f.creditorReference };
  if (u !== undefined) r.unstructured = u;
  return remittanceXml({ currency: f.currency, remittance: r }, typeCode, '      ');
}

export function fastTransactionXml(f: TxFields, t: VersionTags, typeCode: string | undefined): string {
  const instr = f.instructionId ? `<InstrId>${f.instructionId}</InstrId>` : '';
  const agent =
    f.bic === undefined ? '' : `      <CdtrAgt><FinInstnId><${t.bic}>${f.bic}</${t.bic}></FinInstnId></CdtrAgt>\n`;
  const name = f.amp & AMP_NAME ? amp(f.name) : f.name;
  const purpose = f.purposeCode === undefined ? '' : `      <Purp><Cd>${f.purposeCode}</Cd></Purp>\n`;
  return (
    `    <CdtTrfTxInf>\n      <PmtId>${instr}<EndToEndId>${f.endToEndId}</EndToEndId></PmtId>\n` +
    `      <Amt><InstdAmt Ccy="${f.currency}">${f.amount}</InstdAmt></Amt>\n${agent}      <Cdtr>\n        <Nm>${name}</Nm>\n` +
    `${address(f)}      </Cdtr>\n      <CdtrAcct><Id><IBAN>${f.iban}</IBAN></Id></CdtrAcct>\n` +
    `${purpose}${remittance(f, typeCode)}    </CdtTrfTxInf>\n`
  );
}
