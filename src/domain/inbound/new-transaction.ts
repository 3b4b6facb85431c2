import type { Direction, ReferredDocument, StatementTransaction } from './types.ts';

// Shared and frozen: most transactions refer to no document, and an array each would cost memory at 100k entries.
const NO_DOCUMENTS = Object.freeze([]) as unknown as ReferredDocument[];

/**
 * Every transaction is created here with all fields in one order, so camt and MT940 transactions share
 * one object shape (fast property access, predictable JSON) and an absent value is always null.
 */
export function newTransaction(
  entryIndex: number,
  currency: string,
  direction: Direction,
  entryAmount: string,
): StatementTransaction {
  return {
    entryIndex,
    bankRef: null,
    acctSvcrRef: null,
    entryRef: null,
    endToEndId: null,
    instructionId: null,
    transactionId: null,
    paymentInfoId: null,
    mandateId: null,
    amount: null,
    currency,
    direction,
    entryAmount,
    entryCurrency: currency,
    entryDirection: direction,
    batch: null,
    reversal: false,
    status: 'booked',
    bookingDate: null,
    valueDate: null,
    counterpartyName: null,
    counterpartyIban: null,
    counterpartyAccount: null,
    counterpartyBic: null,
    counterpartyCountry: null,
    counterpartyAddress: null,
    remittance: null,
    creditorReference: null,
    creditorReferenceType: null,
    referredDocuments: NO_DOCUMENTS,
    txCodeDomain: null,
    txCodeFamily: null,
    txCodeSubFamily: null,
    txCodeProprietary: null,
    originalCurrency: null,
    originalAmount: null,
    exchangeRate: null,
    chargeAmount: null,
    chargeCurrency: null,
    returnReason: null,
    additionalInfo: null,
    customerRef: null,
    detailsDialect: null,
    swiftTypeCode: null,
  };
}
