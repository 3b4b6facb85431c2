import { createHash } from 'node:crypto';

/**
 * The EPC SEPA Credit Transfer implementation guidelines (EPC132-08, AT-41) have the originator write
 * `NOTPROVIDED` as the end-to-end id of a transaction that has no reference of its own, so several
 * transactions of one message may share it. Reconciliation then needs another id per transaction: where
 * the client gave no `instructionId`, one is generated, the same for the same message, payment and
 * transaction index (the engine writes it as `InstrId`, the journal keeps it on the line, and the bank
 * quotes it back in camt `Refs/InstrId` and pain.002 `OrgnlInstrId`).
 */
export const NOT_PROVIDED = 'NOTPROVIDED';

/** "NP" + 32 hex digits of SHA-256 over the message id and the indexes: Max35Text, SEPA characters. */
export function generatedInstructionId(messageId: string, paymentIndex: number, transactionIndex: number): string {
  const digest = createHash('sha256')
    .update(`${messageId}\u0000${paymentIndex}\u0000${transactionIndex}`)
    .digest('hex');
  return `NP${digest.slice(0, 32).toUpperCase()}`;
}
