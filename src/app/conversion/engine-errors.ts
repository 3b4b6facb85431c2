import type { ConversionError, ValidationIssue } from '../../domain/conversion/index.ts';
import { AppError } from '../errors.ts';

/** The engine's request errors as HTTP-facing errors: unknown bank 404, unknown painVersion 400. */
export function engineError(error: ConversionError): AppError {
  if (error.code === 'unknown_bank') return new AppError('not_found', error.message, { bankKey: error.bankKey });
  return new AppError('unsupported_pain_version', error.message, {
    painVersion: error.painVersion,
    allowed: error.allowed,
  });
}

/** 422 with every issue at once (contract: Errors). */
export function validationFailed(issues: ValidationIssue[], extra: Record<string, unknown> = {}): AppError {
  const errors = issues.filter((i) => i.severity === 'error').length;
  return new AppError('invalid_payment', `the payment has ${errors} error(s)`, { issues, ...extra });
}
