/**
 * The canonical payment of the contract (spec/interface.md "Canonical payment", "Payment", "Party",
 * "Transaction"), with the inner objects DESIGN.md decides. Every field is optional in the type because
 * the normaliser keeps whatever well-typed data arrived; which fields are required is a validation
 * question (the `required` issue), not a parsing one.
 */

export const CURRENT_SCHEMA_VERSION = '1.0';
export const SCHEMA_VERSIONS: readonly string[] = ['1.0'];

export type OrganisationId = { id?: string; scheme?: string; issuer?: string };

export type PostalAddress = {
  streetName?: string;
  buildingNumber?: string;
  postCode?: string;
  townName?: string;
  countrySubDivision?: string;
  addressLines?: string[];
};

/** `account.other`: a non-IBAN account such as a Bankgiro (scheme BGNR) or a BBAN. */
export type OtherAccount = { id?: string; scheme?: string; issuer?: string };

export type Account = { iban?: string; currency?: string; other?: OtherAccount };

export type Clearing = { systemCode?: string; memberId?: string };

export type Agent = { bic?: string; clearing?: Clearing; name?: string; country?: string };

export type Party = {
  name?: string;
  country?: string;
  postalAddress?: PostalAddress;
  account?: Account;
  agent?: Agent;
  organisationId?: OrganisationId;
};

export type ReferredDocument = { type?: string; number?: string; relatedDate?: string; amount?: string };

export type Remittance = {
  unstructured?: string;
  creditorReference?: string;
  /** SCOR for an ISO 11649 RF reference, or a national scheme: FI, KID, OCR, FIK. */
  creditorReferenceType?: string;
  referredDocuments?: ReferredDocument[];
};

/** Polish split payment (MPP): the gross amount is the transaction amount. */
export type SplitPayment = { vatAmount?: string; invoiceNumber?: string; taxId?: string; text?: string };

export type RegulatoryReporting = {
  code?: string;
  amount?: string;
  currency?: string;
  information?: string;
  authorityCountry?: string;
};

export type Transaction = {
  endToEndId?: string;
  instructionId?: string;
  amount?: string;
  currency?: string;
  creditor?: Party;
  ultimateDebtor?: Party;
  ultimateCreditor?: Party;
  instructionForDebtorAgent?: string;
  remittance?: Remittance;
  purposeCode?: string;
  regulatoryReporting?: RegulatoryReporting;
  splitPayment?: SplitPayment;
};

export type Payment = {
  paymentId?: string;
  paymentType?: string;
  priority?: string;
  chargeBearer?: string;
  localInstrument?: string;
  categoryPurpose?: string;
  executionDate?: string;
  /** PmtInf/BtchBookg asked for: one debit for the payment (true) or one per transaction (false). */
  batchBooking?: boolean;
  debtor?: Party;
  ultimateDebtor?: Party;
  transactions: Transaction[];
};

export type InitiatingParty = { name?: string; organisationId?: OrganisationId };

export type CanonicalPayment = {
  schemaVersion: string;
  messageId?: string;
  creationDateTime?: string;
  initiatingParty?: InitiatingParty;
  payments: Payment[];
};

/** ISO codes DESIGN.md fixes for the fields the contract leaves open. */
export const PRIORITIES: readonly string[] = ['NORM', 'HIGH'];
export const CHARGE_BEARERS: readonly string[] = ['SLEV', 'SHAR', 'DEBT', 'CRED'];
export type ChargeBearer = 'SLEV' | 'SHAR' | 'DEBT' | 'CRED';
