import { applySequenceChecks } from '../sequence-check.ts';
import { addEntry, type EntryTotals, newTotals } from '../statement-totals.ts';
import type { FileAlert, IntegrityWarning, StatementBlock, StatementTransaction } from '../types.ts';
import { attr, child, textAt, type XNode } from '../xml/node.ts';
import { streamXml, type XmlSink, type XmlStats } from '../xml/stream-xml.ts';
import { CamtDataError } from './camt-values.ts';
import { mapEntry } from './map-entry.ts';
import { accountLabelOf, mapStatement, type StatementContext } from './map-statement.ts';

/**
 * camt.052 / camt.053 / camt.054 in one streaming pass: the group header and each statement's header
 * elements are captured as small trees, every Ntry is captured, mapped and dropped at once, so memory
 * is the output plus one entry. Each Stmt/Rpt/Ntfctn is its own block: a broken amount or balance
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

type OpenBlock = {
  header: XNode;
  totals: EntryTotals | null;
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
  groupHeader: XNode | undefined = undefined;
  readonly blocks: StatementBlock[] = [];
  readonly sourceFormat: string;

  constructor(sourceFormat: string) {
    this.sourceFormat = sourceFormat;
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
        this.block = {
          header: { name, attrs: '', text: '', children: [] },
          totals: null,
          transactions: [],
          entryWarnings: [],
          error: null,
          entryIndex: 0,
        };
      }
    }
    return false;
  }

  captured(node: XNode, depth: number): void {
    const block = this.block;
    if (block && depth === this.blockDepth + 1) {
      if (node.name === 'Ntry') addEntryNode(block, node);
      else block.header.children.push(node);
    } else if (node.name === 'GrpHdr') this.groupHeader = node;
  }

  close(_name: string, depth: number): void {
    if (this.block && depth === this.blockDepth) {
      this.finishBlock(this.block);
      this.block = null;
      this.blockDepth = -1;
    } else if (depth === this.messageDepth) this.messageDepth = -2; // a second message element is not looked for
  }

  private context(): StatementContext {
    const groupHeader = this.groupHeader;
    const pg = child(groupHeader, 'MsgPgntn');
    return {
      messageId: textAt(groupHeader, 'MsgId'),
      messageCreatedAt: textAt(groupHeader, 'CreDtTm'),
      messagePage: pg
        ? {
            page: textAt(pg, 'PgNb'),
            last: textAt(pg, 'LastPgInd') === null ? null : textAt(pg, 'LastPgInd') === 'true',
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
      const totals = block.totals ?? newTotals(textAt(block.header, 'Acct', 'Ccy'));
      const { statement, warnings } = mapStatement(block.header, this.context(), totals, block.transactions, label);
      blocks.push({ index, ok: true, account, statement, warnings: [...block.entryWarnings, ...warnings] });
    } catch (e) {
      if (!(e instanceof CamtDataError)) throw e;
      blocks.push({ index, ok: false, account, message: `${label}: ${e.message}` });
    }
  }
}

function addEntryNode(block: OpenBlock, ntry: XNode): void {
  const index = block.entryIndex++;
  if (block.error) return;
  if (!block.totals) {
    const firstBal = child(block.header, 'Bal');
    block.totals = newTotals(textAt(block.header, 'Acct', 'Ccy') ?? attr(child(firstBal, 'Amt'), 'Ccy'));
  }
  try {
    const mapped = mapEntry(ntry, index, block.totals.currency);
    addEntry(block.totals, mapped.amount, mapped.amount.currency, mapped.direction, mapped.status === 'booked');
    for (const t of mapped.transactions) block.transactions.push(t);
    if (mapped.warnings.length) block.entryWarnings.push(...mapped.warnings);
  } catch (e) {
    if (!(e instanceof CamtDataError)) throw e;
    block.error = e.message;
  }
}

export function parseCamt(xml: string, sourceFormat: string, maxDepth: number): CamtParse {
  const sink = new CamtSink(sourceFormat);
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
