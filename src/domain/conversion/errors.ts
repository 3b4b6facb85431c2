/** Failures of a conversion request itself (not of the payment): routes map them to 404 and 400. */
export type ConversionError =
  | { code: 'unknown_bank'; status: 404; message: string; bankKey: string }
  | { code: 'unknown_pain_version'; status: 400; message: string; painVersion: string; allowed: string[] };
