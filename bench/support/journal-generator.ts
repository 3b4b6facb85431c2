/**
 * Builds a company's journal at scale for the read benchmarks and the plan test: documents with their
 * payment lines, audit events (a valid hash chain), bank accounts and statement summaries, streamed
 * into PostgreSQL with COPY in chunks (one COPY per table per chunk), so a million documents take
 * minutes, not hours. Deterministic: the same options give the same rows.
 *
 * The mix is that of a company paying about 2,000 suppliers a day over `days` days:
 * - 80 % outbound pain.001 (1 to 20 transactions, 2.4 on average), settled long ago except the newest
 *   2,000 (pending approval, converted or sent); settled ones executed (97 %), rejected (2 %) or
 *   cancelled (1 %); summaries as the submit writes them ("2 payments, EUR 1,234.50 to Supplier 97 Oy
 *   and 1 other"), the first payee among 2,000 suppliers;
 * - 15 % inbound pain.002 status reports, 4.8 % camt.054 notifications, 0.2 % camt.053 statements of
 *   three bank accounts (each with its account_statements row);
 * - everything collected by the nightly ERP sync except the newest 3,000 documents;
 * - sealed payload and file of realistic size (about 3 KB a one-payment document), since they share
 *   the heap row with the metadata lists read (docs/adr/0011).
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { canonicalJson, GENESIS_HASH } from '../../src/domain/audit/hash-chain.ts';

export type GeneratorOptions = {
  /** How many documents to add to the company. */
  documents: number;
  /** Short text that keeps ids, message ids and digests of different runs apart. */
  tag: string;
  /** The newest document's creation time (default: now) and how many days the documents span. */
  end?: Date;
  days?: number;
  /** Whether the documents carry sealed payload and file bytes (default true). */
  sealed?: boolean;
  /** Documents per COPY (default 20,000). */
  chunk?: number;
  /**
   * For a database of the benchmark's or test's own: drop the secondary indexes of the tables filled
   * and build them again after the load (a build is many times faster than a million inserts into a
   * trigram index). Their definitions are read back from the catalog, so they come back as migrated.
   */
  rebuildIndexes?: boolean;
};

export type Generated = {
  documents: number;
  outbound: number;
  inbound: number;
  lines: number;
  events: number;
  statements: number;
  ms: number;
};

type Scope = { platformId: string; companyId: string };

const DAY_MS = 86_400_000;
const YEAR_MS = 365 * DAY_MS;
const SUPPLIERS = 2000;
const UNSETTLED = 2000;
const UNCOLLECTED = 3000;

/** A 32-bit integer hash (lowbias32): deterministic pseudo-randomness per document and purpose. */
function mix(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

function rand(g: number, salt: number): number {
  return mix(g * 0x9e3779b1 + salt * 0x85ebca77) / 4294967296;
}

/** COPY text format: backslash, tab, newline and carriage return escaped; null as \N. */
function field(value: string | number | boolean | null): string {
  if (value === null) return '\\N';
  if (typeof value !== 'string') return String(value);
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
    : value;
}

function row(values: Array<string | number | boolean | null>): string {
  return `${values.map(field).join('\t')}\n`;
}

function amountText(minor: number): string {
  const s = String(minor).padStart(3, '0');
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}

/** "1,234.50", as the submit's summary groups thousands. */
function grouped(amount: string): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`;
}

/** Base64 text standing in for AES-GCM sealed bytes: slices of one random-looking pool. */
const POOL = createHash('sha512')
  .update('pool')
  .digest('base64')
  .repeat(400)
  .replace(/[^A-Za-z0-9]/g, 'x');

function sealedText(bytes: number, g: number): string {
  const start = mix(g) % (POOL.length - bytes);
  return `v1:k1:${POOL.slice(start, start + bytes)}`;
}

const IBANS = ['FI2112345600000785', 'FI5542345670000081', 'SE4550000000058398257466'];

type Chain = { seq: number; hash: string };

type EventRow = {
  type: string;
  message: string;
  metadata: Record<string, unknown>;
  bankKey: string;
  createdAt: Date;
};

/** Everything one chunk adds, as COPY text per table. */
type Chunk = { documents: string[]; lines: string[]; statements: string[]; events: string[] };

export async function generateJournal(
  client: pg.ClientBase,
  scope: Scope,
  options: GeneratorOptions,
): Promise<Generated> {
  const started = Date.now();
  const n = options.documents;
  const days = options.days ?? 730;
  const end = (options.end ?? new Date()).getTime();
  const step = (days * DAY_MS) / n;
  const sealed = options.sealed ?? true;
  const chunkSize = options.chunk ?? 20_000;
  const tag = options.tag;

  await client.query('BEGIN');
  try {
    const counters = await client.query<{ direction: string; last_no: string }>(
      'SELECT direction, last_no::text FROM journal_counters WHERE company_id = $1 FOR UPDATE',
      [scope.companyId],
    );
    const lastNo = (d: string) => Number(counters.rows.find((r) => r.direction === d)?.last_no ?? 0);
    let outNo = lastNo('outbound');
    let inNo = lastNo('inbound');
    const head = await client.query<{ last_seq: string; last_hash: string }>(
      'SELECT last_seq::text, last_hash FROM chain_heads WHERE chain_id = $1 FOR UPDATE',
      [scope.companyId],
    );
    const chain: Chain = head.rows[0]
      ? { seq: Number(head.rows[0].last_seq), hash: head.rows[0].last_hash }
      : { seq: 0, hash: GENESIS_HASH };

    // Three bank accounts the statements are for.
    const accounts = IBANS.map((iban, i) => ({ id: `acct_${tag}${i}`, iban }));
    const accountRows = accounts.map((a) => {
      const at = new Date(end - days * DAY_MS).toISOString();
      return row([
        a.id,
        scope.platformId,
        scope.companyId,
        `${a.iban}|EUR`,
        a.iban,
        null,
        a.iban.slice(0, 2),
        'EUR',
        'demo',
        'Demo Bank',
        true,
        new Date(end).toISOString(),
        '1000000.00',
        'EUR',
        new Date(end).toISOString().slice(0, 10),
        at,
        at,
      ]);
    });
    await copy(
      client,
      'bank_accounts (id, platform_id, company_id, account_key, iban, account_other, country, currency, bank_key, bank_name, connected, last_received_data, latest_balance, latest_balance_currency, latest_balance_date, created_at, updated_at)',
      accountRows,
    );

    const bulk = options.rebuildIndexes === true;
    const rebuild = bulk ? await dropSecondaryIndexes(client) : [];
    // In bulk, the searched text comes with the rows instead of from the row trigger (which makes COPY
    // insert row by row); searchTextOf is the trigger's function, and the plan test checks searches
    // over generated rows against a plain scan of the fields.
    if (bulk) await client.query('ALTER TABLE journal_documents DISABLE TRIGGER journal_documents_search_text');
    const documentRow = (values: Array<string | number | boolean | null>) =>
      row(bulk ? [...values, searchTextOf(values)] : values);
    const totals = { outbound: 0, inbound: 0, lines: 0, events: 0, statements: 0 };
    const event = (out: Chunk, e: EventRow) => {
      chain.seq++;
      const id = `evt_${tag}${String(chain.seq).padStart(10, '0')}`;
      const expiresAt = new Date(e.createdAt.getTime() + 10 * YEAR_MS).toISOString();
      const fields = {
        id,
        platformId: scope.platformId,
        companyId: scope.companyId,
        seq: chain.seq,
        type: e.type,
        message: e.message,
        actorUserId: null,
        metadata: e.metadata,
        createdAt: e.createdAt.toISOString(),
        expiresAt,
      };
      const hash = createHash('sha256')
        .update(chain.hash + canonicalJson(fields))
        .digest('hex');
      out.events.push(
        row([
          id,
          scope.companyId,
          scope.platformId,
          scope.companyId,
          chain.seq,
          e.type,
          e.message,
          null,
          JSON.stringify(e.metadata),
          e.bankKey,
          'production',
          null,
          fields.createdAt,
          expiresAt,
          chain.hash,
          hash,
        ]),
      );
      chain.hash = hash;
      totals.events++;
    };

    for (let from = 0; from < n; from += chunkSize) {
      const out: Chunk = { documents: [], lines: [], statements: [], events: [] };
      for (let g = from; g < Math.min(n, from + chunkSize); g++) {
        const createdAt = new Date(end - (n - 1 - g) * step);
        const created = createdAt.toISOString();
        const day = created.slice(0, 10).replaceAll('-', '');
        const expires = new Date(createdAt.getTime() + 10 * YEAR_MS).toISOString();
        const collected = g < n - UNCOLLECTED;
        const collectedAt = collected ? new Date(createdAt.getTime() + DAY_MS).toISOString() : null;
        const id = `doc_${tag}${String(g).padStart(9, '0')}`;
        const kind = rand(g, 1);
        if (kind < 0.8) {
          outNo++;
          totals.outbound++;
          const journalNo = `OUT-${outNo}`;
          const shape = rand(g, 2);
          const count =
            shape < 0.6 ? 1 : shape < 0.9 ? 2 + Math.floor(rand(g, 3) * 4) : 6 + Math.floor(rand(g, 3) * 15);
          const supplier = Math.floor(rand(g, 4) * SUPPLIERS);
          const newest = g >= n - UNSETTLED;
          const s = rand(g, 5);
          const status = newest
            ? s < 0.2
              ? 'pending-approval'
              : s < 0.6
                ? 'converted'
                : 'sent'
            : s < 0.97
              ? 'executed'
              : s < 0.99
                ? 'rejected'
                : 'cancelled';
          const messageId = `MSG-${day}-${outNo}`;
          const lineState = status === 'executed' ? 'cleared' : status === 'rejected' ? 'rejected' : 'pending';
          let sum = 0;
          for (let i = 0; i < count; i++) {
            const minor = 1000 + Math.floor(rand(g * 31 + i, 6) * 2_000_000);
            sum += minor;
            const e2e = `E2E-${outNo}-${i + 1}`;
            const evidence =
              lineState === 'pending'
                ? null
                : JSON.stringify({
                    source: lineState === 'cleared' ? 'camt.054' : 'pain.002',
                    code: lineState === 'cleared' ? 'BOOK' : 'AC04',
                    at: new Date(createdAt.getTime() + 3_600_000).toISOString(),
                  });
            out.lines.push(
              row([
                id,
                i,
                scope.platformId,
                scope.companyId,
                `P${i + 1}`,
                e2e,
                null,
                minor,
                amountText(minor),
                'EUR',
                `Supplier ${i === 0 ? supplier : (supplier + i * 7) % SUPPLIERS} Oy`,
                'FI2112345600000785',
                created.slice(0, 10),
                lineState,
                evidence,
                created,
              ]),
            );
            totals.lines++;
          }
          const totalsJson = JSON.stringify([{ currency: 'EUR', amount: amountText(sum) }]);
          const delivered = status === 'sent' || status === 'executed' || status === 'rejected';
          out.documents.push(
            documentRow([
              id,
              scope.platformId,
              scope.companyId,
              journalNo,
              'outbound',
              'pain.001',
              'pain.001.001.03',
              'demo',
              'production',
              status,
              messageId,
              'api',
              count,
              totalsJson,
              rand(g, 7) < 0.95 ? 'SEPA' : 'URGENT',
              `idem-${tag}-${g}`,
              null,
              'host-to-host',
              delivered ? 'delivered' : status === 'converted' ? 'queued' : null,
              // As documentSummary writes it: "3 payments, EUR 1,234.50 to Supplier 12 Oy and 2 others".
              `${count} payment${count === 1 ? '' : 's'}, EUR ${grouped(amountText(sum))} to Supplier ${supplier} Oy${
                count === 1 ? '' : ` and ${count - 1} other${count > 2 ? 's' : ''}`
              }`,
              null,
              null,
              null,
              null,
              sealed ? sealedText(700 + 300 * count, g) : null,
              sealed ? sealedText(1600 + 600 * count, g + 1) : null,
              null,
              null,
              collected,
              collectedAt,
              created,
              created,
              expires,
            ]),
          );
          const ref = { documentId: id, journalNo };
          event(out, {
            type: 'payment.submitted',
            message: `${journalNo} submitted (${count} transactions)`,
            metadata: { ...ref, messageId, transactionCount: count },
            bankKey: 'demo',
            createdAt,
          });
          if (delivered)
            event(out, {
              type: 'payment.delivered',
              message: `${journalNo} delivered to demo`,
              metadata: ref,
              bankKey: 'demo',
              createdAt: new Date(createdAt.getTime() + 120_000),
            });
          if (status === 'executed' || status === 'rejected' || status === 'cancelled')
            event(out, {
              type: status === 'cancelled' ? 'payment.cancelled' : 'payment.status_changed',
              message: `${journalNo} ${status}`,
              metadata: { ...ref, status },
              bankKey: 'demo',
              createdAt: new Date(createdAt.getTime() + 3_600_000),
            });
        } else {
          inNo++;
          totals.inbound++;
          const journalNo = `IN-${inNo}`;
          const type = kind < 0.95 ? 'pain.002' : kind < 0.998 ? 'camt.054' : 'camt.053';
          const account = accounts[Math.floor(rand(g, 8) * accounts.length)]!;
          const entries = type === 'pain.002' ? 1 : 1 + Math.floor(rand(g, 9) * 40);
          const sum = amountText(10_000 + Math.floor(rand(g, 10) * 50_000_000));
          const date = created.slice(0, 10);
          const summary =
            type === 'pain.002'
              ? `pain.002 ACCC for OUT-${Math.max(1, outNo - 3)} (MSG-${day}-${Math.max(1, outNo - 3)}): sent -> executed`
              : `${type} ${account.iban} EUR ${date}..${date}: ${entries} entries${type === 'camt.053' ? `, closing ${sum} EUR` : ''}`;
          const quarantined = type !== 'pain.002' && rand(g, 11) < 0.001;
          out.documents.push(
            documentRow([
              id,
              scope.platformId,
              scope.companyId,
              journalNo,
              'inbound',
              type,
              `${type}.001.0${type === 'pain.002' ? '3' : '2'}`,
              'demo',
              'production',
              quarantined ? 'quarantined' : 'ingested',
              type === 'pain.002' ? `P002-${day}-${inNo}` : `${type.toUpperCase()}-${day}-${inNo}`,
              'channel',
              entries,
              type === 'pain.002' ? '[]' : JSON.stringify([{ currency: 'EUR', amount: sum }]),
              null,
              null,
              null,
              null,
              null,
              summary,
              type === 'pain.002' ? null : account.iban,
              type === 'pain.002' ? null : 'EUR',
              createHash('sha256').update(`${tag}:${g}`).digest('hex'),
              0,
              sealed && !quarantined ? sealedText(600 + 120 * entries, g) : null,
              sealed ? sealedText(1200 + 400 * entries, g + 1) : null,
              null,
              null,
              collected,
              collectedAt,
              created,
              created,
              expires,
            ]),
          );
          if (type === 'camt.053' && !quarantined) {
            out.statements.push(
              row([
                id,
                account.id,
                scope.companyId,
                date,
                date,
                String(inNo),
                JSON.stringify({ amount: '1000000.00', currency: 'EUR', direction: 'credit', date }),
                JSON.stringify({ amount: sum, currency: 'EUR', direction: 'credit', date }),
                entries,
                created,
              ]),
            );
            totals.statements++;
          }
          event(out, {
            type: quarantined ? 'journal.document.quarantined' : 'journal.document.ingested',
            message: `${journalNo} ${type} ${quarantined ? 'block 0 quarantined' : 'statement journaled'}`,
            metadata: { documentId: id, journalNo, type, blockIndex: 0 },
            bankKey: 'demo',
            createdAt,
          });
        }
      }
      await copy(
        client,
        `journal_documents (id, platform_id, company_id, journal_no, direction, type, source_format, bank_key, environment, status, message_id, import_source, transaction_count, totals, payment_type, idempotency_key, request_digest, delivery_mode, delivery_status, summary, account_iban, account_currency, content_digest, block_index, payload_sealed, file_sealed, warnings, details, collected, collected_at, created_at, updated_at, expires_at${bulk ? ', search_text' : ''})`,
        out.documents,
      );
      await copy(
        client,
        'payment_lines (document_id, line_index, platform_id, company_id, payment_id, end_to_end_id, instruction_id, amount_minor, amount, currency, payee_name, payee_iban, execution_date, state, evidence, updated_at)',
        out.lines,
      );
      await copy(
        client,
        'account_statements (document_id, account_id, company_id, from_date, to_date, sequence_number, opening, closing, tx_count, created_at)',
        out.statements,
      );
      await copy(
        client,
        'activity_events (id, chain_id, platform_id, company_id, seq, type, message, actor_user_id, metadata, bank_key, environment, connection_id, created_at, expires_at, prev_hash, hash)',
        out.events,
      );
    }

    if (bulk) await client.query('ALTER TABLE journal_documents ENABLE TRIGGER journal_documents_search_text');
    if (rebuild.length > 0) {
      // Deferred foreign key checks (payment lines) run now: a table with pending ones takes no index.
      await client.query('SET CONSTRAINTS ALL IMMEDIATE');
      await client.query(`SET LOCAL maintenance_work_mem = '256MB'`);
      for (const definition of rebuild) await client.query(definition);
    }
    await client.query(
      `INSERT INTO journal_counters (company_id, direction, last_no) VALUES ($1, 'outbound', $2), ($1, 'inbound', $3)
       ON CONFLICT (company_id, direction) DO UPDATE SET last_no = excluded.last_no`,
      [scope.companyId, outNo, inNo],
    );
    await client.query(
      `INSERT INTO chain_heads (chain_id, last_seq, last_hash) VALUES ($1, $2, $3)
       ON CONFLICT (chain_id) DO UPDATE SET last_seq = excluded.last_seq, last_hash = excluded.last_hash`,
      [scope.companyId, chain.seq, chain.hash],
    );
    await client.query('COMMIT');
    return { documents: n, ...totals, ms: Date.now() - started };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * journal_search_text() (src/db/functions/070_journal_search_text.sql) for a generated document row (the values in COPY column
 * order): summary, message id, journal number, bank, status, type, then each total, joined by U+001F
 * (missing values left out), lower-cased.
 */
function searchTextOf(v: Array<string | number | boolean | null>): string {
  const fields = [v[19], v[10], v[3], v[7], v[9], v[5]].filter((f) => f !== null).map(String);
  const totals = JSON.parse(String(v[13])) as Array<{ currency: string; amount: string }>;
  for (const t of totals) fields.push(`${t.currency} ${t.amount}`);
  return fields.join('\x1f').toLowerCase();
}

const FILLED = ['journal_documents', 'payment_lines', 'activity_events', 'account_statements'];

/** Drops the filled tables' indexes that no constraint owns; answers their definitions. */
async function dropSecondaryIndexes(client: pg.ClientBase): Promise<string[]> {
  const found = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i
      WHERE i.indrelid = ANY($1::regclass[])
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [FILLED],
  );
  for (const index of found.rows) await client.query(`DROP INDEX ${index.name}`);
  return found.rows.map((r) => r.definition);
}

/** One COPY of ready rows, written in slices of a few hundred rows. */
async function copy(client: pg.ClientBase, target: string, rows: string[]): Promise<void> {
  if (rows.length === 0) return;
  function* slices() {
    for (let i = 0; i < rows.length; i += 500) yield rows.slice(i, i + 500).join('');
  }
  await pipeline(Readable.from(slices()), client.query(copyFrom(`COPY ${target} FROM STDIN`)));
}
