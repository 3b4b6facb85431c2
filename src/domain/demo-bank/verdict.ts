import type { DeliveredTransaction, Verdict } from './types.ts';

/**
 * The demo bank accepts and books every transaction except one whose unstructured remittance holds
 * `REJECT:<ISO reason code>` (DESIGN.md, Sandbox): that one is rejected with the code.
 */
const REJECT = /REJECT:([A-Z0-9]{4})/;

export function verdictFor(tx: DeliveredTransaction): Verdict {
  const code = tx.remittance ? REJECT.exec(tx.remittance)?.[1] : undefined;
  return code ? { accepted: false, code } : { accepted: true };
}
