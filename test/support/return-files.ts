/**
 * Bank files that return outbound payments (docs/adr/0070): a camt.054 debit/credit notification whose
 * entries carry return information, and an MT940 with storno lines, for account FI2112345600000785.
 */
export type ReturnEntry = {
  amount: string;
  /** Booking and value date, YYYY-MM-DD. */
  day: string;
  ref?: string;
  e2e?: string;
  instructionId?: string;
  /** The counterparty's (the payee's) account. */
  iban?: string;
  name?: string;
  reason?: string;
  /** The instructed amount when the return is booked net of charges. */
  originalAmount?: string;
  /** RvslInd true (default); false leaves only the return information as the mark. */
  reversalIndicator?: boolean;
  /** CRDT (default: a return credits the account) or DBIT. */
  direction?: 'CRDT' | 'DBIT';
};

/** A camt.054.001.02 notification with these booked return entries. */
export function camt054Returns(id: string, entries: ReturnEntry[]): string {
  const rows = entries.map((e) => {
    const direction = e.direction ?? 'CRDT';
    const party = direction === 'CRDT' ? 'Dbtr' : 'Cdtr';
    const account = direction === 'CRDT' ? 'DbtrAcct' : 'CdtrAcct';
    const refs = `${e.instructionId ? `<InstrId>${e.instructionId}</InstrId>` : ''}${e.e2e ? `<EndToEndId>${e.e2e}</EndToEndId>` : ''}`;
    return `<Ntry><Amt Ccy="EUR">${e.amount}</Amt><CdtDbtInd>${direction}</CdtDbtInd>${e.reversalIndicator === false ? '' : '<RvslInd>true</RvslInd>'}<Sts>BOOK</Sts>
<BookgDt><Dt>${e.day}</Dt></BookgDt><ValDt><Dt>${e.day}</Dt></ValDt>${e.ref ? `<AcctSvcrRef>${e.ref}</AcctSvcrRef>` : ''}
<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>RRTN</SubFmlyCd></Fmly></Domn></BkTxCd>
<NtryDtls><TxDtls>${refs ? `<Refs>${refs}</Refs>` : ''}
${e.originalAmount ? `<AmtDtls><InstdAmt><Amt Ccy="EUR">${e.originalAmount}</Amt></InstdAmt></AmtDtls>` : ''}
<RltdPties>${e.name ? `<${party}><Nm>${e.name}</Nm></${party}>` : ''}${e.iban ? `<${account}><Id><IBAN>${e.iban}</IBAN></Id></${account}>` : ''}</RltdPties>
${e.reason ? `<RtrInf><Rsn><Cd>${e.reason}</Cd></Rsn></RtrInf>` : ''}</TxDtls></NtryDtls></Ntry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02"><BkToCstmrDbtCdtNtfctn>
<GrpHdr><MsgId>${id}-MSG</MsgId><CreDtTm>2026-11-21T06:00:00Z</CreDtTm></GrpHdr>
<Ntfctn><Id>${id}</Id><CreDtTm>2026-11-21T06:00:00Z</CreDtTm>
<Acct><Id><IBAN>FI2112345600000785</IBAN></Id><Ccy>EUR</Ccy></Acct>
${rows.join('\n')}
</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`;
}

const yymmdd = (day: string) => day.slice(2).replaceAll('-', '');

/**
 * An MT940 with one storno line: `:61:` mark RD (a reversed debit: the money comes back), German
 * :86: with the return GVC 159, the end-to-end id (EREF+) when given, and the payee's IBAN.
 */
export function mt940Storno(
  ref: string,
  e: { amount: string; day: string; e2e?: string; iban: string; bankRef: string },
) {
  const amount = e.amount.replace('.', ',');
  const purpose = e.e2e ? `?20EREF+${e.e2e}?21SVWZ+RUECKUEBERWEISUNG` : '?20SVWZ+RUECKUEBERWEISUNG';
  return [
    `:20:${ref}`,
    ':25:FI2112345600000785',
    ':28C:00001/001',
    `:60F:C${yymmdd(e.day)}EUR1000,00`,
    `:61:${yymmdd(e.day)}${yymmdd(e.day).slice(2)}RD${amount}NRTINONREF//${e.bankRef}`,
    `:86:159?00SEPA-UEBERWEISUNG RETOURE${purpose}?30OKOYFIHH?31${e.iban}?32Example Supplier Oy`,
    `:62F:C${yymmdd(e.day)}EUR${(1000 + Number(e.amount)).toFixed(2).replace('.', ',')}`,
    '-',
  ].join('\r\n');
}
