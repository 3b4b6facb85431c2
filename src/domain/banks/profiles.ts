import type { BankFlavour, BankProfile, PainVersion } from './types.ts';

/**
 * Bank profiles as data (domain.md §2, §2.1, §8). Sources are domain.md tags; `[K]` marks a default that
 * has to be confirmed against the bank's current MIG before the profile goes live.
 */

const SEPA_TYPES = ['SEPA_CT', 'SEPA_INST', 'URGENT', 'XB_SWIFT', 'INTRA_COMPANY', 'SALARY'];
const V03: PainVersion[] = ['pain.001.001.03'];
const V03_09: PainVersion[] = ['pain.001.001.03', 'pain.001.001.09'];
const V09: PainVersion[] = ['pain.001.001.09'];
/** The demo bank also writes the 2021 revision (ADR 0061: no bank in scope asks for it yet). */
const V03_09_11: PainVersion[] = ['pain.001.001.03', 'pain.001.001.09', 'pain.001.001.11'];

/** The November 2026 address rule: unstructured addresses refused from the SEPA settlement date. */
const NOV_2026 = '2026-11-15';

const BASE: BankFlavour = {
  initiatingPartyScheme: 'BANK',
  batchBooking: 'omit',
  addressMode: 'hybrid',
  structuredAddressFrom: NOV_2026,
  charset: 'sepa',
  creditorBicRequired: 'non-sepa',
  grouping: 'per-payment',
  currencies: [],
  chargeBearers: ['SLEV', 'SHAR', 'DEBT', 'CRED'],
  nameMaxLength: 140,
  unstructuredMaxLength: 140,
};

/**
 * A bank that honours batch booking (`BtchBookg` true: one debit per PmtInf; Nordea DK/NO, Danske, the
 * German DK banks, domain.md §2.1) books each block as one amount, which has one currency: such a bank gets
 * one block per currency unless its profile groups even finer.
 */
function flavour(over: Partial<BankFlavour>): BankFlavour {
  const f = { ...BASE, ...over };
  if (f.batchBooking === 'true' && over.grouping === undefined) f.grouping = 'per-currency';
  return f;
}

export const BANK_PROFILES: readonly BankProfile[] = [
  {
    key: 'demo',
    bankName: 'Demo Bank (sandbox)',
    bic: 'DEMOFIHH',
    countryCode: 'FI',
    painVersion: 'pain.001.001.09',
    painVersions: V03_09_11,
    deliveryMode: 'host-to-host',
    channel: 'DEMO',
    paymentTypes: ['SEPA_CT', 'SEPA_INST', 'FI_REF', 'FI_SALARY', 'INTRA_COMPANY'],
    flavour: flavour({ currencies: ['EUR'], chargeBearers: ['SLEV'], nameMaxLength: 70, batchBooking: 'true' }),
    sources: 'DESIGN.md sandbox: host-to-host demo bank, EUR SEPA',
  },
  {
    key: 'nordea-fi',
    bankName: 'Nordea Bank Finland',
    bic: 'NDEAFIHH',
    countryCode: 'FI',
    painVersion: 'pain.001.001.03',
    painVersions: V03_09,
    deliveryMode: 'host-to-host',
    channel: 'FI_WS',
    paymentTypes: [...SEPA_TYPES, 'FI_REF', 'FI_SALARY', 'SAME_DAY'],
    flavour: flavour({ initiatingPartyScheme: 'CUST', creditorBicRequired: 'non-sepa', grouping: 'per-currency' }),
    sources: '[S48][S54][S55]; .09 [K]; one currency per PmtInf [K]',
  },
  {
    key: 'nordea-se',
    bankName: 'Nordea Sweden',
    bic: 'NDEASESS',
    countryCode: 'SE',
    painVersion: 'pain.001.001.03',
    painVersions: V03,
    deliveryMode: 'host-to-host',
    channel: 'SFTP',
    paymentTypes: [...SEPA_TYPES, 'SE_BANKGIRO', 'SE_PLUSGIRO', 'SE_ACCOUNT', 'SE_SALARY'],
    flavour: flavour({
      initiatingPartyScheme: 'CUST',
      charset: 'nordic',
      grouping: 'per-currency',
      noUnstructuredWithReference: true,
    }),
    sources: '[S48][S49][S54]',
  },
  {
    key: 'nordea-dk',
    bankName: 'Nordea Denmark',
    bic: 'NDEADKKK',
    countryCode: 'DK',
    painVersion: 'pain.001.001.03',
    painVersions: V03,
    deliveryMode: 'host-to-host',
    channel: 'SFTP',
    paymentTypes: [
      ...SEPA_TYPES,
      'DK_DOMESTIC',
      'DK_FIK71',
      'DK_FIK73',
      'DK_FIK75',
      'DK_GIK01',
      'DK_GIK04',
      'DK_GIK15',
    ],
    flavour: flavour({
      initiatingPartyScheme: 'CUST',
      charset: 'danish',
      batchBooking: 'true',
      omitLocalInstrument: true,
      noUnstructuredWithReference: true,
    }),
    sources: '[S48][S54]: no LclInstrm, Ustrd not for FIK71/Giro04, BtchBookg honoured',
  },
  {
    key: 'nordea-no',
    bankName: 'Nordea Norway',
    bic: 'NDEANOKK',
    countryCode: 'NO',
    painVersion: 'pain.001.001.03',
    painVersions: V03,
    deliveryMode: 'host-to-host',
    channel: 'SFTP',
    paymentTypes: [...SEPA_TYPES, 'NO_KID', 'NO_DOMESTIC', 'SAME_DAY'],
    encodingOverrides: { SAME_DAY: { localInstrument: { cd: 'SDCL' } } },
    flavour: flavour({
      initiatingPartyScheme: 'CUST',
      charset: 'nordic',
      batchBooking: 'true',
      noUnstructuredWithReference: true,
    }),
    sources: '[S48][S54]: SDCL for same-day NOK, no Ustrd with KID',
  },
  {
    key: 'op',
    bankName: 'OP Corporate Bank',
    bic: 'OKOYFIHH',
    countryCode: 'FI',
    painVersion: 'pain.001.001.09',
    painVersions: V03_09,
    deliveryMode: 'host-to-host',
    channel: 'FI_WS',
    paymentTypes: [...SEPA_TYPES, 'FI_REF', 'FI_SALARY', 'SAME_DAY'],
    flavour: flavour({ charset: 'sepa' }),
    sources: '[S12][S13][S14]: .09 C2B v9, SvcLvl NURG/URGP/SDVA',
  },
  {
    key: 'danske-fi',
    bankName: 'Danske Bank Finland',
    bic: 'DABAFIHH',
    countryCode: 'FI',
    painVersion: 'pain.001.001.03',
    painVersions: V03,
    deliveryMode: 'host-to-host',
    channel: 'FI_WS',
    paymentTypes: [...SEPA_TYPES, 'FI_REF', 'FI_SALARY'],
    flavour: flavour({ batchBooking: 'true', unstructuredMaxLength: 140 }),
    sources: '[S48][S52][S53]: CGI-MP v3.3, Ustrd 4x35, BtchBookg honoured',
  },
  {
    key: 'danske-dk',
    bankName: 'Danske Bank Denmark',
    bic: 'DABADKKK',
    countryCode: 'DK',
    painVersion: 'pain.001.001.03',
    painVersions: V03,
    deliveryMode: 'host-to-host',
    channel: 'SFTP',
    paymentTypes: [
      ...SEPA_TYPES,
      'DK_DOMESTIC',
      'DK_FIK71',
      'DK_FIK73',
      'DK_FIK75',
      'DK_GIK01',
      'DK_GIK04',
      'DK_GIK15',
      'SAME_DAY',
    ],
    encodingOverrides: {
      DK_FIK71: { localInstrument: { cd: 'ONCL' } },
      DK_FIK73: { localInstrument: { cd: 'ONCL' } },
      DK_FIK75: { localInstrument: { cd: 'ONCL' } },
      DK_GIK01: { localInstrument: { cd: 'ONCL' } },
      DK_GIK04: { localInstrument: { cd: 'ONCL' } },
      DK_GIK15: { localInstrument: { cd: 'ONCL' } },
      SAME_DAY: { localInstrument: { cd: 'SDCL' } },
    },
    flavour: flavour({ charset: 'danish', batchBooking: 'true' }),
    sources: '[S48][S52][S53]: ONCL standard, SDCL same day',
  },
  {
    key: 'seb-se',
    bankName: 'SEB Sweden',
    bic: 'ESSESESS',
    countryCode: 'SE',
    painVersion: 'pain.001.001.09',
    painVersions: V03_09,
    deliveryMode: 'host-to-host',
    channel: 'SFTP',
    paymentTypes: [...SEPA_TYPES, 'SE_BANKGIRO', 'SE_PLUSGIRO', 'SE_ACCOUNT', 'SE_SALARY'],
    flavour: flavour({
      charset: 'nordic',
      addressMode: 'structured',
      creationDateTimeWithoutOffset: true,
    }),
    sources:
      '[S22][S23][S48]: .09 only from 15 Nov 2026 in the Baltics, TwnNm+Ctry for every address, CreDtTm without offset',
  },
  {
    key: 'handelsbanken-se',
    bankName: 'Handelsbanken Sweden',
    bic: 'HANDSESS',
    countryCode: 'SE',
    painVersion: 'pain.001.001.03',
    painVersions: V03,
    deliveryMode: 'converted-only',
    channel: 'FILE_UPLOAD',
    paymentTypes: [...SEPA_TYPES, 'SE_BANKGIRO', 'SE_PLUSGIRO', 'SE_ACCOUNT', 'SE_SALARY'],
    flavour: flavour({ charset: 'nordic', grouping: 'per-transaction' }),
    sources: '[S48][S57b]; one PmtInf per transaction for BG files [K]',
  },
  {
    key: 'swedbank-se',
    bankName: 'Swedbank',
    bic: 'SWEDSESS',
    countryCode: 'SE',
    painVersion: 'pain.001.001.03',
    painVersions: V03,
    deliveryMode: 'host-to-host',
    channel: 'SFTP',
    paymentTypes: [...SEPA_TYPES, 'SE_BANKGIRO', 'SE_PLUSGIRO', 'SE_ACCOUNT', 'SE_SALARY'],
    flavour: flavour({ charset: 'nordic' }),
    sources: '[S49][S50][S57]: agreement id as InitgPty Othr/Id with SchmeNm BANK',
  },
  {
    key: 'dnb-no',
    bankName: 'DNB',
    bic: 'DNBANOKK',
    countryCode: 'NO',
    painVersion: 'pain.001.001.03',
    painVersions: V03,
    deliveryMode: 'host-to-host',
    channel: 'SFTP',
    paymentTypes: [...SEPA_TYPES, 'NO_KID', 'NO_DOMESTIC'],
    flavour: flavour({ charset: 'nordic', omitLocalInstrument: true, omitCategoryPurpose: true }),
    sources: '[S48][S51][S74]: no LclInstrm, no CtgyPurp, CdtrAgt omitted without BIC',
  },
  {
    key: 'mbank-pl',
    bankName: 'mBank',
    bic: 'BREXPLPW',
    countryCode: 'PL',
    painVersion: 'pain.001.001.03',
    painVersions: V03,
    deliveryMode: 'converted-only',
    channel: 'FILE_UPLOAD',
    paymentTypes: [...SEPA_TYPES, 'PL_ELIXIR', 'PL_EXPRESS_ELIXIR', 'PL_SORBNET', 'PL_SPLIT', 'PL_TAX_US', 'PL_ZUS'],
    flavour: flavour({ charset: 'polish', instructionIdRequired: true }),
    sources: '[S32][S33]: MsgId and InstrId unique, MPP via Ustrd',
  },
  {
    key: 'pko-pl',
    bankName: 'PKO Bank Polski',
    bic: 'BPKOPLPW',
    countryCode: 'PL',
    painVersion: 'pain.001.001.03',
    painVersions: V03_09,
    deliveryMode: 'converted-only',
    channel: 'FILE_UPLOAD',
    paymentTypes: [...SEPA_TYPES, 'PL_ELIXIR', 'PL_SORBNET', 'PL_SPLIT', 'PL_TAX_US', 'PL_ZUS'],
    flavour: flavour({ charset: 'polish' }),
    sources: '[S25][S26][S76]: .09 import since Apr 2026, town + country for foreign transfers from Nov 2026',
  },
  {
    key: 'ing-pl',
    bankName: 'ING Bank Śląski',
    bic: 'INGBPLPW',
    countryCode: 'PL',
    painVersion: 'pain.001.001.03',
    painVersions: V03,
    deliveryMode: 'converted-only',
    channel: 'FILE_UPLOAD',
    paymentTypes: [...SEPA_TYPES, 'PL_ELIXIR', 'PL_SORBNET', 'PL_SPLIT', 'PL_TAX_US', 'PL_ZUS'],
    flavour: flavour({ charset: 'polish', splitPaymentLocalInstrument: { prtry: '53' } }),
    sources: '[S30][S31]: MPP trigger LclInstrm/Prtry=53 at PmtInf level',
  },
  {
    key: 'pekao-pl',
    bankName: 'Bank Pekao',
    bic: 'PKOPPLPW',
    countryCode: 'PL',
    painVersion: 'pain.001.001.03',
    painVersions: V03,
    deliveryMode: 'converted-only',
    channel: 'FILE_UPLOAD',
    paymentTypes: ['PL_ELIXIR', 'PL_SPLIT', 'SEPA_CT'],
    flavour: flavour({ charset: 'polish' }),
    unsupported: {
      reason:
        'PekaoBiznes24 imports Elixir-O (.pli) and MT100 (.pla) files, not pain.001; no XML import is documented.',
    },
    sources: '[S27]',
  },
  {
    key: 'deutsche-bank-de',
    bankName: 'Deutsche Bank',
    bic: 'DEUTDEFF',
    countryCode: 'DE',
    painVersion: 'pain.001.001.09',
    painVersions: V09,
    deliveryMode: 'host-to-host',
    channel: 'EBICS',
    paymentTypes: SEPA_TYPES,
    flavour: flavour({ charset: 'german', batchBooking: 'true' }),
    sources: '[S17][S18]: DK format .09 only since Nov 2025, EBICS',
  },
  {
    key: 'commerzbank-de',
    bankName: 'Commerzbank',
    bic: 'COBADEFF',
    countryCode: 'DE',
    painVersion: 'pain.001.001.09',
    painVersions: V09,
    deliveryMode: 'host-to-host',
    channel: 'EBICS',
    paymentTypes: SEPA_TYPES,
    flavour: flavour({ charset: 'german', batchBooking: 'true' }),
    sources: '[S17][S18]: DK format .09 only since Nov 2025, EBICS',
  },
];

const BY_KEY: ReadonlyMap<string, BankProfile> = new Map(BANK_PROFILES.map((p) => [p.key, p]));

export function findBankProfile(key: string): BankProfile | undefined {
  return BY_KEY.get(key);
}
