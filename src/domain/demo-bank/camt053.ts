import { formatMinor, parseAmount } from '../money/money.ts';
import type { DeliveredFile } from './types.ts';
import { verdictFor } from './verdict.ts';
import { esc } from './xml.ts';

/** The demo account's balance before a statement: a fixed, generous figure (the sandbox has no funds). */
const OPENING_MINOR = 100_000_000n;

/**
 * A camt.053.001.08 statement of the debtor account booking every accepted transaction of the
 * delivered files (one, or several of the same account, currency and execution date: the demo
 * bank's statement for a batch) as its own debit entry with full references (rejected ones are
 * absent), with opening and closing booked balances and a transaction summary that add up.
 */
export function demoCamt053(
  delivered: DeliveredFile | DeliveredFile[],
  ids: { messageId: string; statementId: string; sequence: number },
  createdAt: string,
): string {
  const files = Array.isArray(delivered) ? delivered : [delivered];
  const file = files[0]!;
  const entries: string[] = [];
  const currency = file.payments[0]?.transactions[0]?.currency ?? 'EUR';
  let exponent = 2;
  let total = 0n;
  let n = 0;
  for (const { payment, messageId } of files.flatMap((f) =>
    f.payments.map((p) => ({ payment: p, messageId: f.messageId })),
  )) {
    for (const tx of payment.transactions) {
      if (!verdictFor(tx).accepted || tx.currency !== currency) continue;
      const parsed = parseAmount(tx.amount, tx.currency);
      if (!parsed.ok) continue;
      exponent = parsed.exponent;
      total += parsed.minor;
      n++;
      const ref = `${ids.statementId}-${n}`;
      const amount = formatMinor(parsed.minor, exponent);
      entries.push(
        `<Ntry><NtryRef>${n}</NtryRef><Amt Ccy="${esc(currency)}">${amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
          `<BookgDt><Dt>${file.executionDate}</Dt></BookgDt><ValDt><Dt>${file.executionDate}</Dt></ValDt><AcctSvcrRef>${esc(ref)}</AcctSvcrRef>` +
          '<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>' +
          `<NtryDtls><TxDtls><Refs><MsgId>${esc(messageId)}</MsgId><AcctSvcrRef>${esc(ref)}</AcctSvcrRef><PmtInfId>${esc(payment.paymentInfoId)}</PmtInfId>` +
          `${tx.instructionId ? `<InstrId>${esc(tx.instructionId)}</InstrId>` : ''}<EndToEndId>${esc(tx.endToEndId)}</EndToEndId></Refs>` +
          `<Amt Ccy="${esc(currency)}">${amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd>` +
          `<RltdPties><Cdtr><Pty><Nm>${esc(tx.creditorName)}</Nm></Pty></Cdtr>${tx.creditorIban ? `<CdtrAcct><Id><IBAN>${esc(tx.creditorIban)}</IBAN></Id></CdtrAcct>` : ''}</RltdPties>` +
          `${tx.remittance ? `<RmtInf><Ustrd>${esc(tx.remittance)}</Ustrd></RmtInf>` : ''}</TxDtls></NtryDtls></Ntry>`,
      );
    }
  }
  const balance = (code: string, minor: bigint) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="${esc(currency)}">${formatMinor(minor < 0n ? -minor : minor, exponent)}</Amt>` +
    `<CdtDbtInd>${minor < 0n ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${file.executionDate}</Dt></Dt></Bal>`;
  const summary =
    n === 0
      ? ''
      : `<TxsSummry><TtlNtries><NbOfNtries>${n}</NbOfNtries><Sum>${formatMinor(total, exponent)}</Sum><TtlNetNtry><Amt>${formatMinor(total, exponent)}</Amt><CdtDbtInd>DBIT</CdtDbtInd></TtlNetNtry></TtlNtries>` +
        `<TtlDbtNtries><NbOfNtries>${n}</NbOfNtries><Sum>${formatMinor(total, exponent)}</Sum></TtlDbtNtries></TxsSummry>`;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>' +
    `<GrpHdr><MsgId>${esc(ids.messageId)}</MsgId><CreDtTm>${esc(createdAt)}</CreDtTm></GrpHdr>` +
    `<Stmt><Id>${esc(ids.statementId)}</Id><ElctrncSeqNb>${ids.sequence}</ElctrncSeqNb><CreDtTm>${esc(createdAt)}</CreDtTm>` +
    `<FrToDt><FrDtTm>${file.executionDate}T00:00:00Z</FrDtTm><ToDtTm>${file.executionDate}T23:59:59Z</ToDtTm></FrToDt>` +
    `<Acct><Id><IBAN>${esc(file.debtorIban)}</IBAN></Id><Ccy>${esc(currency)}</Ccy><Ownr><Nm>${esc(file.debtorName)}</Nm></Ownr>` +
    '<Svcr><FinInstnId><BICFI>DEMOFIHH</BICFI></FinInstnId></Svcr></Acct>' +
    balance('OPBD', OPENING_MINOR) +
    balance('CLBD', OPENING_MINOR - total) +
    summary +
    entries.join('') +
    '</Stmt></BkToCstmrStmt></Document>\n'
  );
}
