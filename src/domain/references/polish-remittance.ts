import { isValidNip } from './polish.ts';

/**
 * Polish remittance formats carried in Ustrd.
 * Split payment (MPP, Elixir "komunikat"): `/VAT/<10n,2n>/IDC/<≤14>/INV/<≤35>/TXT/<≤33>`, comma decimal.
 * Tax payment: `/TI/<type><id>/OKR/<period>/SFP/<form>/TXT/<text>`.
 */

export type SplitFields = { vatAmount: string; taxId: string; invoiceNumber: string; text?: string };

/** "23.00" -> "23,00" as MPP wants; the amount was already checked against PLN precision. */
export function formatSplitPayment(f: SplitFields): string {
  const vat = f.vatAmount.includes('.') ? f.vatAmount.replace('.', ',') : `${f.vatAmount},00`;
  const text = f.text ? `/TXT/${f.text}` : '';
  return `/VAT/${vat}/IDC/${f.taxId}/INV/${f.invoiceNumber}${text}`;
}

export type FormatCheck = { ok: true } | { ok: false; reason: string };

const SPLIT = /^\/VAT\/(\d{1,10}),(\d{2})\/IDC\/([^/]{1,14})\/INV\/([^/]{1,35})(?:\/TXT\/([^/]{0,33}))?$/;

export function checkSplitPaymentText(text: string): FormatCheck {
  const m = SPLIT.exec(text);
  if (!m) return { ok: false, reason: 'expected /VAT/<amount 10n,2n>/IDC/<tax id>/INV/<invoice>[/TXT/<text>]' };
  return { ok: true };
}

/** Identifier types of the tax transfer: N NIP, R REGON, 1 PESEL, 2 id card, 3 passport, 4 other. */
const TAX = /^\/TI\/([NR1234])([A-Z0-9]{1,14})\/OKR\/(\d{2}[A-Z]\d{0,4})\/SFP\/([A-Z0-9-]{1,7})(?:\/TXT\/(.{0,40}))?$/;

export function checkTaxPaymentText(text: string): FormatCheck {
  const m = TAX.exec(text);
  if (!m) return { ok: false, reason: 'expected /TI/<type><id>/OKR/<period>/SFP/<form>[/TXT/<text>]' };
  if (m[1] === 'N' && !isValidNip(m[2] ?? '')) return { ok: false, reason: 'the NIP in /TI/ fails its check digit' };
  return { ok: true };
}
