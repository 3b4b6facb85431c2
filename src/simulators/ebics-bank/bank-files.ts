import {
  type DeliveredFile,
  deliveredFileFromPain001,
  demoCamt053,
  demoPain002,
} from '../../domain/demo-bank/index.ts';
import type { BankFile, BankFileKind, EbicsBankState } from './state.ts';

/**
 * What the simulated bank writes for a subscriber after an upload: the demo bank's answers (same
 * booking rules, `REJECT:<code>` included), a pain.002 and a booked camt.053, and the customer
 * acknowledgement (HAC) of the order.
 */
export function filesForUpload(
  state: EbicsBankState,
  upload: { partnerId: string; userId: string; orderId: string; fileName: string | null; content: string },
  at: string,
): { delivered: DeliveredFile | null; files: BankFile[] } {
  const delivered = deliveredFileFromPain001(upload.content);
  const file = (kind: BankFileKind, content: string): BankFile => ({
    id: `${kind.toUpperCase()}-${upload.orderId}-${++state.sequence}`,
    partnerId: upload.partnerId,
    userId: upload.userId,
    kind,
    content,
    createdAt: at,
    deliveredAt: null,
    downloads: 0,
  });
  const hac = file('hac', hacDocument(upload, delivered !== null, at));
  if (!delivered) return { delivered, files: [hac] };
  return {
    delivered,
    files: [
      file('status', demoPain002(delivered, `STS-${upload.orderId}`, at)),
      file(
        'statement',
        demoCamt053(
          delivered,
          { messageId: `STM-${upload.orderId}`, statementId: `STM-${upload.orderId}`, sequence: state.sequence },
          at,
        ),
      ),
      hac,
    ],
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
