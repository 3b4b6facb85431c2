/**
 * Every column holding a value sealed by the Encryptor (`<keyId>:<iv>:<tag>:<ciphertext>`), with the
 * primary key `rekey` pages by. A new sealed column is named `<what>_sealed` and added here: a test
 * (test/operations/sealed-columns.test.ts) fails while a `*_sealed` column of the schema, or a
 * sealed-looking value in any other column, is not listed, so `rekey` never leaves one behind.
 */
export type SealedColumn = { table: string; key: string; column: string };

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'journal_documents', key: 'id', column: 'payload_sealed' },
  { table: 'journal_documents', key: 'id', column: 'file_sealed' },
  { table: 'conversion_jobs', key: 'id', column: 'request_sealed' },
  { table: 'conversion_jobs', key: 'id', column: 'result_sealed' },
  { table: 'connections', key: 'id', column: 'channel_sealed' },
  { table: 'connections', key: 'id', column: 'signing_cert_sealed' },
  { table: 'connections', key: 'id', column: 'client_key_sealed' },
  { table: 'connections', key: 'id', column: 'sandbox_activation_sealed' },
  { table: 'connections', key: 'id', column: 'ebics_keys_sealed' },
  { table: 'connections', key: 'id', column: 'ebics_bank_keys_sealed' },
  { table: 'connections', key: 'id', column: 'ebics_pending_bank_keys_sealed' },
  { table: 'webhook_endpoints', key: 'id', column: 'secret_sealed' },
  { table: 'webhook_endpoints', key: 'id', column: 'previous_secret_sealed' },
  { table: 'user_two_factor', key: 'user_id', column: 'secret_sealed' },
  { table: 'webhook_endpoints', key: 'id', column: 'url_sealed' },
];

export const sealedColumnName = (c: SealedColumn) => `${c.table}.${c.column}`;
