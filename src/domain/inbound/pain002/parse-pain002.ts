import { parseAmountText } from '../../money/decimal.ts';
import type {
  IntegrityWarning,
  NormalisedStatusReport,
  ParseErrorCode,
  PaymentGroupStatus,
  StatusReason,
  StatusTransaction,
} from '../types.ts';
import { at, attr, child, textAt, type XNode } from '../xml/node.ts';
import { streamXml } from '../xml/stream-xml.ts';
import { REASON_DESCRIPTIONS, STATUS_WORDS, statusClass } from './reason-codes.ts';

/**
 * pain.002 (.02, .03, .10 and later, SIX .ch.02) to the normalised status report. Status can sit at
 * group, payment-information and transaction level, all three are kept. In .02 transactions hang
 * directly under the message; in .03+ under OrgnlPmtInfAndSts.
 */
export type Pain002Parse =
  | { ok: true; report: NormalisedStatusReport; warnings: IntegrityWarning[] }
  | { ok: false; code: ParseErrorCode; message: string };

const MESSAGES = new Set(['CstmrPmtStsRpt', 'CstmrPmtStsRptV03', 'PmtStsRpt']);

function reasons(holder: XNode | undefined): StatusReason[] {
  if (!holder) return [];
  const out: StatusReason[] = [];
  for (const r of holder.children) {
    if (r.name !== 'StsRsnInf') continue;
    const rsn = child(r, 'Rsn');
    const code = textAt(rsn, 'Cd') ?? (rsn && rsn.children.length === 0 ? rsn.text.trim() || null : null);
    const proprietary = textAt(rsn, 'Prtry');
    const additionalInfo = r.children
      .filter((x) => x.name === 'AddtlInf')
      .map((x) => x.text.trim())
      .filter((x) => x !== '');
    out.push({ code, proprietary, description: code ? (REASON_DESCRIPTIONS[code] ?? null) : null, additionalInfo });
  }
  return out;
}

function word(code: string | null): string | null {
  return code ? (STATUS_WORDS[code] ?? code.toLowerCase()) : null;
}

function count(text: string | null): number | null {
  return text && /^\d{1,15}$/.test(text) ? Number(text) : null;
}

function transaction(tx: XNode): StatusTransaction {
  const ref = child(tx, 'OrgnlTxRef');
  const amt = at(ref, 'Amt', 'InstdAmt') ?? at(ref, 'Amt', 'EqvtAmt', 'Amt') ?? child(ref, 'IntrBkSttlmAmt');
  const currency = attr(amt, 'Ccy');
  const parsed = amt ? parseAmountText(amt.text.trim(), currency) : undefined;
  const code = textAt(tx, 'TxSts');
  return {
    endToEndId: textAt(tx, 'OrgnlEndToEndId'),
    instructionId: textAt(tx, 'OrgnlInstrId'),
    transactionId: textAt(tx, 'OrgnlTxId') ?? textAt(tx, 'OrgnlUETR'),
    originalAmount: parsed ? parsed.text : null,
    currency,
    status: word(code),
    statusCode: code,
    reasons: reasons(tx),
    bankRef: textAt(tx, 'AcctSvcrRef') ?? textAt(tx, 'ClrSysRef') ?? textAt(tx, 'StsId'),
  };
}

/** The message element of `xml` as a node (the only part of a status report kept), or the parse's error. */
function readMessage(xml: string, maxDepth: number): XNode | Extract<Pain002Parse, { ok: false }> {
  let message: XNode | undefined;
  const error = streamXml(
    xml,
    {
      open: (name) => message === undefined && MESSAGES.has(name),
      captured: (tree, root) => {
        message ??= tree.toXNode(root);
      },
      close: () => {},
    },
    maxDepth,
  );
  if (error)
    return {
      ok: false,
      code: 'unparseable_file',
      message: `XML is not well-formed at offset ${error.offset}: ${error.message}`,
    };
  if (!message) return { ok: false, code: 'unparseable_file', message: 'no CstmrPmtStsRpt element' };
  return message;
}

function txNodes(holder: XNode | undefined): XNode[] {
  return holder ? holder.children.filter((c) => c.name === 'TxInfAndSts') : [];
}

export function parsePain002(xml: string, sourceFormat: string, namespaced: boolean, maxDepth: number): Pain002Parse {
  const message = readMessage(xml, maxDepth);
  if ('ok' in message) return message;
  const grp = child(message, 'OrgnlGrpInfAndSts');
  const originalMessageId = textAt(grp, 'OrgnlMsgId');
  // EBICS reuses pain.002 for its customer protocol (HAC): order types and EBICS codes, no payments.
  if (originalMessageId === 'EBICS' || textAt(grp, 'OrgnlMsgNmId') === 'EBICS') {
    return {
      ok: false,
      code: 'unrecognised_format',
      message: 'EBICS customer protocol (HAC) in pain.002 form, not a payment status report',
    };
  }
  const pmtNodes = message.children.filter((c) => c.name === 'OrgnlPmtInfAndSts');
  const looseTx = txNodes(message);
  const groupCode = textAt(grp, 'GrpSts');
  const hasStatus = groupCode !== null || pmtNodes.length > 0 || looseTx.length > 0;
  if (!namespaced && !hasStatus) {
    return {
      ok: false,
      code: 'unrecognised_format',
      message: 'pain.002 without a namespace and without any status: not accepted as a status report',
    };
  }
  const paymentGroups = groupsOf(pmtNodes, looseTx);
  const warnings: IntegrityWarning[] = [];
  if (!namespaced)
    warnings.push({ code: 'no_namespace', message: 'no ISO 20022 namespace; read as pain.002 by its message element' });
  const ctrl = textAt(grp, 'OrgnlCtrlSum');
  const report: NormalisedStatusReport = {
    messageId: textAt(message, 'GrpHdr', 'MsgId'),
    createdAt: textAt(message, 'GrpHdr', 'CreDtTm'),
    originalMessageId,
    originalMessageType: textAt(grp, 'OrgnlMsgNmId'),
    sourceFormat,
    groupStatus: word(groupCode),
    groupStatusCode: groupCode,
    groupReasons: reasons(grp),
    originalTxCount: count(textAt(grp, 'OrgnlNbOfTxs')),
    originalControlSum: ctrl ? (parseAmountText(ctrl, null)?.text ?? ctrl) : null,
    paymentGroups,
    ...byStatusClass(paymentGroups, groupCode),
  };
  return { ok: true, report, warnings };
}

/** The payment groups (OrgnlPmtInfAndSts), and the transactions written directly under the message (.02) as one more. */
function groupsOf(pmtNodes: XNode[], looseTx: XNode[]): PaymentGroupStatus[] {
  const paymentGroups: PaymentGroupStatus[] = pmtNodes.map((p) => {
    const code = textAt(p, 'PmtInfSts');
    return {
      paymentInfoId: textAt(p, 'OrgnlPmtInfId'),
      status: word(code),
      statusCode: code,
      originalTxCount: count(textAt(p, 'OrgnlNbOfTxs')),
      reasons: reasons(p),
      transactions: txNodes(p).map(transaction),
    };
  });
  if (looseTx.length > 0) {
    paymentGroups.push({
      paymentInfoId: null,
      status: null,
      statusCode: null,
      originalTxCount: null,
      reasons: [],
      transactions: looseTx.map(transaction),
    });
  }
  return paymentGroups;
}

/** The transactions by the class of their effective status. */
function byStatusClass(
  paymentGroups: PaymentGroupStatus[],
  groupCode: string | null,
): Pick<NormalisedStatusReport, 'rejectedTransactions' | 'acceptedTransactions' | 'pendingTransactions'> {
  const rejectedTransactions: StatusTransaction[] = [];
  const acceptedTransactions: StatusTransaction[] = [];
  const pendingTransactions: StatusTransaction[] = [];
  for (const g of paymentGroups) {
    for (const t of g.transactions) {
      // A transaction without its own status inherits its payment group's, then the group header's.
      const effective = t.statusCode ?? g.statusCode ?? groupCode;
      const cls = statusClass(effective);
      (cls === 'rejected'
        ? rejectedTransactions
        : cls === 'accepted'
          ? acceptedTransactions
          : pendingTransactions
      ).push(t);
    }
  }
  return { rejectedTransactions, acceptedTransactions, pendingTransactions };
}
