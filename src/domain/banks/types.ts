import type { CharsetName } from '../validation/charset.ts';

/** pain.001 versions the writers produce (DESIGN.md: `.03`, `.09`; `.11` is not needed by any bank in scope). */
export const PAIN_VERSIONS = ['pain.001.001.03', 'pain.001.001.09', 'pain.001.001.11'] as const;
export type PainVersion = (typeof PAIN_VERSIONS)[number];

export function isPainVersion(value: string): value is PainVersion {
  return (PAIN_VERSIONS as readonly string[]).includes(value);
}

type DeliveryMode = 'converted-only' | 'host-to-host';
export type ChannelKind = 'FI_WS' | 'EBICS' | 'SFTP' | 'FILEACT' | 'API' | 'DEMO' | 'FILE_UPLOAD';

/** A code or proprietary value of an ISO choice element (`<Cd>` or `<Prtry>`). */
export type CodeOrProprietary = { cd: string } | { prtry: string };

type IsoEncoding = {
  serviceLevel?: string;
  localInstrument?: CodeOrProprietary;
  categoryPurpose?: string;
};

export type PaymentTypeEntry = {
  code: string;
  label: string;
  description: string;
  /** Canonical fields the type needs, `transactions[].` for per-transaction ones; `a|b` means either. */
  requires: string[];
  /** Payment channel class, e.g. SEPA, domestic clearing name, RTGS, SWIFT. */
  channel: string;
  isoEncoding: IsoEncoding;
  /** Currencies the type carries; absent means any. */
  currencies?: string[];
  /** Charge bearer the type fixes (SEPA: SLEV) or defaults to. */
  chargeBearer?: { fixed?: 'SLEV'; default?: 'SLEV' | 'SHAR' | 'DEBT' | 'CRED' };
  /** Check rule of the creditor reference, account or remittance format. */
  referenceRule?: ReferenceRule;
  accountRule?: AccountRule;
  /** Defaults filled into `creditor.account.other.scheme` and `creditor.agent.clearing` when absent. */
  creditorAccountScheme?: string;
  creditorClearing?: { systemCode: string; memberId: string };
};

type ReferenceRule =
  | 'finnish-or-rf'
  | 'kid'
  | 'ocr-optional'
  | 'fik71'
  | 'fik75'
  | 'gik04'
  | 'gik15'
  | 'no-payment-id'
  | 'pl-split'
  | 'pl-tax';
type AccountRule = 'bankgiro' | 'plusgiro' | 'fik-creditor' | 'giro-account' | 'pl-nrb' | 'pl-zus' | 'no-account';

type AddressMode = 'structured' | 'hybrid' | 'any';
type Grouping = 'per-payment' | 'per-transaction' | 'per-currency';

/** Everything a bank does differently in pain.001, as data (domain.md §2 and §8). */
export type BankFlavour = {
  /** `InitgPty/Id/OrgId/Othr/SchmeNm/Cd`: Nordea wants CUST (signer id), most others BANK. */
  initiatingPartyScheme: 'CUST' | 'BANK' | 'none';
  /** `PmtInf/BtchBookg`: written as true or false, or omitted where the bank ignores it. */
  batchBooking: 'true' | 'false' | 'omit';
  addressMode: AddressMode;
  /** Date (inter-PSP settlement) from which unstructured addresses are refused: 15 Nov 2026 for SEPA. */
  structuredAddressFrom: string;
  charset: CharsetName;
  /** `CdtrAgt` BIC: always, only outside SEPA, or never demanded. */
  creditorBicRequired: 'always' | 'non-sepa' | 'never';
  grouping: Grouping;
  currencies: string[];
  chargeBearers: Array<'SLEV' | 'SHAR' | 'DEBT' | 'CRED'>;
  /** Elements the bank refuses in PmtTpInf. */
  omitLocalInstrument?: boolean;
  omitCategoryPurpose?: boolean;
  /** Name limit (ISO 140, SEPA 70). */
  nameMaxLength: number;
  /** Ustrd limit per occurrence for this bank (Danske 4x35 written as one 140 field; Nordea SE other 105). */
  unstructuredMaxLength: number;
  /** No Ustrd next to a structured reference (Nordea SE with OCR, Nordea NO with KID). */
  noUnstructuredWithReference?: boolean;
  /** `CreDtTm` without a UTC offset (SEB). */
  creationDateTimeWithoutOffset?: boolean;
  /** InstrId must be present and unique (mBank): filled from endToEndId when missing. */
  instructionIdRequired?: boolean;
  /** Extra trigger for Polish split payment (ING: `LclInstrm/Prtry=53`). */
  splitPaymentLocalInstrument?: CodeOrProprietary;
};

export type BankProfile = {
  key: string;
  bankName: string;
  bic: string;
  countryCode: string;
  /** Default output version; `painVersions` lists every version the bank accepts. */
  painVersion: PainVersion;
  painVersions: PainVersion[];
  deliveryMode: DeliveryMode;
  channel: ChannelKind;
  paymentTypes: string[];
  /** Per-type overrides of the catalog's ISO encoding. */
  encodingOverrides?: Record<string, IsoEncoding>;
  flavour: BankFlavour;
  /**
   * How long after a submit the bank's evidence (status reports, bookings) may still arrive for a
   * payment: its lines are reconciliation candidates for that long (ANSWER_WINDOW_DAYS when absent).
   */
  answerWindowDays?: number;
  unsupported?: { reason: string };
  /** Where the knowledge comes from: source tags of domain.md, `[K]` where unverified. */
  sources: string;
};
