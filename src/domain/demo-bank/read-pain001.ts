import { list, obj, parseXml, text, type XmlObject } from '../fi-ws/xml.ts';
import type { DeliveredFile } from './types.ts';

/**
 * What a bank reads of a pain.001 it received (.03 or .09): the bank simulators answer uploaded files
 * from the XML itself, as a real bank would, where the demo bank reads the journaled canonical payment.
 * Null when the file is not a readable pain.001.
 */
export function deliveredFileFromPain001(xml: string): DeliveredFile | null {
  const root = obj(parseXml(xml)?.['Document']);
  const initiation = obj(root['CstmrCdtTrfInitn']);
  const messageId = text(obj(initiation['GrpHdr'])['MsgId']);
  const painVersion = /urn:iso:std:iso:20022:tech:xsd:(pain\.001\.001\.\d\d)/.exec(xml)?.[1];
  if (!messageId || !painVersion) return null;
  const blocks = list(initiation['PmtInf']).map(obj);
  const first = blocks[0] ?? {};
  return {
    messageId,
    painVersion,
    debtorIban: iban(first['DbtrAcct']),
    debtorName: text(obj(first['Dbtr'])['Nm']) ?? '',
    executionDate: executionDate(first['ReqdExctnDt']),
    payments: blocks.map((p, i) => ({
      paymentInfoId: text(p['PmtInfId']) ?? `PMT-${i + 1}`,
      transactions: list(p['CdtTrfTxInf'])
        .map(obj)
        .map((tx) => {
          const ids = obj(tx['PmtId']);
          const amount = obj(obj(tx['Amt'])['InstdAmt']);
          const remittance = list(obj(tx['RmtInf'])['Ustrd']).map(text).filter(Boolean);
          return {
            endToEndId: text(ids['EndToEndId']) ?? 'NOTPROVIDED',
            instructionId: text(ids['InstrId']),
            amount: text(amount) ?? '0',
            currency: typeof amount['@Ccy'] === 'string' ? amount['@Ccy'] : '',
            creditorName: text(obj(tx['Cdtr'])['Nm']) ?? '',
            creditorIban: iban(tx['CdtrAcct']) || null,
            remittance: remittance.length > 0 ? remittance.join(' ') : null,
          };
        }),
    })),
  };
}

function iban(account: unknown): string {
  return (text(obj(obj(account as XmlObject)['Id'])['IBAN']) ?? '').replace(/\s+/g, '').toUpperCase();
}

/** `.03` carries the date as text, `.09` inside `<Dt>` (or a date-time in `<DtTm>`). */
function executionDate(value: unknown): string {
  const direct = text(value);
  if (direct) return direct.slice(0, 10);
  const o = obj(value);
  return (text(o['Dt']) ?? text(o['DtTm']) ?? '').slice(0, 10);
}
