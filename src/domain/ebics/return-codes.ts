/**
 * EBICS return codes (Annex 1) and how the channel treats each: `ok` codes end a step normally;
 * `retryable` ones may heal by themselves (the bank's internal error, a transaction to recover);
 * `permanent` ones need a person (keys, permissions, a refused file). The code's symbolic name is
 * what EBICS prints in ReportText; our own text says what it means for the user.
 */
export type ReturnClass = 'ok' | 'retryable' | 'permanent';
export type ReturnCodeInfo = { name: string; class: ReturnClass; meaning: string };

export const RETURN_CODES: Record<string, ReturnCodeInfo> = {
  '000000': { name: 'EBICS_OK', class: 'ok', meaning: 'done' },
  '011000': { name: 'EBICS_DOWNLOAD_POSTPROCESS_DONE', class: 'ok', meaning: 'the receipt was taken' },
  '011001': { name: 'EBICS_DOWNLOAD_POSTPROCESS_SKIPPED', class: 'ok', meaning: 'the negative receipt was taken' },
  '011101': { name: 'EBICS_TX_SEGMENT_NUMBER_UNDERRUN', class: 'ok', meaning: 'fewer segments than announced' },
  '031001': { name: 'EBICS_ORDER_PARAMS_IGNORED', class: 'ok', meaning: 'unsupported order parameters were ignored' },
  '061001': {
    name: 'EBICS_AUTHENTICATION_FAILED',
    class: 'permanent',
    meaning: 'the bank could not verify our authentication signature',
  },
  '061002': { name: 'EBICS_INVALID_REQUEST', class: 'permanent', meaning: 'the request is not valid EBICS' },
  '061099': { name: 'EBICS_INTERNAL_ERROR', class: 'retryable', meaning: 'the bank had an internal error' },
  '061101': {
    name: 'EBICS_TX_RECOVERY_SYNC',
    class: 'retryable',
    meaning: 'the transaction resumes at the segment the bank names',
  },
  '091002': {
    name: 'EBICS_INVALID_USER_OR_USER_STATE',
    class: 'permanent',
    meaning: 'the subscriber is unknown or not ready at the bank',
  },
  '091003': { name: 'EBICS_USER_UNKNOWN', class: 'permanent', meaning: 'the bank does not know the subscriber' },
  '091004': {
    name: 'EBICS_INVALID_USER_STATE',
    class: 'permanent',
    meaning: 'the subscriber is not ready for this order at the bank',
  },
  '091005': { name: 'EBICS_INVALID_ORDER_IDENTIFIER', class: 'permanent', meaning: 'the order type is not valid' },
  '091006': {
    name: 'EBICS_UNSUPPORTED_ORDER_TYPE',
    class: 'permanent',
    meaning: 'the bank does not support the order type',
  },
  '091008': {
    name: 'EBICS_BANK_PUBKEY_UPDATE_REQUIRED',
    class: 'permanent',
    meaning: 'the bank changed its keys: fetch them with HPB and confirm them',
  },
  '091009': { name: 'EBICS_SEGMENT_SIZE_EXCEEDED', class: 'permanent', meaning: 'a segment is larger than 1 MB' },
  '091010': {
    name: 'EBICS_INVALID_XML',
    class: 'permanent',
    meaning: 'the request is not valid against the EBICS schema',
  },
  '091011': { name: 'EBICS_INVALID_HOST_ID', class: 'permanent', meaning: 'the bank does not know the host id' },
  '091101': { name: 'EBICS_TX_UNKNOWN_TXID', class: 'permanent', meaning: 'the bank does not know the transaction' },
  '091102': { name: 'EBICS_TX_ABORT', class: 'retryable', meaning: 'the bank aborted the transaction' },
  '091103': {
    name: 'EBICS_TX_MESSAGE_REPLAY',
    class: 'retryable',
    meaning: "the nonce was used before or the timestamp is outside the bank's window",
  },
  '091104': { name: 'EBICS_TX_SEGMENT_NUMBER_EXCEEDED', class: 'permanent', meaning: 'more segments than announced' },
  '091112': { name: 'EBICS_INVALID_ORDER_PARAMS', class: 'permanent', meaning: 'the order parameters are not valid' },
  '091113': { name: 'EBICS_INVALID_REQUEST_CONTENT', class: 'permanent', meaning: 'the request content is not valid' },
  '091117': {
    name: 'EBICS_MAX_ORDER_DATA_SIZE_EXCEEDED',
    class: 'permanent',
    meaning: 'the file is larger than the bank takes',
  },
  '091118': {
    name: 'EBICS_MAX_SEGMENTS_EXCEEDED',
    class: 'permanent',
    meaning: 'the file has more segments than the bank takes',
  },
  '091119': {
    name: 'EBICS_MAX_TRANSACTIONS_EXCEEDED',
    class: 'retryable',
    meaning: 'too many open transactions at the bank',
  },
  '091120': {
    name: 'EBICS_PARTNER_ID_MISMATCH',
    class: 'permanent',
    meaning: 'the partner id of the signature is not the one of the request',
  },
  '091121': {
    name: 'EBICS_INCOMPATIBLE_ORDER_ATTRIBUTE',
    class: 'permanent',
    meaning: 'the order attributes do not fit the order',
  },
  '091219': {
    name: 'EBICS_CERTIFICATES_VALIDATION_ERROR',
    class: 'permanent',
    meaning: 'the bank refused a certificate',
  },
  '090003': {
    name: 'EBICS_AUTHORISATION_ORDER_IDENTIFIER_FAILED',
    class: 'permanent',
    meaning: 'the subscriber may not send this order',
  },
  '090004': {
    name: 'EBICS_INVALID_ORDER_DATA_FORMAT',
    class: 'permanent',
    meaning: 'the file is not in the announced format',
  },
  '090005': { name: 'EBICS_NO_DOWNLOAD_DATA_AVAILABLE', class: 'ok', meaning: 'nothing to download' },
  '090006': {
    name: 'EBICS_UNSUPPORTED_REQUEST_FOR_ORDER_INSTANCE',
    class: 'permanent',
    meaning: 'the request is not supported for this order',
  },
  '091301': {
    name: 'EBICS_SIGNATURE_VERIFICATION_FAILED',
    class: 'permanent',
    meaning: 'the bank could not verify the electronic signature (A006)',
  },
  '091302': {
    name: 'EBICS_ACCOUNT_AUTHORISATION_FAILED',
    class: 'permanent',
    meaning: 'the subscriber may not use the account',
  },
  '091303': {
    name: 'EBICS_AMOUNT_CHECK_FAILED',
    class: 'permanent',
    meaning: "the amount exceeds the subscriber's limit",
  },
  '091304': { name: 'EBICS_SIGNER_UNKNOWN', class: 'permanent', meaning: 'the signer is not known' },
  '091305': { name: 'EBICS_INVALID_SIGNER_STATE', class: 'permanent', meaning: 'the signer is not in a state to sign' },
  '091306': {
    name: 'EBICS_DUPLICATE_SIGNATURE',
    class: 'permanent',
    meaning: 'the signer has signed this order already',
  },
};

/** How a code is treated: unknown 09xxxx and 06xxxx codes are errors (09 permanent, 06 retryable), 0[0-3] warnings pass. */
export function returnCodeInfo(code: string): ReturnCodeInfo {
  const known = RETURN_CODES[code];
  if (known) return known;
  if (/^0[0-3]\d{4}$/.test(code)) return { name: `EBICS_${code}`, class: 'ok', meaning: 'a warning' };
  if (/^06\d{4}$/.test(code))
    return { name: `EBICS_${code}`, class: 'retryable', meaning: 'a technical error at the bank' };
  return { name: `EBICS_${code}`, class: 'permanent', meaning: 'the bank refused the order' };
}

/** The pair to answer with, by symbolic name (the simulator's side). */
export function returnCode(name: string): { code: string; text: string } {
  const entry = Object.entries(RETURN_CODES).find(([, v]) => v.name === name);
  if (!entry) throw new Error(`unknown EBICS return code ${name}`);
  return { code: entry[0], text: `[${entry[1].name}] ${entry[1].meaning}` };
}
