/**
 * What the screenshots' Receivables and Exceptions pages show (scripts/screenshots.ts): expected
 * payments (one with a generated RF reference, one by account, one partly paid, one overdue) and a
 * camt.053 of the customers' credits, one of which no rule can match.
 */
type Api = <T>(method: string, url: string, headers: Record<string, string>, body?: unknown) => Promise<T>;

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

function credit(amount: string, ref: string, booked: string, party: string, iban: string | null, rmt: string): string {
  const account = iban ? `<DbtrAcct><Id><IBAN>${iban}</IBAN></Id></DbtrAcct>` : '';
  return `<Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${booked}</Dt></BookgDt><ValDt><Dt>${booked}</Dt></ValDt>
<AcctSvcrRef>${ref}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>${party}</Nm></Dbtr>${account}</RltdPties>${rmt}</TxDtls></NtryDtls></Ntry>`;
}

export async function seedReceivables(api: Api, key: Record<string, string>, companyId: string): Promise<void> {
  const expect = (body: Record<string, unknown>) =>
    api<{ reference: { value: string } | null }>('POST', '/expected-payments', key, {
      companyId,
      currency: 'EUR',
      dateFrom: day(-12),
      dateTo: day(6),
      ...body,
    });
  const invoice = await expect({ amount: '4200.00', reference: { type: 'SCOR', generate: true } });
  await expect({ amount: '1290.50', counterparty: { name: 'Stockmann Oyj', iban: 'FI4950009420028730' } });
  const partial = await expect({ amount: '980.00', reference: { type: 'SCOR', generate: true } });
  await expect({ amount: '615.00', remittanceContains: 'INV-8812', dateFrom: day(-20), dateTo: day(-3) });
  await expect({ amount: '2350.00', remittanceContains: 'INV-9034', dateFrom: day(2), dateTo: day(12) });
  const scor = (value: string) =>
    `<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${value}</Ref></CdtrRefInf></Strd></RmtInf>`;
  const entries = [
    credit('4200.00', 'SHOT-CR-1', day(-4), 'Wärtsilä Finland Oy', null, scor(invoice.reference!.value)),
    credit('1290.50', 'SHOT-CR-2', day(-2), 'Stockmann Oyj', 'FI4950009420028730', ''),
    credit('490.00', 'SHOT-CR-3', day(-1), 'Marimekko Oyj', null, scor(partial.reference!.value)),
    credit('610.00', 'SHOT-CR-4', day(-1), 'Iittala Ab', null, '<RmtInf><Ustrd>payment order 8812</Ustrd></RmtInf>'),
  ];
  await api('POST', '/journal/ingest', key, {
    companyId,
    environment: 'test',
    content: `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>
<GrpHdr><MsgId>SHOT-CREDITS-1</MsgId><CreDtTm>${day(0)}T06:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>SHOT-CREDITS-STMT-1</Id><ElctrncSeqNb>91</ElctrncSeqNb><CreDtTm>${day(0)}T06:00:00Z</CreDtTm>
<Acct><Id><IBAN>FI2112345600000785</IBAN></Id><Ccy>EUR</Ccy></Acct>
${entries.join('\n')}
</Stmt></BkToCstmrStmt></Document>`,
  });
}
