import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseBankFile } from '../parse-bank-file.ts';
import type { NormalisedStatement, ParseBankFileResult, StatementBlock } from '../types.ts';

const NS = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.02';

const bal = (type: string, amount: string, cd = 'CRDT', date = '2025-03-14') =>
  `<Bal><Tp><CdOrPrtry><Cd>${type}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>${cd}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;

const ntry = (amount: string, cd: string, details = '', extra = '') =>
  `<Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>${cd}</CdtDbtInd>${extra}<Sts>BOOK</Sts><BookgDt><Dt>2025-03-14</Dt></BookgDt><ValDt><Dt>2025-03-14</Dt></ValDt><AcctSvcrRef>REF-${amount}</AcctSvcrRef>${details}</Ntry>`;

const stmt = (body: string, iban = 'DE89370400440532013000') =>
  `<Stmt><Id>S1</Id><ElctrncSeqNb>7</ElctrncSeqNb><CreDtTm>2025-03-14T22:00:00</CreDtTm><Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy></Acct>${body}</Stmt>`;

const doc = (stmts: string, ns = NS) =>
  `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="${ns}"><BkToCstmrStmt><GrpHdr><MsgId>M1</MsgId><CreDtTm>2025-03-14T22:00:00</CreDtTm></GrpHdr>${stmts}</BkToCstmrStmt></Document>`;

function statements(r: ParseBankFileResult): { statement: NormalisedStatement; warnings: { code: string }[] }[] {
  assert.equal(r.ok, true, r.ok ? '' : r.error.message);
  assert.ok(r.ok && r.kind === 'statement');
  return r.blocks.map((b: StatementBlock) => {
    assert.ok(b.ok, b.ok ? '' : b.message);
    return { statement: b.statement, warnings: b.warnings };
  });
}

function first(r: ParseBankFileResult): { statement: NormalisedStatement; warnings: { code: string }[] } {
  const x = statements(r)[0];
  assert.ok(x);
  return x;
}

const txDtls = (amount: string | null, e2e: string) =>
  `<TxDtls><Refs><EndToEndId>${e2e}</EndToEndId><InstrId>I-${e2e}</InstrId><TxId>T-${e2e}</TxId></Refs>${
    amount ? `<AmtDtls><TxAmt><Amt Ccy="EUR">${amount}</Amt></TxAmt></AmtDtls>` : ''
  }<RltdPties><Cdtr><Nm>Payee ${e2e}</Nm></Cdtr><CdtrAcct><Id><IBAN>NL91ABNA0417164300</IBAN></Id></CdtrAcct></RltdPties><RmtInf><Ustrd>Invoice ${e2e}</Ustrd></RmtInf></TxDtls>`;

describe('camt batch-booked entries', () => {
  test('one transaction per TxDtls, each with its own amount, never the entry total repeated', () => {
    const batch = `<NtryDtls><Btch><PmtInfId>PMT-1</PmtInfId><NbOfTxs>3</NbOfTxs><TtlAmt Ccy="EUR">35.75</TtlAmt></Btch>${txDtls('10.00', 'A')}${txDtls('20.50', 'B')}${txDtls('5.25', 'C')}</NtryDtls>`;
    const xml = doc(stmt(`${bal('OPBD', '100.00')}${bal('CLBD', '64.25')}${ntry('35.75', 'DBIT', batch)}`));
    const [{ statement, warnings }] = statements(parseBankFile(xml)) as [
      { statement: NormalisedStatement; warnings: { code: string }[] },
    ];
    assert.equal(statement.entryCount, 1);
    assert.deepEqual(
      statement.transactions.map((t) => [
        t.endToEndId,
        t.amount,
        t.entryAmount,
        t.paymentInfoId,
        t.counterpartyName,
        t.remittance,
      ]),
      [
        ['A', '10.00', '35.75', 'PMT-1', 'Payee A', 'Invoice A'],
        ['B', '20.50', '35.75', 'PMT-1', 'Payee B', 'Invoice B'],
        ['C', '5.25', '35.75', 'PMT-1', 'Payee C', 'Invoice C'],
      ],
    );
    assert.deepEqual(statement.transactions[0]?.batch, {
      messageId: null,
      paymentInfoId: 'PMT-1',
      count: 3,
      total: '35.75',
    });
    assert.deepEqual(warnings, []);
  });

  test('a batch that nets credits and debits takes each counterparty from its own transaction side', () => {
    const party = (cd: string, e2e: string, amount: string) =>
      `<TxDtls><Refs><EndToEndId>${e2e}</EndToEndId></Refs><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>${cd}</CdtDbtInd><RltdPties><Dbtr><Nm>Debtor ${e2e}</Nm></Dbtr><DbtrAcct><Id><IBAN>DE02100100109307118603</IBAN></Id></DbtrAcct><Cdtr><Nm>Creditor ${e2e}</Nm></Cdtr><CdtrAcct><Id><IBAN>NL91ABNA0417164300</IBAN></Id></CdtrAcct></RltdPties><RltdAgts><DbtrAgt><FinInstnId><BIC>PBNKDEFFXXX</BIC></FinInstnId></DbtrAgt><CdtrAgt><FinInstnId><BIC>ABNANL2A</BIC></FinInstnId></CdtrAgt></RltdAgts></TxDtls>`;
    const batch = `<NtryDtls>${party('CRDT', 'IN', '50.00')}${party('DBIT', 'OUT', '20.00')}</NtryDtls>`;
    const xml = doc(stmt(`${bal('OPBD', '100.00')}${bal('CLBD', '130.00')}${ntry('30.00', 'CRDT', batch)}`));
    const { statement, warnings } = first(parseBankFile(xml));
    assert.deepEqual(
      statement.transactions.map((t) => [
        t.endToEndId,
        t.direction,
        t.counterpartyName,
        t.counterpartyIban,
        t.counterpartyBic,
      ]),
      [
        ['IN', 'credit', 'Debtor IN', 'DE02100100109307118603', 'PBNKDEFFXXX'],
        ['OUT', 'debit', 'Creditor OUT', 'NL91ABNA0417164300', 'ABNANL2A'],
      ],
    );
    assert.deepEqual(warnings, []);
  });

  test("direction is the transaction's own; the entry's stays visible as entryDirection", () => {
    const tx = (cd: string, e2e: string, amount: string) =>
      `<TxDtls><Refs><EndToEndId>${e2e}</EndToEndId></Refs><Amt Ccy="EUR">${amount}</Amt>${cd ? `<CdtDbtInd>${cd}</CdtDbtInd>` : ''}</TxDtls>`;
    const batch = `<NtryDtls>${tx('CRDT', 'A', '50.00')}${tx('DBIT', 'B', '20.00')}${tx('', 'C', '0.00')}</NtryDtls>`;
    const xml = doc(stmt(`${bal('OPBD', '100.00')}${bal('CLBD', '130.00')}${ntry('30.00', 'CRDT', batch)}`));
    const { statement, warnings } = first(parseBankFile(xml));
    assert.deepEqual(
      statement.transactions.map((t) => [t.endToEndId, t.direction, t.entryDirection, t.entryAmount]),
      [
        ['A', 'credit', 'credit', '30.00'],
        ['B', 'debit', 'credit', '30.00'],
        ['C', 'credit', 'credit', '30.00'],
      ],
    );
    // The balances add up with the entry's direction (100 + 30 = 130): no balance_mismatch.
    assert.deepEqual(warnings, []);
    assert.equal(statement.entrySummary.creditSum, '30.00');
  });

  test('TxDtls without amounts get null and a warning instead of copies of the total', () => {
    const batch = `<NtryDtls><Btch><NbOfTxs>2</NbOfTxs></Btch>${txDtls(null, 'A')}${txDtls(null, 'B')}</NtryDtls>`;
    const xml = doc(stmt(`${bal('OPBD', '100.00')}${bal('CLBD', '70.00')}${ntry('30.00', 'DBIT', batch)}`));
    const [{ statement, warnings }] = statements(parseBankFile(xml)) as [
      { statement: NormalisedStatement; warnings: { code: string }[] },
    ];
    assert.deepEqual(
      statement.transactions.map((t) => t.amount),
      [null, null],
    );
    assert.ok(warnings.some((w) => w.code === 'batch_amount_mismatch'));
  });

  test('amounts that do not add up to the entry are flagged', () => {
    const batch = `<NtryDtls>${txDtls('10.00', 'A')}${txDtls('10.00', 'B')}</NtryDtls>`;
    const xml = doc(stmt(`${bal('OPBD', '100.00')}${bal('CLBD', '70.00')}${ntry('30.00', 'DBIT', batch)}`));
    const { warnings } = first(parseBankFile(xml));
    assert.ok(warnings.some((w) => w.code === 'batch_amount_mismatch'));
  });
});

describe('camt amounts, balances and shapes', () => {
  test('amounts are exact decimal strings, also beyond float precision and with five decimals', () => {
    const xml = doc(
      stmt(
        `${bal('OPBD', '9007199254740993.01')}${bal('CLBD', '9007199254740993.11')}${ntry('0.10', 'CRDT')}${ntry('0.12345', 'CRDT')}${ntry('0.12345', 'DBIT')}`,
      ),
    );
    const [{ statement, warnings }] = statements(parseBankFile(xml)) as [
      { statement: NormalisedStatement; warnings: { code: string }[] },
    ];
    assert.equal(statement.openingBalance?.amount, '9007199254740993.01');
    assert.equal(statement.closingBalance?.amount, '9007199254740993.11');
    assert.deepEqual(
      statement.transactions.map((t) => t.amount),
      ['0.10', '0.12345', '0.12345'],
    );
    for (const t of statement.transactions) assert.equal(typeof t.amount, 'string');
    assert.equal(statement.entrySummary.creditSum, '0.22345');
    assert.ok(!warnings.some((w) => w.code === 'balance_mismatch'), 'opening + 0.10 = closing exactly');
    assert.ok(warnings.some((w) => w.code === 'amount_precision'));
  });

  test('opening and closing are chosen by type, not by position; PRCD stands in for OPBD', () => {
    const xml = doc(
      stmt(
        `${bal('CLAV', '1.00')}${bal('CLBD', '150.00')}${bal('PRCD', '100.00', 'CRDT', '2025-03-13')}${bal('FWAV', '9.00')}${ntry('50.00', 'CRDT')}`,
      ),
    );
    const [{ statement, warnings }] = statements(parseBankFile(xml)) as [
      { statement: NormalisedStatement; warnings: { code: string }[] },
    ];
    assert.equal(statement.openingBalance?.type, 'PRCD');
    assert.equal(statement.closingBalance?.type, 'CLBD');
    assert.deepEqual(
      statement.balances.map((b) => b.type),
      ['CLAV', 'CLBD', 'PRCD', 'FWAV'],
    );
    assert.deepEqual(warnings, []);
  });

  test('a statement without entries parses, with a zero summary', () => {
    const xml = doc(stmt(`${bal('OPBD', '5.00', 'DBIT')}${bal('CLBD', '5.00', 'DBIT')}`));
    const [{ statement, warnings }] = statements(parseBankFile(xml)) as [
      { statement: NormalisedStatement; warnings: { code: string }[] },
    ];
    assert.deepEqual(statement.transactions, []);
    assert.equal(statement.entryCount, 0);
    assert.equal(statement.entrySummary.totalCount, 0);
    assert.equal(statement.openingBalance?.direction, 'debit');
    assert.deepEqual(warnings, []);
  });

  test('opening + credits - debits != closing is a warning, never silent', () => {
    const xml = doc(stmt(`${bal('OPBD', '100.00')}${bal('CLBD', '100.00')}${ntry('1.00', 'DBIT')}`));
    const { warnings } = first(parseBankFile(xml));
    assert.deepEqual(
      warnings.map((w) => w.code),
      ['balance_mismatch'],
    );
  });

  test('TxsSummry is compared with the entries', () => {
    const summary = '<TxsSummry><TtlNtries><NbOfNtries>2</NbOfNtries><Sum>3.00</Sum></TtlNtries></TxsSummry>';
    const xml = doc(stmt(`${bal('OPBD', '1.00')}${bal('CLBD', '2.00')}${summary}${ntry('1.00', 'CRDT')}`));
    const [{ statement, warnings }] = statements(parseBankFile(xml)) as [
      { statement: NormalisedStatement; warnings: { code: string }[] },
    ];
    assert.equal(statement.entrySummary.source, 'file');
    assert.deepEqual(
      warnings.map((w) => w.code),
      ['summary_mismatch', 'summary_mismatch'],
    );
  });

  test('a signed TxsSummry Sum (schema DecimalNumber) does not refuse the statement', () => {
    const ns10 = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.10';
    const summary = (debit: string, credit: string) =>
      `<TxsSummry><TtlCdtNtries><NbOfNtries>1</NbOfNtries><Sum>${credit}</Sum></TtlCdtNtries><TtlDbtNtries><NbOfNtries>1</NbOfNtries><Sum>${debit}</Sum></TtlDbtNtries></TxsSummry>`;
    const body = (s: string) =>
      stmt(`${bal('OPBD', '10.00')}${bal('CLBD', '12.00')}${s}${ntry('5.00', 'CRDT')}${ntry('3.00', 'DBIT')}`);
    // The debit total written with its sign means debits of 3.00: checked, and it agrees.
    const ok = first(parseBankFile(doc(body(summary('-3.00', '5.00')), ns10)));
    assert.deepEqual(ok.warnings, []);
    assert.deepEqual([ok.statement.entrySummary.source, ok.statement.entrySummary.debitSum], ['file', '3.00']);
    // A wrong signed debit total is still a mismatch; a negative credit total is left out, with a warning.
    assert.deepEqual(
      first(parseBankFile(doc(body(summary('-4.00', '5.00')), ns10))).warnings.map((w) => w.code),
      ['summary_mismatch'],
    );
    assert.deepEqual(
      first(parseBankFile(doc(body(summary('-3.00', '-5.00')), ns10))).warnings.map((w) => w.code),
      ['ignored_field'],
    );
  });

  test('references, bank codes, charges, FX, reversal and structured remittance are kept', () => {
    const details = `<NtryDtls><TxDtls><Refs><AcctSvcrRef>TX-REF</AcctSvcrRef><InstrId>I1</InstrId><EndToEndId>E1</EndToEndId><TxId>T1</TxId></Refs>
      <AmtDtls><InstdAmt><Amt Ccy="USD">12.00</Amt><CcyXchg><SrcCcy>USD</SrcCcy><TrgtCcy>EUR</TrgtCcy><XchgRate>0.9</XchgRate></CcyXchg></InstdAmt><TxAmt><Amt Ccy="EUR">10.80</Amt></TxAmt></AmtDtls>
      <Chrgs><Amt Ccy="EUR">0.50</Amt></Chrgs>
      <RltdPties><Dbtr><Nm>Payer &amp; Co</Nm><PstlAdr><StrtNm>Main</StrtNm><BldgNb>1</BldgNb><TwnNm>Town</TwnNm><Ctry>DE</Ctry></PstlAdr></Dbtr><DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct></RltdPties>
      <RltdAgts><DbtrAgt><FinInstnId><BIC>COBADEFFXXX</BIC></FinInstnId></DbtrAgt></RltdAgts>
      <RmtInf><Strd><RfrdDocInf><Tp><CdOrPrtry><Cd>CINV</Cd></CdOrPrtry></Tp><Nb>INV-9</Nb><RltdDt>2025-03-01</RltdDt></RfrdDocInf><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>RF18539007547034</Ref></CdtrRefInf></Strd></RmtInf>
      <RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf></TxDtls></NtryDtls>`;
    const code =
      '<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn><Prtry><Cd>166</Cd></Prtry></BkTxCd>';
    const entry = ntry('10.80', 'CRDT', details, '<RvslInd>true</RvslInd>').replace('<NtryDtls>', `${code}<NtryDtls>`);
    const xml = doc(stmt(`${bal('OPBD', '0.00')}${bal('CLBD', '10.80')}${entry}`));
    const { statement } = first(parseBankFile(xml));
    const t = statement.transactions[0];
    assert.ok(t);
    assert.equal(t.bankRef, 'REF-10.80');
    assert.equal(t.acctSvcrRef, 'TX-REF');
    assert.deepEqual([t.endToEndId, t.instructionId, t.transactionId], ['E1', 'I1', 'T1']);
    assert.deepEqual(
      [t.txCodeDomain, t.txCodeFamily, t.txCodeSubFamily, t.txCodeProprietary],
      ['PMNT', 'RCDT', 'ESCT', '166'],
    );
    assert.deepEqual([t.originalAmount, t.originalCurrency, t.exchangeRate], ['12.00', 'USD', '0.9']);
    assert.deepEqual([t.chargeAmount, t.chargeCurrency], ['0.50', 'EUR']);
    assert.equal(t.reversal, true);
    assert.deepEqual(
      [t.counterpartyName, t.counterpartyIban, t.counterpartyBic, t.counterpartyCountry],
      ['Payer & Co', 'DE89370400440532013000', 'COBADEFFXXX', 'DE'],
    );
    assert.equal(t.counterpartyAddress, 'Main 1, Town');
    assert.deepEqual([t.creditorReference, t.creditorReferenceType], ['RF18539007547034', 'SCOR']);
    assert.deepEqual(t.referredDocuments, [{ type: 'CINV', number: 'INV-9', date: '2025-03-01' }]);
    assert.equal(t.returnReason, 'AC04');
  });

  test('each statement is its own block: a broken one is quarantined, the others parse', () => {
    const good = stmt(`${bal('OPBD', '1.00')}${bal('CLBD', '1.00')}`, 'DE89370400440532013000');
    const bad = stmt(`${bal('OPBD', '1.00')}${ntry('12,5x', 'CRDT')}`, 'NL91ABNA0417164300');
    const r = parseBankFile(doc(good + bad));
    assert.ok(r.ok && r.kind === 'statement');
    assert.equal(r.blocks[0]?.ok, true);
    assert.equal(r.blocks[1]?.ok, false);
    assert.match(r.blocks[1]?.ok === false ? r.blocks[1].message : '', /NL91ABNA0417164300.*not a decimal/);
  });

  test('sequence numbers that repeat or jump are warned about', () => {
    const s = (n: number) =>
      stmt(`${bal('OPBD', '1.00')}${bal('CLBD', '1.00')}`).replace('<ElctrncSeqNb>7<', `<ElctrncSeqNb>${n}<`);
    const r = statements(parseBankFile(doc(s(7) + s(7) + s(9))));
    assert.deepEqual(
      r.map((x) => x.warnings.map((w) => w.code)),
      [[], ['sequence_duplicate'], ['sequence_gap']],
    );
  });

  test('each currency of a multi-currency account numbers its own statements', () => {
    const s = (ccy: string, n: number) =>
      stmt(`${bal('OPBD', '1.00')}${bal('CLBD', '1.00')}`.replaceAll('"EUR"', `"${ccy}"`))
        .replace('<Ccy>EUR</Ccy>', `<Ccy>${ccy}</Ccy>`)
        .replace('<ElctrncSeqNb>7<', `<ElctrncSeqNb>${n}<`);
    const r = statements(parseBankFile(doc(s('EUR', 1) + s('USD', 1) + s('SEK', 1) + s('USD', 2) + s('USD', 2))));
    assert.deepEqual(
      r.map((x) => [x.statement.accountCurrency, x.warnings.map((w) => w.code)]),
      [
        ['EUR', []],
        ['USD', []],
        ['SEK', []],
        ['USD', []],
        ['USD', ['sequence_duplicate']],
      ],
    );
  });
});

describe('camt versions and safety', () => {
  test('every camt.05x version namespace is accepted; unknown messages and broken namespaces are not', () => {
    for (const v of ['camt.053.001.02', 'camt.053.001.08', 'camt.053.001.13']) {
      const r = parseBankFile(doc(stmt(''), `urn:iso:std:iso:20022:tech:xsd:${v}`));
      assert.ok(r.ok && r.kind === 'statement' && r.sourceFormat === v, v);
    }
    for (const ns of [
      'urn:iso:std:iso:20022:tech:xsd:camt',
      'urn:iso:std:iso:20022:tech:xsd:other.053.001.02',
      'urn:weird',
    ]) {
      const r = parseBankFile(doc(stmt(''), ns));
      assert.ok(!r.ok && r.error.code === 'unrecognised_format', ns);
    }
  });

  test('a DOCTYPE, undefined entities and excessive depth are refused; character references decode', () => {
    const dtd = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x "y">]>${doc(stmt('')).replace(/^<\?xml[^>]*>/, '')}`;
    const r1 = parseBankFile(dtd);
    assert.ok(!r1.ok && r1.error.code === 'unparseable_file' && /DOCTYPE/.test(r1.error.message));
    const r2 = parseBankFile(doc(stmt('')).replace('<Id>S1</Id>', '<Id>&x;</Id>'));
    assert.ok(!r2.ok && /entity/.test(r2.error.message));
    const r3 = parseBankFile(doc(stmt('')).replace('<Id>S1</Id>', '<Id>&#65;&#x42;&lt;</Id>'));
    assert.ok(r3.ok && r3.kind === 'statement' && r3.blocks[0]?.ok && r3.blocks[0].statement.statementId === 'AB<');
    const deep = doc(stmt('')).replace('<Id>S1</Id>', `<Id>S1</Id>${'<X>'.repeat(100)}${'</X>'.repeat(100)}`);
    const r4 = parseBankFile(deep);
    assert.ok(!r4.ok && /deeper/.test(r4.error.message));
  });

  test('empty, too large and malformed inputs give typed errors', () => {
    const e = parseBankFile(new Uint8Array(0));
    assert.ok(!e.ok && e.error.code === 'empty');
    const big = parseBankFile(doc(stmt('')), { maxBytes: 100 });
    assert.ok(!big.ok && big.error.code === 'too_large');
    const broken = parseBankFile(doc(stmt('')).replace('</Stmt>', '</Stmtx>'));
    assert.ok(!broken.ok && broken.error.code === 'unparseable_file');
  });

  test('XML encoding declarations are honoured for byte input', () => {
    const xml = doc(stmt(''))
      .replace('encoding="UTF-8"', 'encoding="ISO-8859-2"')
      .replace('<Id>S1</Id>', '<Id>Łódź</Id>');
    const bytes = Uint8Array.from([...xml].map((ch) => ({ Ł: 0xa3, ó: 0xf3, ź: 0xbc })[ch] ?? ch.charCodeAt(0)));
    const r = parseBankFile(bytes);
    assert.ok(r.ok && r.kind === 'statement' && r.encoding === 'iso-8859-2');
    assert.equal(r.blocks[0]?.ok && r.blocks[0].statement.statementId, 'Łódź');
  });
});
