import type { InboundFile } from '../../channels/channel.ts';
import type { DemoBankPort } from '../../channels/demo.ts';
import {
  type DeliveredFile,
  deliveredFileFromPain001,
  demoCamt053,
  demoPain002,
} from '../../domain/demo-bank/index.ts';
import type { DemoBankStore, DueRow } from './store.ts';

/** How long a pickup holds the answers it was handed before another pickup may take them. */
const LEASE_MS = 15_000;
/** The most files' answers handed out to one pickup. */
const COLLECT_LIMIT = 500;

const STATUS_REPORT = /^DEMO-STS-(.+)\.xml$/;
const STATEMENT = /^DEMO-STM-(.+)\.xml$/;

/**
 * The demo bank (sandbox; DESIGN.md, Sandbox and demo bank), a bank simulator like ws-bank: it reads
 * each pain.001 it receives (from the XML, as a real bank would) and, `delayMs` later, has in its
 * outbox a pain.002 for it and a camt.053 per account, currency and execution date booking every
 * accepted transaction of the files handed out together (`REJECT:<code>` in a transaction's
 * unstructured remittance rejects it with that code). The service collects them through the demo
 * channel's pickup (fetch, then acknowledge), the path every bank's files take (docs/adr/0054). Ids
 * and times come from the files and their reply time, so a file handed out again is the same bytes
 * (ingest dedupes it); a file's answers are handed out until both its pain.002 and its statement are
 * acknowledged.
 */
export function createDemoBank(parts: { store: DemoBankStore; now: () => Date; delayMs: number }): DemoBankPort {
  const { store } = parts;
  return {
    async receiveMany(customer, files) {
      const now = parts.now();
      const rows = files.map((f) => ({
        fileName: f.fileName,
        documentId: f.documentId,
        delivered: deliveredFileFromPain001(f.content),
      }));
      const received = await store.receive(customer, rows, { now, replyAt: new Date(now.getTime() + parts.delayMs) });
      // A name repeated within the batch: its second copy is a repeat.
      const seen = new Set<string>();
      return files.map((f) => {
        const again = seen.has(f.fileName) || received.get(f.fileName) !== true;
        seen.add(f.fileName);
        return { alreadyReceived: again };
      });
    },
    async collect(customer) {
      const now = parts.now();
      const lease = { now, leaseUntil: new Date(now.getTime() + LEASE_MS), limit: COLLECT_LIMIT };
      // A file the bank could not read is answered by nothing (it never reaches its books).
      const due = (await store.claim(customer, lease, issueStatements)).filter((r) => r.delivered !== null);
      const statements = groupBy(due, (r) => r.issuedAs ?? r.documentId);
      // A statement handed out before is written again from every file it books, byte for byte.
      const again = [...statements.keys()].filter((id) => statements.get(id)!.some((r) => r.reissued));
      for (const [id, rows] of groupBy(await store.issuedAs(customer, again), (r) => r.issuedAs!)) {
        statements.set(id, rows);
      }
      return [...due.map(pain002Of), ...[...statements].map(([id, rows]) => statementOf(id, rows))];
    },
    async acknowledge(customer, files) {
      const documentIds = files.flatMap((f) => STATUS_REPORT.exec(f.name)?.[1] ?? []);
      const statements = files.flatMap((f) => STATEMENT.exec(f.name)?.[1] ?? []);
      await store.answered(customer, { documentIds, statements }, parts.now());
    },
  };
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const group = groups.get(k);
    if (group) group.push(r);
    else groups.set(k, [r]);
  }
  return groups;
}

/** The statement of each file handed out the first time: one per account, currency and execution date. */
function issueStatements(fresh: Omit<DueRow, 'reissued'>[]): Map<string, string> {
  const issued = new Map<string, string>();
  const groups = groupBy(
    fresh.filter((r) => r.delivered !== null),
    (r) => {
      const file = r.delivered as DeliveredFile;
      return `${file.debtorIban}|${file.payments[0]?.transactions[0]?.currency ?? ''}|${file.executionDate}`;
    },
  );
  for (const rows of groups.values()) for (const r of rows) issued.set(r.fileName, rows[0]!.documentId);
  return issued;
}

function fileOf(name: string, xml: string): InboundFile {
  return { name, content: new TextEncoder().encode(xml) };
}

function pain002Of(row: DueRow): InboundFile {
  const xml = demoPain002(row.delivered as DeliveredFile, `DEMO-STS-${row.documentId}`, row.replyAt.toISOString());
  return fileOf(`DEMO-STS-${row.documentId}.xml`, xml);
}

/** The camt.053 booking every accepted transaction of these files; numbered by the first one's file name. */
function statementOf(id: string, rows: DueRow[]): InboundFile {
  const first = rows[0]!;
  const sequence = Number(first.fileName.split('-')[1]) || 1;
  const xml = demoCamt053(
    rows.map((r) => r.delivered as DeliveredFile),
    { messageId: `DEMO-STM-${id}`, statementId: `DEMO-${id}`, sequence },
    first.replyAt.toISOString(),
  );
  return fileOf(`DEMO-STM-${id}.xml`, xml);
}
