import { compareDecimal, type Decimal, parsePlainDecimal, ZERO } from '../money/decimal.ts';

/**
 * Maker-checker policy matching at submit (DESIGN.md, Identity): a policy matches a document when it
 * is enabled, its environment is the document's or `any`, its bank list (when set) names the bank,
 * and, in its currency (or in any currency of the document when it names none), the document total
 * or its largest transaction reaches `minAmount`. Amounts are compared exactly as decimals scaled to
 * a common exponent, never as floats.
 */
export type PolicyForMatch = {
  id: string;
  enabled: boolean;
  environment: string;
  currency: string | null;
  minAmount: string;
  bankKeys: string[] | null;
  rules: { requiredApprovals: number };
};

export type DocumentForMatch = {
  environment: string;
  bankKey: string;
  /** One entry per transaction: minor units at the currency's exponent. */
  lines: ReadonlyArray<{ currency: string; amountMinor: bigint; exponent: number }>;
};

/** An unsigned plain decimal; undefined otherwise (a signed minAmount is malformed). */
function unsignedDecimal(text: string): Decimal | undefined {
  const t = text.trim();
  return /^\d/.test(t) ? parsePlainDecimal(t) : undefined;
}

/** Per currency: the total and the largest transaction, in minor units. */
export function amountsByCurrency(lines: DocumentForMatch['lines']) {
  const by = new Map<string, { total: bigint; largest: bigint; exponent: number }>();
  for (const l of lines) {
    const cur = by.get(l.currency) ?? { total: 0n, largest: 0n, exponent: l.exponent };
    cur.total += l.amountMinor;
    if (l.amountMinor > cur.largest) cur.largest = l.amountMinor;
    by.set(l.currency, cur);
  }
  return by;
}

export function policyMatches(policy: PolicyForMatch, doc: DocumentForMatch): boolean {
  if (!policy.enabled) return false;
  if (policy.environment !== 'any' && policy.environment !== doc.environment) return false;
  if (policy.bankKeys && policy.bankKeys.length > 0 && !policy.bankKeys.includes(doc.bankKey)) return false;
  // A malformed minAmount matches everything: a policy must never be bypassed by a typo.
  const min = unsignedDecimal(policy.minAmount) ?? ZERO;
  for (const [currency, a] of amountsByCurrency(doc.lines)) {
    if (policy.currency && policy.currency.toUpperCase() !== currency) continue;
    const total = { units: a.total, scale: a.exponent };
    const largest = { units: a.largest, scale: a.exponent };
    if (compareDecimal(total, min) >= 0 || compareDecimal(largest, min) >= 0) return true;
  }
  return false;
}

/**
 * The one policy that applies (DESIGN.md, Approvals): among the matching ones, the highest `minAmount`,
 * then the most `requiredApprovals`, then the oldest (`policies` come oldest first); undefined when none
 * matches.
 */
export function matchPolicy<P extends PolicyForMatch>(policies: readonly P[], doc: DocumentForMatch): P | undefined {
  let best: P | undefined;
  for (const p of policies) {
    if (!policyMatches(p, doc)) continue;
    if (best === undefined || outranks(p, best)) best = p;
  }
  return best;
}

/** Whether `a` wins over `b`, an older policy: a strictly higher minAmount, or equal and more approvals. */
function outranks(a: PolicyForMatch, b: PolicyForMatch): boolean {
  const order = compareDecimal(unsignedDecimal(a.minAmount) ?? ZERO, unsignedDecimal(b.minAmount) ?? ZERO);
  if (order !== 0) return order > 0;
  return a.rules.requiredApprovals > b.rules.requiredApprovals;
}
