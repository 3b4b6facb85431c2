import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseBankFile } from '../parse-bank-file.ts';
import type { NormalisedStatement, StatementFileResult } from '../types.ts';
import { parseDetails86 } from './details86.ts';
import { parseLine61 } from './line61.ts';

function parsed(text: string | Uint8Array): StatementFileResult {
  const r = parseBankFile(text);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  assert.equal(r.kind, 'statement');
  return r as StatementFileResult;
}

function only(r: StatementFileResult): { statement: NormalisedStatement; warnings: { code: string }[] } {
  const b = r.blocks[0];
  assert.ok(b?.ok, b && !b.ok ? b.message : 'no block');
  return { statement: b.statement, warnings: b.warnings };
}

const statement = (lines: string[], ref = 'REF1', seq = '73/1') =>
  [`:20:${ref}`, ':25:DE89370400440532013000', `:28C:${seq}`, ...lines, '-'].join('\n');

describe(':61: statement line', () => {
  test('all subfields: dates, marks, funds code, amount, type, references, supplementary details', () => {
    const l = parseLine61('2512300102RDR1234,56NTRFCUSTREF123//BANKREF456\n/OCMT/EUR12,00/');
    assert.ok(typeof l !== 'string');
    assert.deepEqual(l, {
      valueDate: '2025-12-30',
      entryDate: '2026-01-02',
      mark: 'RD',
      fundsCode: 'R',
      amount: '1234.56',
      typeCode: 'NTRF',
      customerRef: 'CUSTREF123',
      bankRef: 'BANKREF456',
      supplementary: '/OCMT/EUR12,00/',
    });
    assert.equal(typeof parseLine61('garbage'), 'string');
  });

  test('a space before the type code (Commerzbank, Deutsche Bank) separates it from the reference', () => {
    const l = parseLine61('2006080608D12,35 NRTIKREF+//2016021783252833');
    assert.ok(typeof l !== 'string');
    assert.deepEqual([l.amount, l.typeCode, l.customerRef, l.bankRef], ['12.35', 'NRTI', 'KREF+', '2016021783252833']);
    // A space before anything else is still part of the reference subfield, trimmed.
    const other = parseLine61('2006080608D12,35 KREF+');
    assert.ok(typeof other !== 'string');
    assert.deepEqual([other.typeCode, other.customerRef], [null, 'KREF+']);
  });
});

describe(':61: amounts with a decimal point', () => {
  test('the cents stay in the amount, not in the customer reference, and the balances add up', () => {
    const r = parsed(
      statement([
        ':60F:C030106EUR000000000000.00',
        ':61:030109C000000043985.66NMSC170059286',
        ':86:Spaarpot kantine',
        ':61:0301090109DR52.58NTRFNONREF//B1',
        ':62F:C030109EUR000000043933.08',
      ]),
    );
    const { statement: s, warnings } = only(r);
    assert.deepEqual(
      s.transactions.map((t) => [t.direction, t.amount, t.customerRef, t.swiftTypeCode, t.bankRef]),
      [
        ['credit', '43985.66', '170059286', 'NMSC', null],
        ['debit', '52.58', 'NONREF', 'NTRF', 'B1'],
      ],
    );
    assert.deepEqual(
      warnings.map((w) => w.code),
      [],
    );
    const l = parseLine61('030109C12.5NMSCREF');
    assert.ok(typeof l !== 'string');
    assert.equal(l.amount, '12.5');
  });
});

describe(':86: dialects', () => {
  test('German ?-subfields with GVC and SEPA keywords', () => {
    const d = parseDetails86(
      '166?00SEPA-GUTSCHRIFT?109075?20EREF+E2E-1?21SVWZ+Rechnung 4\n711?30COBADEFFXXX?31DE89370400440532013000?32Max Muster?33mann',
    );
    assert.equal(d.dialect, 'german');
    assert.deepEqual(
      [d.txCode, d.bookingText, d.endToEndId, d.remittance, d.counterpartyBic, d.counterpartyIban, d.counterpartyName],
      ['166', 'SEPA-GUTSCHRIFT', 'E2E-1', 'Rechnung 4711', 'COBADEFFXXX', 'DE89370400440532013000', 'Max Mustermann'],
    );
  });

  test('a SEPA keyword opening a German subfield counts even when the subfield before ends in a letter', () => {
    const d = parseDetails86(
      '166?00SEPA-GUTSCHRIFT?20EREF+NOTPROVIDED?21SVWZ+RECHNUNG 12?22MREF+M-1?23CRED+DE98ZZZ09999999999',
    );
    assert.deepEqual(
      [d.endToEndId, d.remittance, d.mandateId, d.creditorId],
      ['NOTPROVIDED', 'RECHNUNG 12', 'M-1', 'DE98ZZZ09999999999'],
    );
    // Inside a subfield, letters before a keyword still make it text (a word wrapped mid-way, "ABCREF+").
    const t = parseDetails86('166?00SEPA-GUTSCHRIFT?20EREF+E2E-1?21SVWZ+TEXT ABCSVWZ+X');
    assert.deepEqual([t.endToEndId, t.remittance], ['E2E-1', 'TEXT ABCSVWZ+X']);
  });

  test('Polish ~ subfields (ING PL) and > subfields', () => {
    const d = parseDetails86('020~00TRANSFER~20Faktura ~21FV/1/2024~29PL61109010140000071219812874~32Jan Kowalski');
    assert.equal(d.dialect, 'polish');
    assert.deepEqual(
      [d.txCode, d.remittance, d.counterpartyName, d.counterpartyIban],
      ['020', 'Faktura FV/1/2024', 'Jan Kowalski', 'PL61109010140000071219812874'],
    );
    const g = parseDetails86('>20Tytul>32Firma');
    assert.deepEqual([g.dialect, g.remittance, g.counterpartyName], ['polish', 'Tytul', 'Firma']);
  });

  test('SWIFT /TAG/ structure with wrapped lines and counterparty', () => {
    const d = parseDetails86(
      '/TRTP/SEPA OVERBOEKING/IBAN/NL91ABNA0417164300/BIC/ABNANL2A/NAME/J. Jan\nsen/REMI/Factuur 1/2 2025/EREF/E2E-9',
    );
    assert.equal(d.dialect, 'swift-tags');
    assert.deepEqual(
      [d.txCode, d.counterpartyIban, d.counterpartyBic, d.counterpartyName, d.remittance, d.endToEndId],
      ['SEPA OVERBOEKING', 'NL91ABNA0417164300', 'ABNANL2A', 'J. Jansen', 'Factuur 1/2 2025', 'E2E-9'],
    );
    const c = parseDetails86('/CNTP/NL91ABNA0417164300/ABNANL2A/Shop BV/Utrecht///REMI/USTD//Order 5/');
    assert.deepEqual(
      [c.counterpartyIban, c.counterpartyName, c.counterpartyAddress],
      ['NL91ABNA0417164300', 'Shop BV', 'Utrecht'],
    );
  });

  test('ING /TAG/ values closed by "/": no value keeps the closing slash, and REMI USTD/STRD are read', () => {
    const d = parseDetails86(
      '/RTRN/MS03//EREF/EV1234REP1T1//MARF/MND\n-EV01//CSID/NL32ZZZ999999991234//CNTP/NL32INGB0000012345/INGBNL2A/J.Janssen///REMI/USTD//Factuurnr 123456/',
    );
    assert.deepEqual(
      [d.returnReason, d.endToEndId, d.mandateId, d.creditorId, d.counterpartyName, d.remittance],
      ['MS03', 'EV1234REP1T1', 'MND-EV01', 'NL32ZZZ999999991234', 'J.Janssen', 'Factuurnr 123456'],
    );
    const s = parseDetails86(
      '/EREF/E2E-7//CNTP/NL32INGB0000012345/INGBNL2A/J.J\nanssen///REMI/STRD/CUR/9001123412341234/',
    );
    assert.deepEqual(
      [s.endToEndId, s.counterpartyName, s.creditorReferenceType, s.creditorReference, s.remittance],
      ['E2E-7', 'J.Janssen', 'CUR', '9001123412341234', null],
    );
    // ING's IBP layout leaves the REMI subtype empty; a single leading "/" of another bank's REMI is text.
    assert.equal(parseDetails86('/PREF/M000000002222222//REMI///TOTAAL 1 POSTEN/').remittance, 'TOTAAL 1 POSTEN');
    assert.equal(parseDetails86('/REMI//INV/1511682351 1.12.2016').remittance, '/INV/1511682351 1.12.2016');
    // Rabobank does not close its values: "/EREF/ABC/NAME/..." is unchanged.
    const r = parseDetails86('/EREF/ABC/BENM//NAME/Jane Doe/REMI/Factuur 7/ISDT/2014-06-02');
    assert.deepEqual([r.endToEndId, r.counterpartyName, r.remittance], ['ABC', 'Jane Doe', 'Factuur 7']);
  });

  test('/BENM/ and /ORDP/ give the counterparty in each layout banks write', () => {
    // The SWIFT party on "/" lines: account, name, then the payment's details.
    const k = parseDetails86(
      '/BENM/300000000000133\n/KOMERCIJALNA BANKA AD\n/Mesecna provizija//1603\n/Nadomest 11.2020',
    );
    assert.deepEqual(
      [k.counterpartyAccount, k.counterpartyName, k.remittance],
      ['300000000000133', 'KOMERCIJALNA BANKA AD', 'Mesecna provizija//1603 Nadomest 11.2020'],
    );
    // ING IBP: account/BIC/name, like CNTP.
    const i = parseDetails86('/BENM/NL50INGB00012345\n67/INGBNL2A/ING Bank N.V. inzake WeB///EREF/EV45451//');
    assert.deepEqual(
      [i.counterpartyIban, i.counterpartyBic, i.counterpartyName, i.endToEndId],
      ['NL50INGB0001234567', 'INGBNL2A', 'ING Bank N.V. inzake WeB', 'EV45451'],
    );
    // A name alone, the account in /ACNO/ (ASB NZ); the ordering party on a credit the same way.
    const a = parseDetails86('/BAI/399/MISCELLANEOUS CREDIT\n/ORDP/test rate\n/ACNO/12-3011-0334122-37');
    assert.deepEqual([a.counterpartyName, a.counterpartyAccount], ['test rate', '12-3011-0334122-37']);
    // Rabobank's empty party value leaves the keys that follow to say it.
    const r = parseDetails86('/ORDP//NAME/COMPANY B V/ADDR/STATIONSSTRAAT 79/REMI/2037');
    assert.deepEqual(
      [r.counterpartyName, r.counterpartyAddress, r.remittance],
      ['COMPANY B V', 'STATIONSSTRAAT 79', '2037'],
    );
  });

  test('free text, with the mBank TYT./OD: markers mined', () => {
    const d = parseDetails86('911 TRANSAKCJA IPH; Z RACH.: 34 1030 1289; OD: JAN NOWAK; TYT.: FV 12/2010; TNR: 1');
    assert.deepEqual(
      [d.dialect, d.txCode, d.remittance, d.counterpartyName, d.counterpartyAccount],
      ['free-text', '911', 'FV 12/2010', 'JAN NOWAK', '3410301289'],
    );
    assert.equal(parseDetails86('just words').remittance, 'just words');
  });
});

describe('MT940 statements', () => {
  test('balances, entries with exact amounts, reversal marks and details', () => {
    const text = statement([
      ':60F:C250313EUR1000,00',
      ':61:2503140314D19,08NTRFNONREF//B1',
      ':86:/EREF/E1/NAME/Payee/REMI/Invoice 1',
      ':61:2503140314RC0,92NTRFNONREF//B2',
      ':61:2503140314C100,NMSCNONREF//B3',
      ':62F:C250314EUR1080,00',
      ':64:C250314EUR1080,00',
      ':65:C250315EUR1080,00',
    ]);
    const { statement: s, warnings } = only(parsed(text));
    assert.equal(s.accountIban, 'DE89370400440532013000');
    assert.equal(s.sequenceNumber, '73/1');
    assert.deepEqual(
      s.transactions.map((t) => [t.amount, t.direction, t.reversal, t.bankRef]),
      [
        ['19.08', 'debit', false, 'B1'],
        ['0.92', 'debit', true, 'B2'],
        ['100.00', 'credit', false, 'B3'],
      ],
    );
    assert.equal(s.transactions[0]?.endToEndId, 'E1');
    assert.deepEqual(
      s.balances.map((b) => b.type),
      ['60F', '62F', '64', '65'],
    );
    assert.equal(s.openingBalance?.amount, '1000.00');
    assert.equal(s.closingBalance?.amount, '1080.00');
    assert.equal(s.entrySummary.debitSum, '20.00');
    assert.deepEqual(warnings, []);
  });

  test('a balance that does not add up is a warning', () => {
    const text = statement([':60F:C250313EUR10,00', ':61:2503140314D1,00NTRFNONREF', ':62F:C250314EUR10,00']);
    assert.deepEqual(
      only(parsed(text)).warnings.map((w) => w.code),
      ['balance_mismatch'],
    );
  });

  test('several statements; a cut-off one is quarantined with an incomplete-file alert', () => {
    const whole = statement([':60F:C250313EUR10,00', ':62F:C250314EUR10,00'], 'A', '1/1');
    const cut = [
      ':20:B',
      ':25:DE89370400440532013000',
      ':28C:2/1',
      ':60F:C250314EUR10,00',
      ':61:2503150315D1,00NTRFNONREF',
    ].join('\n');
    const text = `{1:F01X}{2:I940X}{4:\n${cut}\n{1:F01X}{2:I940X}{4:\n${whole}}\n`;
    const r = parsed(text);
    assert.deepEqual(
      r.blocks.map((b) => b.ok),
      [false, true],
    );
    assert.equal(r.alerts.length, 1);
    assert.deepEqual([r.alerts[0]?.unclosedBlockCount, r.alerts[0]?.survivingStatementCount], [1, 1]);
  });

  test('sequence duplicates and gaps are warned about', () => {
    const s = (seq: string) => statement([':60F:C250313EUR10,00', ':62F:C250314EUR10,00'], 'R', seq);
    const r = parsed([s('5/1'), s('5/2'), s('5/2'), s('8/1')].join('\n'));
    assert.deepEqual(
      r.blocks.map((b) => (b.ok ? b.warnings.map((w) => w.code) : ['failed'])),
      [[], [], ['sequence_duplicate'], ['sequence_gap']],
    );
  });

  test('framing: SOH/ETX, CRLF, trailing SUB and the Swedish 7-bit braces', () => {
    const body = statement([':60F:C250313SEK0,', ':62F:C250314SEK0,']);
    const framed = `\x01${body.replace(/\n/g, '\r\n')}\r\n\x03\x1a`;
    assert.equal(only(parsed(framed)).statement.closingBalance?.amount, '0.00');
    const swedish = `ä4:\n${body}å\n`;
    const r = parsed(swedish);
    assert.equal(r.encoding, 'iso-646-se');
    assert.equal(r.blocks.length, 1);
  });

  test('Windows-1250 bytes are decoded (Polish letters)', () => {
    const text = statement([
      ':60F:C250313PLN0,00',
      ':61:2503140314C5,00NTRFNONREF',
      ':86:020~20Op\u0142ata \u015Bwi\u0119ta',
      ':62F:C250314PLN5,00',
    ]);
    const map: Record<string, number> = { ł: 0xb3, ś: 0x9c, ę: 0xea };
    const bytes = Uint8Array.from([...text].map((ch) => map[ch] ?? ch.charCodeAt(0)));
    const r = parsed(bytes);
    assert.equal(r.encoding, 'windows-1250');
    assert.equal(only(r).statement.transactions[0]?.remittance, 'Opłata święta');
  });

  test('MT942 interim report: pending entries and :90D:/:90C: summary', () => {
    const text = [
      ':20:INTRA',
      ':25:DE89370400440532013000',
      ':28C:1/1',
      ':34F:EUR0,',
      ':13D:2503141200+0100',
      ':61:2503140314D5,00NTRFNONREF',
      ':90D:1EUR5,00',
      ':90C:0EUR0,00',
      '-',
    ].join('\n');
    const r = parsed(text);
    assert.equal(r.format, 'mt942');
    const { statement: s, warnings } = only(r);
    assert.equal(s.transactions[0]?.status, 'pending');
    assert.equal(s.createdAt, '2025-03-14T12:00:00+01:00');
    assert.deepEqual(warnings, []);
  });

  test('not MT940 at all, or a misplaced tag, gives a typed refusal', () => {
    const r1 = parseBankFile('hello\nworld');
    assert.ok(!r1.ok && r1.error.code === 'unrecognised_format');
    const r2 = parseBankFile(statement([':60F:C250313EUR10,00', ':25:DE89370400440532013000', ':62F:C250314EUR10,00']));
    assert.ok(!r2.ok && r2.error.code === 'unparseable_file' && /after the opening balance/.test(r2.error.message));
  });
});
