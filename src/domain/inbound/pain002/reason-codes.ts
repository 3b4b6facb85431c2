/**
 * ExternalStatusReason1Code descriptions (domain.md section 4) and the TxSts/GrpSts lifecycle words.
 * Unknown codes keep their raw value with a null description; they are never dropped.
 */
export const REASON_DESCRIPTIONS: Readonly<Record<string, string>> = {
  AC01: 'Incorrect account number',
  AC02: 'Invalid debtor account number',
  AC03: 'Invalid creditor account number',
  AC04: 'Closed account number',
  AC06: 'Blocked account',
  AG01: 'Transaction forbidden',
  AG02: 'Invalid bank operation code',
  AG03: 'Transaction not supported',
  AM01: 'Zero amount',
  AM02: 'Not allowed amount',
  AM03: 'Not allowed currency',
  AM04: 'Insufficient funds',
  AM05: 'Duplication',
  AM09: 'Wrong amount',
  AM10: 'Invalid control sum',
  AM21: 'Limit exceeded',
  BE01: 'Inconsistent with end customer',
  BE04: 'Missing creditor address',
  BE05: 'Unrecognised initiating party',
  BE07: 'Missing debtor address',
  CUST: 'Requested by customer',
  DT01: 'Invalid date',
  DT06: 'Execution date changed',
  DUPL: 'Duplicate payment',
  FF01: 'Invalid file format',
  FF05: 'Invalid local instrument',
  MS02: 'Not specified reason (customer generated)',
  MS03: 'Not specified reason (agent generated)',
  NARR: 'Narrative (see additional information)',
  RC01: 'Bank identifier incorrect',
  RR01: 'Missing debtor account or identification (regulatory)',
  RR02: 'Missing debtor name or address (regulatory)',
  RR03: 'Missing creditor name or address (regulatory)',
  RR04: 'Regulatory reason',
  TM01: 'Cut-off time',
};

/** ISO status code to the lifecycle word used in the normalised report (domain.md section 4). */
export const STATUS_WORDS: Readonly<Record<string, string>> = {
  RCVD: 'received',
  ACTC: 'accepted',
  ACCP: 'accepted',
  ACFC: 'accepted',
  ACWC: 'accepted',
  ACWP: 'accepted',
  ACSP: 'executing',
  ACSC: 'executed',
  ACCC: 'executed',
  PDNG: 'pending',
  PART: 'partially_accepted',
  RJCT: 'rejected',
  CANC: 'cancelled',
};

export type StatusClass = 'accepted' | 'rejected' | 'pending';

/** Which list a transaction goes to: final rejections, acceptances (incl. executed), everything else pending. */
export function statusClass(code: string | null): StatusClass {
  switch (code) {
    case 'RJCT':
    case 'CANC':
      return 'rejected';
    case 'ACTC':
    case 'ACCP':
    case 'ACFC':
    case 'ACWC':
    case 'ACWP':
    case 'ACSP':
    case 'ACSC':
    case 'ACCC':
      return 'accepted';
    default:
      return 'pending';
  }
}
