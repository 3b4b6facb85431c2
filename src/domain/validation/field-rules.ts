/**
 * The one table of field rules (issue 35): the ISO 20022 length of every free-text and identifier
 * field the service writes, and the character class it is checked against. The normaliser (how far
 * a transliteration may lengthen a text), the generic level (`too_long`, `invalid_charset`), the bank
 * level (a bank limit speaks only within the ISO one) and the fused pain.001 reader and writer all
 * read their limits from here, so the two paths cannot disagree on a length. The bank's own limits
 * (name, remittance) and charset are per profile (`BankProfile.flavour`) and read from there by both.
 *
 * Plain numeric constants rather than an object lookup: the fused path reads them once per field of
 * every transaction.
 */

/** Max140Text: names of parties and agents, unstructured remittance, instructions for the debtor agent. */
export const MAX_NAME = 140;
export const MAX_UNSTRUCTURED = 140;
/** Max70Text: a street name or an address line. */
export const MAX_STREET = 70;
export const MAX_ADDRESS_LINE = 70;
/** Max16Text: building number and post code. */
export const MAX_BUILDING = 16;
export const MAX_POST_CODE = 16;
/** Max35Text: town, country subdivision, identifiers (ids, references, schemes, issuers, member ids). */
export const MAX_TOWN = 35;
export const MAX_SUBDIVISION = 35;
export const MAX_ID = 35;

/** How a field's characters are checked: free text against the bank's charset (transliterated), ids against the SEPA set with the slash rules. */
export type FieldCharset = 'text' | 'identifier';

export type FieldRule = { path: string; max: number; charset: FieldCharset };

/**
 * The transaction fields both paths read, by their path below `payments[i].transactions[j]`: what the
 * guard test (test/domain-conversion/fused-equivalence.test.ts) spoils one by one to hold the fused
 * path to the full one.
 */
export const TRANSACTION_FIELD_RULES: readonly FieldRule[] = [
  { path: 'endToEndId', max: MAX_ID, charset: 'identifier' },
  { path: 'instructionId', max: MAX_ID, charset: 'identifier' },
  { path: 'creditor.name', max: MAX_NAME, charset: 'text' },
  { path: 'creditor.postalAddress.streetName', max: MAX_STREET, charset: 'text' },
  { path: 'creditor.postalAddress.buildingNumber', max: MAX_BUILDING, charset: 'text' },
  { path: 'creditor.postalAddress.postCode', max: MAX_POST_CODE, charset: 'text' },
  { path: 'creditor.postalAddress.townName', max: MAX_TOWN, charset: 'text' },
  { path: 'remittance.unstructured', max: MAX_UNSTRUCTURED, charset: 'text' },
];
