/** A camt.053 with chosen booked entries, for the unmatched-entry tests (docs/adr/0047). */
export type Entry = {
  amount: string;
  direction: 'DBIT' | 'CRDT';
  ref?: string;
  e2e?: string;
  name?: string;
  iban?: string;
  text?: string;
  day?: string;
  reversal?: boolean;
  returnReason?: string;
  /** A structured creditor reference (RmtInf/Strd/CdtrRefInf/Ref, SCOR). */
  scor?: string;
};

/** A camt.053 (or an intraday camt.052) of one account (FI2112345600000785, EUR) with these booked entries. */
export function statementWith(id: string, sequence: number, entries: Entry[], kind: '053' | '052' = '053'): string {
  const rows = entries.map((e) => {
    const day = e.day ?? '2026-11-20';
    const party = e.direction === 'DBIT' ? 'Cdtr' : 'Dbtr';
    const account = e.direction === 'DBIT' ? 'CdtrAcct' : 'DbtrAcct';
    return `<Ntry><Amt Ccy="EUR">${e.amount}</Amt><CdtDbtInd>${e.direction}</CdtDbtInd>${e.reversal ? '<RvslInd>true</RvslInd>' : ''}<Sts>BOOK</Sts>
<BookgDt><Dt>${day}</Dt></BookgDt><ValDt><Dt>${day}</Dt></ValDt>${e.ref ? `<AcctSvcrRef>${e.ref}</AcctSvcrRef>` : ''}
<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
<NtryDtls><TxDtls><Refs>${e.e2e ? `<EndToEndId>${e.e2e}</EndToEndId>` : ''}</Refs>
<RltdPties>${e.name ? `<${party}><Nm>${e.name}</Nm></${party}>` : ''}${e.iban ? `<${account}><Id><IBAN>${e.iban}</IBAN></Id></${account}>` : ''}</RltdPties>
${e.returnReason ? `<RtrInf><Rsn><Cd>${e.returnReason}</Cd></Rsn></RtrInf>` : ''}${e.text || e.scor ? `<RmtInf>${e.text ? `<Ustrd>${e.text}</Ustrd>` : ''}${e.scor ? `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${e.scor}</Ref></CdtrRefInf></Strd>` : ''}</RmtInf>` : ''}</TxDtls></NtryDtls></Ntry>`;
  });
  const [root, stmt] = kind === '053' ? ['BkToCstmrStmt', 'Stmt'] : ['BkToCstmrAcctRpt', 'Rpt'];
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.${kind}.001.02"><${root}>
<GrpHdr><MsgId>${id}-MSG</MsgId><CreDtTm>2026-11-21T06:00:00Z</CreDtTm></GrpHdr>
<${stmt}><Id>${id}</Id><ElctrncSeqNb>${sequence}</ElctrncSeqNb><CreDtTm>2026-11-21T06:00:00Z</CreDtTm>
<Acct><Id><IBAN>FI2112345600000785</IBAN></Id><Ccy>EUR</Ccy></Acct>
${rows.join('\n')}
</${stmt}></${root}></Document>`;
}
