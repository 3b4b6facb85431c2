import type { StatementTransaction } from '../types.ts';

/**
 * Dutch layouts that write the counterparty as the head of a free-text :86: (docs/bank-file-dialects.md
 * §7). Each moves the counterparty out of the remittance into its fields, so every character of the
 * :86: still lands in exactly one field. Returns a note when a value had to be guessed, else null.
 *
 * - de Volksbank (ASN, SNS, RegioBank): :61: writes the counterparty account as the reference and its
 *   name as the supplementary details, and :86: repeats both ("NL29INGB0006475121 j blom", then the
 *   description). The repetition is the evidence: nothing is taken unless :86: opens with the account.
 * - ABN AMRO before SEPA: :86: opens with "GIRO" and a giro number or a dotted bank account
 *   ("64.45.12.113"), then the name in the rest of the first 32-column line.
 * - ING before SEPA (the layout with two-letter :61: codes, "NOV NONREF"): :86: opens with the
 *   counterparty's 9- or 10-digit account; the name runs on into the text, so it is not split.
 */
export function legacyParty(t: StatementTransaction, raw: string, paddedTypeCode: boolean): string | null {
  const rem = t.remittance as string;
  const ref = t.customerRef;
  if (ref !== null && rem.length > ref.length && rem.startsWith(ref) && rem[ref.length] === ' ' && ACCOUNT.test(ref)) {
    volksbank(t, rem, ref);
    return null;
  }
  const c = rem.charCodeAt(0);
  if (c === 71 /* G */ || (c >= 48 && c <= 57)) {
    const head = raw.replace(/^\s+/, '');
    const abn = ABN_HEAD.exec(head);
    if (abn) return abnAmro(t, head, abn);
    if (paddedTypeCode && t.counterpartyAccount === null) {
      const ing = ING_HEAD.exec(head);
      if (ing) {
        t.counterpartyAccount = ing[1] as string;
        t.remittance = flat(head.slice(ing[0].length));
      }
    }
  }
  return null;
}

const IBAN = /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/;
// A counterparty account as de Volksbank writes it: an IBAN, or a national number of 7-10 digits.
const ACCOUNT = /^(?:[A-Z]{2}\d{2}[A-Z0-9]{10,30}|\d{7,10})$/;

function volksbank(t: StatementTransaction, rem: string, ref: string): void {
  let rest = rem.slice(ref.length + 1);
  const name = t.additionalInfo;
  if (name !== null && rest.startsWith(name) && (rest.length === name.length || rest[name.length] === ' ')) {
    rest = rest.slice(name.length);
    t.counterpartyName = name;
    t.additionalInfo = null;
  }
  t.counterpartyAccount = ref;
  if (IBAN.test(ref)) t.counterpartyIban = ref;
  t.customerRef = null;
  t.remittance = rest.trim() === '' ? null : rest.trim();
}

// "GIRO" + up to 9 positions of giro number, or a 9-digit account written "64.45.12.113"; then spaces.
const ABN_HEAD = /^(?:GIRO +(\d{1,9})|(\d{2}\.\d{2}\.\d{2}\.\d{3}))( +)/;
// ING's pre-SEPA account: 9 or 10 digits (a bank account) or a giro number, then a space.
const ING_HEAD = /^(\d{9,10}) /;

function abnAmro(t: StatementTransaction, head: string, m: RegExpExecArray): string | null {
  t.counterpartyAccount = m[1] ?? (m[2] as string).replaceAll('.', '');
  let from = m[0].length;
  const nl = head.indexOf('\n');
  const lineEnd = nl < 0 ? head.length : nl;
  // The name is the rest of the first column: it ends at a run of two spaces (the next column) or the line.
  const gap = (m[3] as string).length;
  let to = head.indexOf('  ', from);
  if (to < 0 || to > lineEnd) to = lineEnd;
  const name = head.slice(from, to).replace(/\r$/, '').trim();
  let note: string | null = null;
  if (name !== '') {
    t.counterpartyName = name;
    from = to;
    // A name after a wide gap sits in the second column: the layout's own place for it is the first.
    if (gap > 1) note = `the counterparty name "${name}" was taken from the second column`;
  }
  t.remittance = flat(head.slice(from));
  return note;
}

/** Free text's join: lines with one space, trimmed; null when nothing is left. */
function flat(s: string): string | null {
  const v = s.replace(/\s*\r?\n\s*/g, ' ').trim();
  return v === '' ? null : v;
}
