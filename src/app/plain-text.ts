import { badRequest } from './errors.ts';

/**
 * Control characters (C0, DEL, C1) and the Unicode line and paragraph separators. Names and labels
 * end up in e-mail headers, log lines, CSV exports and bank files, where a CR or LF splits a line and
 * lets a value forge the next one (`Evil Co\r\nBcc: ...`); no legitimate name holds one.
 */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

export const hasControlCharacters = (value: string): boolean => CONTROL.test(value);

/**
 * A one-line text a client names something with: trimmed, 1 to `max` characters, no control
 * characters. Answers 400 `bad_request` naming the field otherwise.
 */
export function plainText(value: string, field: string, max = 200): string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.length > max) {
    throw badRequest(`${field} must be 1 to ${max} characters`, { field });
  }
  if (hasControlCharacters(trimmed)) {
    throw badRequest(`${field} must not contain control characters (such as CR, LF or tab)`, { field });
  }
  return trimmed;
}
