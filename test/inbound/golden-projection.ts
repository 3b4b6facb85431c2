import type { ParseBankFileResult } from '../../src/domain/inbound/index.ts';
import type {
  Balance,
  NormalisedStatusReport,
  StatementTransaction,
  StatusTransaction,
} from '../../src/domain/inbound/types.ts';

/**
 * The reviewed contract of the inbound parsers: the normalised fields that reconciliation and users rely
 * on (amounts, dates, directions, references, counterparties, balances, statuses, warnings), projected
 * compactly from a parse result. A field that is null is left out of a transaction, so a golden lists what
 * the file carries; a change to any listed value (or a value appearing or disappearing) is a diff.
 */

/** The transaction fields kept, in the order they are written. */
const TRANSACTION_FIELDS = [
  'entryIndex',
  'direction',
  'amount',
  'currency',
  'entryAmount',
  'entryCurrency',
  'entryDirection',
  'status',
  'reversal',
  'bookingDate',
  'valueDate',
  'bankRef',
  'acctSvcrRef',
  'entryRef',
  'customerRef',
  'endToEndId',
  'instructionId',
  'transactionId',
  'paymentInfoId',
  'mandateId',
  'batch',
  'counterpartyName',
  'counterpartyIban',
  'counterpartyAccount',
  'counterpartyBic',
  'counterpartyCountry',
  'remittance',
  'additionalInfo',
  'creditorReference',
  'creditorReferenceType',
  'txCodeDomain',
  'txCodeFamily',
  'txCodeSubFamily',
  'txCodeProprietary',
  'swiftTypeCode',
  'detailsDialect',
  'originalAmount',
  'originalCurrency',
  'exchangeRate',
  'chargeAmount',
  'chargeCurrency',
  'returnReason',
] as const satisfies readonly (keyof StatementTransaction)[];

type Compact = Record<string, unknown>;

function kept<T extends object>(o: T, fields: readonly (keyof T)[]): Compact {
  const out: Compact = {};
  for (const f of fields) {
    const v = o[f];
    if (v === null || v === undefined || (f === 'reversal' && v === false)) continue;
    // The entry's direction is listed where it differs from the transaction's own.
    if (f === 'entryDirection' && v === (o as Record<string, unknown>).direction) continue;
    out[f as string] = v;
  }
  return out;
}

function balance(b: Balance | null): string | null {
  if (!b) return null;
  return `${b.type} ${b.direction === 'debit' ? '-' : ''}${b.amount} ${b.currency} ${b.date ?? '-'}`;
}

function statusTx(t: StatusTransaction): Compact {
  return kept(t, ['endToEndId', 'instructionId', 'transactionId', 'originalAmount', 'currency', 'statusCode']);
}

function report(r: NormalisedStatusReport): Compact {
  return {
    messageId: r.messageId,
    originalMessageId: r.originalMessageId,
    groupStatusCode: r.groupStatusCode,
    groupReasons: r.groupReasons.map((x) => x.code ?? x.proprietary),
    groups: r.paymentGroups.map((g) => ({
      paymentInfoId: g.paymentInfoId,
      statusCode: g.statusCode,
      reasons: g.reasons.map((x) => x.code ?? x.proprietary),
      transactions: g.transactions.map((t) => ({
        ...statusTx(t),
        reasons: t.reasons.map((x) => x.code ?? x.proprietary),
      })),
    })),
  };
}

export function goldenOf(r: ParseBankFileResult): Compact {
  if (!r.ok) return { refused: r.error.code };
  if (r.kind === 'status-report') {
    return {
      format: r.sourceFormat,
      encoding: r.encoding,
      warnings: r.warnings.map((w) => w.code),
      report: report(r.report),
    };
  }
  return {
    format: r.sourceFormat,
    encoding: r.encoding,
    alerts: r.alerts.map((a) => a.kind),
    blocks: r.blocks.map((b) => {
      if (!b.ok) return { quarantined: b.message };
      const s = b.statement;
      return {
        account: s.accountIban ?? s.accountOther,
        currency: s.accountCurrency,
        statementId: s.statementId,
        sequence: [s.sequenceNumber, s.legalSequenceNumber],
        period: [s.fromDate, s.toDate],
        opening: balance(s.openingBalance),
        closing: balance(s.closingBalance),
        balances: s.balances.map(balance),
        entryCount: s.entryCount,
        summary: `${s.entrySummary.source} C${s.entrySummary.creditCount}=${s.entrySummary.creditSum} D${s.entrySummary.debitCount}=${s.entrySummary.debitSum}`,
        warnings: b.warnings.map((w) => w.code),
        ...(s.additionalInfo === null ? {} : { info: s.additionalInfo }),
        transactions: s.transactions.map((t) => kept(t, TRANSACTION_FIELDS)),
      };
    }),
  };
}

/** One line per transaction (and per block header) keeps the golden compact and its diffs readable. */
export function goldenText(g: Compact): string {
  const lines: string[] = ['{'];
  const entries = Object.entries(g);
  entries.forEach(([k, v], i) => {
    const comma = i < entries.length - 1 ? ',' : '';
    if (k === 'blocks' && Array.isArray(v)) {
      lines.push(`  "blocks": [`);
      v.forEach((block: Compact, j) => {
        const bComma = j < v.length - 1 ? ',' : '';
        const { transactions, ...head } = block as Compact & { transactions?: Compact[] };
        if (!transactions) {
          lines.push(`    ${JSON.stringify(head)}${bComma}`);
          return;
        }
        lines.push('    {');
        for (const [hk, hv] of Object.entries(head)) lines.push(`      ${JSON.stringify(hk)}: ${JSON.stringify(hv)},`);
        if (transactions.length === 0) lines.push('      "transactions": []');
        else {
          lines.push('      "transactions": [');
          transactions.forEach((t, n) => {
            lines.push(`        ${JSON.stringify(t)}${n < transactions.length - 1 ? ',' : ''}`);
          });
          lines.push('      ]');
        }
        lines.push(`    }${bComma}`);
      });
      lines.push(`  ]${comma}`);
    } else lines.push(`  ${JSON.stringify(k)}: ${JSON.stringify(v)}${comma}`);
  });
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
