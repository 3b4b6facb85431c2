/**
 * A camt.053.001.02 statement of about `targetBytes`, generated (never committed): one account, booked
 * entries with references, counterparties and remittance text, and balances that add up, so the file
 * is a valid, ingestible statement whatever its size.
 */
export function largeCamt053(targetBytes: number, seed = 'LARGE'): { xml: string; entries: number } {
  const head = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
<BkToCstmrStmt>
<GrpHdr><MsgId>${seed}-MSG</MsgId><CreDtTm>2026-11-02T06:00:00</CreDtTm></GrpHdr>
<Stmt>
<Id>${seed}-STMT</Id><ElctrncSeqNb>1</ElctrncSeqNb><CreDtTm>2026-11-02T06:00:00</CreDtTm>
<FrToDt><FrDtTm>2026-11-01T00:00:00</FrDtTm><ToDtTm>2026-11-01T23:59:59</ToDtTm></FrToDt>
<Acct><Id><IBAN>FI2112345600000785</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">1000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-01</Dt></Dt></Bal>
`;
  const parts: string[] = [head];
  let size = head.length + 400;
  let cents = 100_000n;
  let entries = 0;
  let credits = 0n;
  let debits = 0n;
  let creditCount = 0;
  let debitCount = 0;
  while (size < targetBytes) {
    const credit = entries % 3 !== 0;
    const amount = BigInt(1000 + ((entries * 7919) % 900_000));
    if (credit) {
      cents += amount;
      credits += amount;
      creditCount++;
    } else {
      cents -= amount;
      debits += amount;
      debitCount++;
    }
    const text = (amount % 100n).toString().padStart(2, '0');
    const value = `${amount / 100n}.${text}`;
    const entry = `<Ntry><NtryRef>${entries + 1}</NtryRef><Amt Ccy="EUR">${value}</Amt><CdtDbtInd>${credit ? 'CRDT' : 'DBIT'}</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-01</Dt></BookgDt><ValDt><Dt>2026-11-01</Dt></ValDt><AcctSvcrRef>${seed}-REF-${entries}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>${credit ? 'RCDT' : 'ICDT'}</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>${seed}-E2E-${entries}</EndToEndId></Refs><AmtDtls><TxAmt><Amt Ccy="EUR">${value}</Amt></TxAmt></AmtDtls><RltdPties><${credit ? 'Dbtr' : 'Cdtr'}><Nm>Counterparty ${entries % 5000} Oy</Nm></${credit ? 'Dbtr' : 'Cdtr'}></RltdPties><RmtInf><Ustrd>Invoice ${seed}-${entries} payment for services rendered</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
`;
    parts.push(entry);
    size += entry.length;
    entries++;
  }
  const closing = `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
  const sum = (c: bigint) => `${c / 100n}.${(c % 100n).toString().padStart(2, '0')}`;
  parts.push(`<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-01</Dt></Dt></Bal>
<TxsSummry><TtlCdtNtries><NbOfNtries>${creditCount}</NbOfNtries><Sum>${sum(credits)}</Sum></TtlCdtNtries><TtlDbtNtries><NbOfNtries>${debitCount}</NbOfNtries><Sum>${sum(debits)}</Sum></TtlDbtNtries></TxsSummry>
</Stmt>
</BkToCstmrStmt>
</Document>
`);
  return { xml: parts.join(''), entries };
}
