import { applySequenceChecks } from '../sequence-check.ts';
import { type EntryTotals, newTotals } from '../statement-totals.ts';
import type { FileAlert, IntegrityWarning, StatementBlock, StatementTransaction, TransactionSink } from '../types.ts';
import { streamXml, type XmlSink, type XmlStats } from '../xml/stream-xml.ts';
import { Tree } from '../xml/tree.ts';
import { CamtDataError } from './camt-values.ts';
import { EntrySums } from './entry-sums.ts';
import { mapEntry } from './map-entry.ts';
import { accountLabelOf, mapStatement, type StatementContext } from './map-statement.ts';
import { N } from './names.ts';

/**
 * camt.052 / camt.053 / camt.054 in one streaming pass: the group header and each statement's header
 * elements are captured and copied into small trees, every Ntry is captured into the tokenizer's reused
 * flat tree and mapped at once, so memory is the output plus one entry. Each Stmt/Rpt/Ntfctn is its own block: a broken amount or balance
 * quarantines that block only.
 */
export type CamtParse = { ok: true; blocks: StatementBlock[]; alerts: FileAlert[] } | { ok: false; message: string };

const MESSAGES = new Set([
  'BkToCstmrStmt',
  'BkToCstmrAcctRpt',
  'BkToCstmrDbtCdtNtfctn',
  'BkToCstmrStmtV01',
  'BkToCstmrAcctRptV01',
  'BkToCstmrDbtCdtNtfctnV01',
]);
const BLOCKS = new Set(['Stmt', 'Rpt', 'Ntfctn']);
const MAX_MIXED_CONTENT = 3;
/** Room for a statement or group header at first (a Stmt header without its entries has about 40 elements). */
const HEADER_NODES = 64;

type OpenBlock = {
  /** The statement's header elements (everything but Ntry), copied under root 0. */
  header: Tree;
  totals: EntryTotals | null;
  /** The plain part of the entry sums, added to `totals` by flush. */
  sums: EntrySums;
  transactions: StatementTransaction[];
  entryWarnings: IntegrityWarning[];
  error: string | null;
  entryIndex: number;
};

/**
 * The streaming sink. A class rather than closures per call: the tokenizer's calls to open/captured/close
 * then always reach the same functions, so its optimised code survives from one file to the next.
 */
class CamtSink implements XmlSink {
  messageDepth = -1;
  blockDepth = -1;
  block: OpenBlock | null = null;
  /** GrpHdr copied under root 0, or null. */
  groupHeader: Tree | null = null;
  readonly blocks: StatementBlock[] = [];
  readonly sourceFormat: string;
  readonly xml: string;
  readonly onTransaction: TransactionSink | null;

  constructor(xml: string, sourceFormat: string, onTransaction: TransactionSink | null) {
    this.xml = xml;
    this.sourceFormat = sourceFormat;
    this.onTransaction = onTransaction;
  }

  open(name: string, _attrs: string, depth: number): boolean {
    if (this.messageDepth < 0) {
      if (MESSAGES.has(name)) this.messageDepth = depth;
      return false;
    }
    if (this.block) return depth === this.blockDepth + 1; // every direct child of a statement: header parts and Ntry
    if (depth === this.messageDepth + 1) {
      if (name === 'GrpHdr') return true;
      if (BLOCKS.has(name)) {
        this.blockDepth = depth;
        const header = new Tree(HEADER_NODES);
        header.reset(this.xml);
        header.add(-1, 0, name, '');
        this.block = {
          header,
          totals: null,
          sums: new EntrySums(),
          transactions: [],
          entryWarnings: [],
          error: null,
          entryIndex: 0,
        };
      }
    }
    return false;
  }

  captured(tree: Tree, root: number, depth: number): void {
    const block = this.block;
    if (block && depth === this.blockDepth + 1) {
      if (tree.id[root] === N.Ntry) addEntryNode(block, tree, root, this.onTransaction, this.blocks.length);
      else block.header.copyFrom(tree, root, 0);
    } else if (tree.id[root] === N.GrpHdr) {
      const groupHeader = new Tree(HEADER_NODES);
      groupHeader.reset(this.xml);
      groupHeader.copyFrom(tree, root, -1);
      this.groupHeader = groupHeader;
    }
  }

  close(_name: string, depth: number): void {
    if (this.block && depth === this.blockDepth) {
      this.finishBlock(this.block);
      this.block = null;
      this.blockDepth = -1;
    } else if (depth === this.messageDepth) this.messageDepth = -2; // a second message element is not looked for
  }

  private context(): StatementContext {
    const g = this.groupHeader ?? new Tree(1);
    const root = this.groupHeader ? 0 : -1;
    const pg = g.child(root, N.MsgPgntn);
    return {
      messageId: g.textAt(root, N.MsgId),
      messageCreatedAt: g.textAt(root, N.CreDtTm),
      messagePage:
        pg >= 0
          ? {
              page: g.textAt(pg, N.PgNb),
              last: g.textAt(pg, N.LastPgInd) === null ? null : g.textAt(pg, N.LastPgInd) === 'true',
            }
          : null,
      sourceFormat: this.sourceFormat,
    };
  }

  private finishBlock(block: OpenBlock): void {
    const blocks = this.blocks;
    const index = blocks.length;
    const account = accountLabelOf(block.header);
    const label = `statement ${index + 1}${account ? ` (${account})` : ''}`;
    if (block.error) {
      blocks.push({ index, ok: false, account, message: `${label}: ${block.error}` });
      return;
    }
    try {
      if (block.totals) block.sums.flush(block.totals);
      const totals = block.totals ?? newTotals(block.header.textAt(0, N.Acct, N.Ccy));
      const { statement, warnings } = mapStatement(block.header, this.context(), totals, block.transactions, label);
      blocks.push({ index, ok: true, account, statement, warnings: [...block.entryWarnings, ...warnings] });
    } catch (e) {
      if (!(e instanceof CamtDataError)) throw e;
      blocks.push({ index, ok: false, account, message: `${label}: ${e.message}` });
    }
  }
}

function addEntryNode(
  block: OpenBlock,
  tree: Tree,
  ntry: number,
  onTransaction: TransactionSink | null,
  blockIndex: number,
): void {
  const index = block.entryIndex++;
  if (block.error) return;
  if (!block.totals) {
    const h = block.header;
    const firstBal = h.child(0, N.Bal);
    block.totals = newTotals(h.textAt(0, N.Acct, N.Ccy) ?? h.attr(h.child(firstBal, N.Amt), 'Ccy'));
  }
  try {
    const mapped = mapEntry(tree, ntry, index, block.totals.currency);
    block.sums.addAmount(block.totals, mapped.amount, mapped.direction, mapped.status === 'booked');
    if (onTransaction) for (const t of mapped.transactions) onTransaction(t, blockIndex);
    else for (const t of mapped.transactions) block.transactions.push(t);
    if (mapped.warnings.length) block.entryWarnings.push(...mapped.warnings);
  } catch (e) {
    if (!(e instanceof CamtDataError)) throw e;
    block.error = e.message;
  }
}

export function parseCamt(
  xml: string,
  sourceFormat: string,
  maxDepth: number,
  onTransaction: TransactionSink | null = null,
): CamtParse {
  const sink = new CamtSink(xml, sourceFormat, onTransaction);
  const blocks = sink.blocks;
  const stats: XmlStats = { mixedContent: 0 };
  const error = streamXml(xml, sink, maxDepth, stats);
  if (error) return { ok: false, message: `XML is not well-formed at offset ${error.offset}: ${error.message}` };
  // No ISO 20022 message has mixed content. A stray fragment is a known real-world quirk and tolerated
  // with a warning; text between many elements (a browser's XML view pasted back) is not a bank file.
  if (stats.mixedContent > MAX_MIXED_CONTENT) {
    return {
      ok: false,
      message: `text is mixed with elements in ${stats.mixedContent} places: not a bank-generated camt message`,
    };
  }
  if (stats.mixedContent > 0) {
    const warning: IntegrityWarning = {
      code: 'mixed_content',
      message: `text mixed with elements in ${stats.mixedContent} place(s), ignored`,
    };
    for (const b of blocks) if (b.ok) b.warnings.push(warning);
  }
  if (blocks.length === 0)
    return { ok: false, message: 'the message contains no statement, report or notification (Stmt/Rpt/Ntfctn)' };
  applySequenceChecks(blocks);
  return { ok: true, blocks, alerts: [] };
}
