/**
 * Valid sample payments for every bank and payment type, built from check-digit helpers so the numbers
 * are right by construction. Used by the golden files, the issue-code tests and the property tests.
 */
import { luhnValid, mod11CheckDigit, mod97 } from '../../src/domain/references/check-digits.ts';
import { finnishCheckDigit } from '../../src/domain/references/finnish-reference.ts';

function withLuhn(payload: string): string {
  for (let d = 0; d < 10; d++) if (luhnValid(`${payload}${d}`)) return `${payload}${d}`;
  throw new Error('unreachable');
}

function makeIban(country: string, bban: string): string {
  const check = 98 - mod97(`${bban}${country}00`);
  return `${country}${String(check).padStart(2, '0')}${bban}`;
}

function norwegianAccount(payload10: string): string {
  const d = mod11CheckDigit(payload10, [2, 3, 4, 5, 6, 7]);
  if (d === undefined) throw new Error(`no MOD11 digit for ${payload10}`);
  return `${payload10}${d}`;
}

export const IBANS: Record<string, string> = {
  FI: 'FI2112345600000785',
  SE: 'SE4550000000058398257466',
  NO: 'NO9386011117947',
  DK: 'DK5000400440116243',
  PL: 'PL61109010140000071219812874',
  DE: 'DE89370400440532013000',
};
const CURRENCY: Record<string, string> = { FI: 'EUR', SE: 'SEK', NO: 'NOK', DK: 'DKK', PL: 'PLN', DE: 'EUR' };
const DEBTOR_IBANS: Record<string, string> = {
  FI: makeIban('FI', '12345600000800'.slice(0, 14)),
  SE: makeIban('SE', '50000000058398257467'),
  NO: makeIban('NO', norwegianAccount('8601111795')),
  DK: makeIban('DK', '00400440116244'),
  PL: makeIban('PL', '109010140000071219812875'),
  DE: makeIban('DE', '370400440532013001'),
};
const TOWNS: Record<string, string> = {
  FI: 'Helsinki',
  SE: 'Stockholm',
  NO: 'Oslo',
  DK: 'København',
  PL: 'Kraków',
  DE: 'Köln',
};

type Tx = Record<string, unknown>;

function creditor(
  country: string,
  name: string,
  account: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Tx {
  return {
    name,
    country,
    postalAddress: {
      streetName: 'Main Street',
      buildingNumber: '1',
      postCode: '00100',
      townName: TOWNS[country] ?? 'Berlin',
    },
    account,
    ...extra,
  };
}

/** One valid transaction for a type, sent from a bank in `country`; `n` varies ids and amounts. */
function sampleTransaction(type: string, country: string, n: number, amount = `${100 + n}.25`): Tx {
  const e2e = `E2E-${type.replace(/_/g, '-')}-${n}`;
  const base = { endToEndId: e2e, instructionId: `I-${n}`, amount };
  const local = CURRENCY[country] ?? 'EUR';
  const domestic = creditor(country, 'Domestic Supplier Oy', { iban: IBANS[country] });
  switch (type) {
    case 'SEPA_CT':
    case 'SEPA_INST':
      return {
        ...base,
        currency: 'EUR',
        creditor: creditor('DE', 'Lieferant GmbH', { iban: IBANS['DE'] }, { agent: { bic: 'COBADEFFXXX' } }),
        remittance: { unstructured: `Invoice ${n}` },
      };
    case 'URGENT':
      return {
        ...base,
        currency: local,
        creditor: { ...domestic, agent: { bic: 'NDEAFIHH' } },
        remittance: { unstructured: `Urgent ${n}` },
      };
    case 'SAME_DAY':
    case 'INTRA_COMPANY':
    case 'SALARY':
      return { ...base, currency: local, creditor: domestic, remittance: { unstructured: `Payment ${n}` } };
    case 'XB_SWIFT':
      return {
        ...base,
        currency: 'USD',
        creditor: creditor(
          'US',
          'Acme Corp',
          { other: { id: `12345678${n}` } },
          {
            postalAddress: { townName: 'New York', streetName: 'Broadway', buildingNumber: '1' },
            agent: { bic: 'CHASUS33' },
          },
        ),
        remittance: { unstructured: `PO ${n}` },
      };
    case 'FI_REF':
      return {
        ...base,
        currency: 'EUR',
        creditor: creditor('FI', 'Toimittaja Oy', { iban: IBANS['FI'] }),
        remittance: {
          creditorReference: `${1000 + n}${finnishCheckDigit(String(1000 + n))}`,
          creditorReferenceType: 'FI',
        },
      };
    case 'FI_SALARY':
      return {
        ...base,
        currency: 'EUR',
        creditor: creditor('FI', 'Matti Meikäläinen', { iban: IBANS['FI'] }),
        remittance: { unstructured: 'Palkka 11/2026' },
      };
    case 'SE_BANKGIRO':
      return {
        ...base,
        currency: 'SEK',
        creditor: creditor('SE', 'Leverantör AB', { other: { id: '50501055' } }),
        remittance: { creditorReference: withLuhn(`4711${n}`), creditorReferenceType: 'OCR' },
      };
    case 'SE_PLUSGIRO':
      return {
        ...base,
        currency: 'SEK',
        creditor: creditor('SE', 'Förening', { other: { id: withLuhn(`90200${n}`) } }),
        remittance: { unstructured: `Medlemsavgift ${n}` },
      };
    case 'SE_ACCOUNT':
    case 'SE_SALARY':
      return {
        ...base,
        currency: 'SEK',
        creditor: creditor('SE', 'Anna Andersson', { iban: IBANS['SE'] }),
        remittance: { unstructured: `Lön ${n}` },
      };
    case 'NO_KID':
      return {
        ...base,
        currency: 'NOK',
        creditor: creditor('NO', 'Leverandør AS', { iban: IBANS['NO'] }),
        remittance: { creditorReference: withLuhn(`123456${n}`), creditorReferenceType: 'KID' },
      };
    case 'NO_DOMESTIC':
      return {
        ...base,
        currency: 'NOK',
        creditor: creditor('NO', 'Leverandør AS', { other: { id: norwegianAccount('8601111794') } }),
        remittance: { unstructured: `Faktura ${n}` },
      };
    case 'DK_FIK71':
      return {
        ...base,
        currency: 'DKK',
        creditor: creditor('DK', 'Leverandør ApS', { other: { id: '85742016' } }),
        remittance: {
          creditorReference: withLuhn(`1234567890${String(n).padStart(4, '0')}`),
          creditorReferenceType: 'FIK',
        },
      };
    case 'DK_FIK75':
      return {
        ...base,
        currency: 'DKK',
        creditor: creditor('DK', 'Leverandør ApS', { other: { id: '85742016' } }),
        remittance: {
          creditorReference: withLuhn(`12345678901${String(n).padStart(4, '0')}`),
          creditorReferenceType: 'FIK',
        },
      };
    case 'DK_GIK04':
    case 'DK_GIK15':
      return {
        ...base,
        currency: 'DKK',
        creditor: creditor('DK', 'Forsyning A/S', { other: { id: '1234567' } }),
        remittance: { creditorReference: withLuhn(`12345678901${String(n).padStart(4, '0')}`) },
      };
    case 'DK_FIK73':
    case 'DK_GIK01':
      return {
        ...base,
        currency: 'DKK',
        creditor: creditor('DK', 'Forsyning A/S', { other: { id: type === 'DK_FIK73' ? '85742016' : '1234567' } }),
        remittance: { unstructured: `Faktura ${n}` },
      };
    case 'DK_DOMESTIC':
      return {
        ...base,
        currency: 'DKK',
        creditor: creditor('DK', 'Leverandør ApS', { iban: IBANS['DK'] }),
        remittance: { unstructured: `Faktura ${n}` },
      };
    case 'PL_ELIXIR':
    case 'PL_EXPRESS_ELIXIR':
    case 'PL_SORBNET':
      return {
        ...base,
        currency: 'PLN',
        creditor: creditor('PL', 'Dostawca Sp. z o.o.', { iban: IBANS['PL'] }),
        remittance: { unstructured: `Faktura ${n}/2026` },
      };
    case 'PL_SPLIT':
      return {
        ...base,
        amount: `${1230 + n}.00`,
        currency: 'PLN',
        creditor: creditor('PL', 'Dostawca Sp. z o.o.', { iban: IBANS['PL'] }),
        splitPayment: { vatAmount: '230.00', taxId: '5260250274', invoiceNumber: `FV-${n}-2026`, text: 'zaplata' },
      };
    case 'PL_TAX_US':
      return {
        ...base,
        currency: 'PLN',
        creditor: creditor('PL', 'Urząd Skarbowy', { iban: IBANS['PL'] }),
        remittance: { unstructured: '/TI/N5260250274/OKR/26M10/SFP/VAT-7/TXT/VAT 10 2026' },
      };
    case 'PL_ZUS':
      return {
        ...base,
        currency: 'PLN',
        creditor: creditor('PL', 'ZUS', { iban: makeIban('PL', '600000020260000052602502') }),
      };
    default:
      throw new Error(`no sample for ${type}`);
  }
}

export type SampleOptions = { transactions?: number; executionDate?: string; amounts?: string[] };

/** A complete canonical payment with one payment block of `type` for a bank in `country`. */
export function samplePayment(type: string, country: string, opts: SampleOptions = {}): Record<string, unknown> {
  const count = opts.transactions ?? 2;
  const transactions = Array.from({ length: count }, (_, n) =>
    sampleTransaction(type, country, n + 1, opts.amounts?.[n]),
  );
  return {
    messageId: `MSG-${type.replace(/_/g, '-')}`,
    creationDateTime: '2026-11-21T08:55:00',
    initiatingParty: { name: 'ACME Group', organisationId: { id: '1234567-8' } },
    payments: [
      {
        paymentId: `PMT-${type.replace(/_/g, '-')}`,
        paymentType: type,
        executionDate: opts.executionDate ?? '2026-11-25',
        debtor: {
          name: 'ACME Group',
          country,
          postalAddress: {
            streetName: 'Kauppakatu',
            buildingNumber: '5',
            postCode: '00100',
            townName: TOWNS[country] ?? 'Berlin',
          },
          account: { iban: DEBTOR_IBANS[country] },
        },
        transactions,
      },
    ],
  };
}
