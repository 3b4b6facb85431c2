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

/*
 * Issue codes, stable snake_case (DESIGN.md):
 * generic       required, invalid_type (wrong JSON type), invalid_iban, invalid_bic, invalid_amount,
 *               amount_precision, invalid_currency, invalid_country, invalid_date, invalid_code, too_long,
 *               charset_transliterated (warning), invalid_charset, duplicate_end_to_end_id,
 *               unsupported_schema_version, schema_invalid (validate=true)
 * bank          bank_unsupported, pain_version_unsupported, payment_type_not_offered, bic_required,
 *               currency_not_supported, charge_bearer_not_allowed, address_not_structured, bank_too_long,
 *               remittance_not_allowed, regulatory_reporting_required (NO/SE cross-border thresholds),
 *               batch_booking_not_allowed (batchBooking asked of a bank whose profile writes no BtchBookg)
 * payment-type  unknown_payment_type, payment_type_requires, payment_type_currency,
 *               payment_type_charge_bearer, invalid_reference, invalid_account, invalid_amount (VAT > gross)
 */
