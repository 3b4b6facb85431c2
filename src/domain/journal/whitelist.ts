/**
 * The Polish VAT white list ("Wykaz podatników VAT", domain.md §6.1) as the preview uses it: which
 * (NIP, NRB) pairs of a payment to check, the deterministic sandbox registry, and the outcome.
 * Pure: the HTTP client lives in src/app/journal/whitelist-client.ts.
 */
export type WhitelistStatus = 'assigned' | 'not-assigned' | 'error';
export type WhitelistOutcome = 'not-applicable' | 'verified' | 'unverified' | 'error';

export type WhitelistCheck = {
  nip: string;
  nrb: string;
  date: string;
  status: WhitelistStatus;
  requestId: string | null;
  error: string | null;
};

export type WhitelistQuery = { nip: string; nrb: string; date: string };

const NIP_WEIGHTS = [6, 5, 7, 2, 3, 4, 5, 6, 7];

/** A Polish NIP (10 digits, mod-11 check digit) from "PL123-456-32-18" style input, else undefined. */
export function normaliseNip(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const digits = value.trim().replace(/^PL/i, '').replace(/[\s-]/g, '');
  if (!/^\d{10}$/.test(digits)) return undefined;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(digits[i]) * (NIP_WEIGHTS[i] ?? 0);
  const check = sum % 11;
  return check !== 10 && check === Number(digits[9]) ? digits : undefined;
}

/** The 26-digit NRB of a Polish IBAN (PLkk + 24 digits is the NRB with its own check digits). */
function nrbOf(iban: unknown): string | undefined {
  if (typeof iban !== 'string') return undefined;
  const e = iban.replace(/\s+/g, '').toUpperCase();
  return /^PL\d{26}$/.test(e) ? e.slice(2) : undefined;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * The checks a payment calls for: one per distinct (NIP, NRB) of a transaction paying a Polish
 * account with a Polish tax id, taken from splitPayment.taxId (the supplier's NIP, IDC) or else from
 * the creditor's organisationId when it is a valid NIP. `date` is the order date (today): the
 * register answers for past and present dates only.
 */
export function whitelistQueries(payment: unknown, today: string): WhitelistQuery[] {
  const seen = new Set<string>();
  const out: WhitelistQuery[] = [];
  for (const p of list(rec(payment)?.['payments'])) {
    for (const t of list(rec(p)?.['transactions'])) {
      const tx = rec(t);
      const creditor = rec(tx?.['creditor']);
      const nip =
        normaliseNip(rec(tx?.['splitPayment'])?.['taxId']) ?? normaliseNip(rec(creditor?.['organisationId'])?.['id']);
      const nrb = nrbOf(rec(creditor?.['account'])?.['iban']);
      if (nip === undefined || nrb === undefined) continue;
      const key = `${nip}/${nrb}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ nip, nrb, date: today });
    }
  }
  return out;
}

/**
 * The sandbox's local register, deterministic so tests and demos need no network: a NIP whose last
 * digit is even has every account assigned, an odd one none.
 */
export function sandboxWhitelistCheck(q: WhitelistQuery): WhitelistCheck {
  const assigned = Number(q.nip.at(-1)) % 2 === 0;
  return {
    ...q,
    status: assigned ? 'assigned' : 'not-assigned',
    requestId: `sandbox-${q.nip.slice(-4)}-${q.nrb.slice(-4)}`,
    error: null,
  };
}

/**
 * not-applicable without checks; unverified when any account is not on the list (that is the
 * finding that matters even if another check failed); error when a check could not be made;
 * verified when every account is assigned.
 */
export function whitelistOutcome(checks: readonly WhitelistCheck[]): WhitelistOutcome {
  if (checks.length === 0) return 'not-applicable';
  if (checks.some((c) => c.status === 'not-assigned')) return 'unverified';
  if (checks.some((c) => c.status === 'error')) return 'error';
  return 'verified';
}
