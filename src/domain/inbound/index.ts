/**
 * Inbound bank files: camt.052/053/054, pain.002 and MT940/MT942 parsed into one normalised shape.
 * Pure domain code: no I/O, no clock, no randomness; never throws (a bug is reported as a typed error).
 *
 *   parseBankFile(input: Uint8Array | string, opts?: { maxBytes?, maxDepth?, onTransaction? }): ParseBankFileResult
 *
 * `onTransaction(t, blockIndex)` streams a large statement: each transaction is handed over as it is read
 * and not collected (`statement.transactions` stays empty); a block that fails later is reported failed,
 * and the consumer drops what it received for it.
 *
 * Bytes are decoded here (BOM, XML encoding declaration, strict UTF-8, else a Windows-1250 /
 * ISO-8859-2 / Windows-1252 guess; the Swedish 7-bit MT variant is undone); a string is taken as is.
 *
 * Result (discriminated by `ok`, then `kind`):
 *   { ok: true, kind: 'statement', format: 'camt.052'|'camt.053'|'camt.054'|'mt940'|'mt942',
 *     sourceFormat: 'camt.053.001.08' | 'MT940' | ..., encoding,
 *     blocks: [ { index, ok: true, account, statement: NormalisedStatement, warnings: IntegrityWarning[] }
 *             | { index, ok: false, account, message } ],      one per Stmt/Rpt/Ntfctn or :20: message
 *     alerts: FileAlert[] }                                     e.g. incomplete_file with unclosedBlockCount,
 *                                                               survivingStatementCount
 *   { ok: true, kind: 'status-report', format: 'pain.002', sourceFormat, encoding,
 *     report: NormalisedStatusReport, warnings }
 *   { ok: false, error: { code: 'empty' | 'unrecognised_format' | 'unparseable_file' | 'too_large', message } }
 *
 * A file whose every block failed is `unparseable_file` (message lists each block's reason); a file
 * where some blocks failed is ok with those blocks `ok: false` (the journal's "quarantined", HTTP 207).
 * Suggested HTTP mapping: empty / unrecognised_format -> 400, unparseable_file -> 422, too_large -> 413.
 * A transaction's `direction` is its own (camt TxDtls/CdtDbtInd, else the entry's); `entryDirection` is the
 * entry's, the one balances and entry sums use. They differ in batches that net credits and debits.
 * Integrity warnings (balance_mismatch, summary_mismatch, sequence_gap, sequence_duplicate, ...) never
 * change the outcome; they travel with their statement.
 *
 * `statementsOf(result)` gives the parsed statements for POST /inbound/statement's `{ items }`.
 */
// Types used by callers today; the rest of the contract (StatementBlock, FileAlert, IntegrityWarning,
// StatusTransaction, ...) lives in ./types.ts and is re-exported here as the journal starts using it.

/** Bytes of a bank file to text, detecting its encoding (for callers that journal the text). */
export { decodeBytes } from './decode-text.ts';
export { parseBankFile } from './parse-bank-file.ts';
export { statementsOf } from './statements-of.ts';
export type {
  NormalisedStatement,
  NormalisedStatusReport,
  ParseBankFileResult,
  ParseError,
  StatementTransaction,
} from './types.ts';
