import {
  type DeliveredFile,
  deliveredFileFromPain001,
  demoCamt053,
  demoPain002,
} from '../../domain/demo-bank/index.ts';
import type { BankFile, BankFileKind, Booking, EbicsBankState } from './state.ts';

/**
 * What the simulated bank writes for a subscriber after an upload: the demo bank's answers (same
 * booking rules, `REJECT:<code>` included), a pain.002 at once and the customer acknowledgement
 * (HAC) of the order; the accepted transactions are booked (`state.bookings`) and come in the next
 * camt.053 the subscriber downloads (statementsDue), as a bank's statement covers what it booked
 * since the last one rather than one statement per file (docs/adr/0074).
 */
export function filesForUpload(
  state: EbicsBankState,
  upload: { partnerId: string; userId: string; orderId: string; fileName: string | null; content: string },
  at: string,
): { delivered: DeliveredFile | null; files: BankFile[] } {
  const delivered = deliveredFileFromPain001(upload.content);
  const hac = bankFile(
    upload,
    'hac',
    `${upload.orderId}-${++state.sequence}`,
    hacDocument(upload, delivered !== null, at),
    at,
  );
  if (!delivered) return { delivered, files: [hac] };
  state.bookings ??= [];
  state.bookings.push({ partnerId: upload.partnerId, userId: upload.userId, orderId: upload.orderId, delivered, at });
  return {
    delivered,
    files: [
      bankFile(
        upload,
        'status',
        `${upload.orderId}-${++state.sequence}`,
        demoPain002(delivered, `STS-${upload.orderId}`, at),
        at,
      ),
      hac,
    ],
  };
}

/** Entries of one statement at most; more bookings of an account come in further statements. */
const MAX_ENTRIES_PER_STATEMENT = 1000;

/**
 * The camt.053 statements of a subscriber's bookings not yet reported, written when it asks for its
 * statements: one per account, currency and execution date (at most MAX_ENTRIES_PER_STATEMENT files
 * each), booking every accepted transaction as the demo bank's statement does. The bookings are
 * taken: the statements are files like any other, offered until a receipt confirms them.
 */
export function statementsDue(
  state: EbicsBankState,
  subscriber: { partnerId: string; userId: string },
  at: string,
): BankFile[] {
  const mine = (b: Booking) => b.partnerId === subscriber.partnerId && b.userId === subscriber.userId;
  const due = (state.bookings ?? []).filter(mine);
  if (due.length === 0) return [];
  state.bookings = (state.bookings ?? []).filter((b) => !mine(b));
  const groups = new Map<string, Booking[]>();
  for (const b of due) {
    const currency = b.delivered.payments[0]?.transactions[0]?.currency ?? 'EUR';
    const key = `${b.delivered.debtorIban}/${currency}/${b.delivered.executionDate}`;
    const group = groups.get(key) ?? [];
    group.push(b);
    groups.set(key, group);
  }
  const files: BankFile[] = [];
  for (const group of groups.values()) {
    for (let i = 0; i < group.length; i += MAX_ENTRIES_PER_STATEMENT) {
      const part = group.slice(i, i + MAX_ENTRIES_PER_STATEMENT);
      const sequence = ++state.sequence;
      const id = `STM-${part[0]!.orderId}-${sequence}`;
      const xml = demoCamt053(
        part.map((b) => b.delivered),
        { messageId: id, statementId: id, sequence },
        at,
      );
      files.push(bankFile(subscriber, 'statement', `${part[0]!.orderId}-${sequence}`, xml, at));
    }
  }
  return files;
}

function bankFile(
  owner: { partnerId: string; userId: string },
  kind: BankFileKind,
  suffix: string,
  content: string,
  at: string,
): BankFile {
  return {
    id: `${kind.toUpperCase()}-${suffix}`,
    partnerId: owner.partnerId,
    userId: owner.userId,
    kind,
    content,
    createdAt: at,
    deliveredAt: null,
    downloads: 0,
  };
}

/**
 * The customer acknowledgement (HAC): the bank's protocol of the order as a pain.002.001.03 whose
 * original message is "EBICS" and whose reason codes are EBICS action codes (DS01 signature verified,
 * TS01 transfer succeeded, or TD01 no data). Not a payment status report: the channel journals it as
 * evidence of the upload.
 */
function hacDocument(upload: { orderId: string; fileName: string | null }, accepted: boolean, at: string): string {
  const code = accepted ? 'TS01' : 'TD01';
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03"><CstmrPmtStsRpt>' +
    `<GrpHdr><MsgId>HAC-${upload.orderId}</MsgId><CreDtTm>${at}</CreDtTm></GrpHdr>` +
    '<OrgnlGrpInfAndSts><OrgnlMsgId>EBICS</OrgnlMsgId><OrgnlMsgNmId>pain.002.001.03</OrgnlMsgNmId></OrgnlGrpInfAndSts>' +
    `<OrgnlPmtInfAndSts><OrgnlPmtInfId>FILE_UPLOAD</OrgnlPmtInfId><StsRsnInf><Orgtr><Id><OrgId><Othr><Id>BTU</Id></Othr></OrgId></Id></Orgtr>` +
    `<Rsn><Prtry>DS01</Prtry></Rsn><AddtlInf>Order ${upload.orderId}${upload.fileName ? ` ${upload.fileName.slice(0, 80)}` : ''}</AddtlInf></StsRsnInf>` +
    `<StsRsnInf><Rsn><Prtry>${code}</Prtry></Rsn></StsRsnInf></OrgnlPmtInfAndSts></CstmrPmtStsRpt></Document>`
  );
}
