import { isValidIdentifierText } from './charset.ts';
import type { IssueSink } from './issue.ts';

/**
 * Text checks every level uses: length, charset with transliteration (a warning naming original and
 * replacement), identifiers. Paths are joined only when an issue is raised.
 */
export function join(base: string, key: string): string {
  return base === '' ? key : `${base}.${key}`;
}

/** MsgId, PmtInfId, EndToEndId, InstrId: Max35Text in the SEPA set without leading, trailing or double slash. */
export function checkIdentifier(sink: IssueSink, value: string, base: string, key: string, max = 35): void {
  if (value.length > max)
    sink.add('generic', 'too_long', join(base, key), `at most ${max} characters, got ${value.length}`);
  if (!isValidIdentifierText(value)) {
    sink.add(
      'generic',
      'invalid_charset',
      join(base, key),
      "identifiers use a-z A-Z 0-9 / - ? : ( ) . , ' + and space, without a leading, trailing or double slash",
    );
  }
}

/** `prefix` (e.g. `creditor.`) is joined to `key` only when an issue is raised. */
export function checkLength(sink: IssueSink, value: string, max: number, base: string, key: string, prefix = ''): void {
  if (value.length > max) {
    sink.add('generic', 'too_long', join(base, prefix + key), `at most ${max} characters, got ${value.length}`);
  }
}

export function isBlank(value: string | undefined): boolean {
  if (value === undefined || value.length === 0) return true;
  // Only all-space values need the trim; most values start with a visible character.
  return value.charCodeAt(0) <= 32 && value.trim() === '';
}
