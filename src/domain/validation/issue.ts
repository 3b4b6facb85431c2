/** A validation issue as the contract's "Validation issue" resource; codes are listed in DESIGN.md. */

export type IssueLevel = 'generic' | 'bank' | 'payment-type';
export type IssueSeverity = 'error' | 'warning';

export type ValidationIssue = {
  code: string;
  level: IssueLevel;
  severity: IssueSeverity;
  message: string;
  /** Dotted path with indices inside the submitted payment: `payments[0].transactions[1].creditor.name`. */
  path: string;
  bank: string;
  paymentType?: string;
};

/**
 * Collects issues for one validation run. Bank and payment type are stamped here so the rules only
 * name code, path and message.
 */
export class IssueSink {
  readonly issues: ValidationIssue[] = [];
  readonly bank: string;
  errorCount = 0;
  /** Paths that already carry an error, so `required` is not repeated where a wrong-typed value was dropped. */
  private readonly errorPaths = new Set<string>();

  constructor(bank: string) {
    this.bank = bank;
  }

  add(
    level: IssueLevel,
    code: string,
    path: string,
    message: string,
    paymentType?: string,
    severity: IssueSeverity = 'error',
  ): void {
    const issue: ValidationIssue = { code, level, severity, message, path, bank: this.bank };
    if (paymentType !== undefined) issue.paymentType = paymentType;
    if (severity === 'error') {
      this.errorCount++;
      this.errorPaths.add(path);
    }
    this.issues.push(issue);
  }

  hasErrorAt(path: string): boolean {
    return this.errorPaths.has(path);
  }
}

/** Issue codes used across levels, documented once. */
export const ISSUE_CODES = {
  /** A field of the minimal shape (or of a type's `requires`) is missing or empty. */
  required: 'required',
  /** A field has the wrong JSON type (a number where a string belongs, an object where an array belongs). */
  invalidType: 'invalid_type',
  invalidIban: 'invalid_iban',
  invalidBic: 'invalid_bic',
  invalidAmount: 'invalid_amount',
  amountPrecision: 'amount_precision',
  invalidCurrency: 'invalid_currency',
  invalidCountry: 'invalid_country',
  invalidDate: 'invalid_date',
  invalidCode: 'invalid_code',
  tooLong: 'too_long',
  charsetTransliterated: 'charset_transliterated',
  invalidCharset: 'invalid_charset',
  duplicateEndToEndId: 'duplicate_end_to_end_id',
  unsupportedSchemaVersion: 'unsupported_schema_version',
  unknownPaymentType: 'unknown_payment_type',
  paymentTypeRequires: 'payment_type_requires',
  invalidReference: 'invalid_reference',
  invalidAccount: 'invalid_account',
  // bank level
  bankUnsupported: 'bank_unsupported',
  painVersionUnsupported: 'pain_version_unsupported',
  paymentTypeNotOffered: 'payment_type_not_offered',
  bicRequired: 'bic_required',
  currencyNotSupported: 'currency_not_supported',
  chargeBearerNotAllowed: 'charge_bearer_not_allowed',
  addressNotStructured: 'address_not_structured',
  bankTooLong: 'bank_too_long',
  remittanceNotAllowed: 'remittance_not_allowed',
  // payment-type level
  currencyNotAllowedForType: 'payment_type_currency',
  chargeBearerForType: 'payment_type_charge_bearer',
} as const;
