import { applySequenceChecks } from '../sequence-check.ts';
import type { EncodingName, FileAlert, ParseErrorCode, StatementBlock, TransactionSink } from '../types.ts';
import { forgetFinders } from './find-char.ts';
import { forgetLine61 } from './line61.ts';
import { mapBlock } from './map-block.ts';
import { splitBlocks } from './split-blocks.ts';
import { acquireWindow, releaseWindow, type TextWindow } from './text-window.ts';

/**
 * MT940/MT942 file to statement blocks. A file whose last message was cut off (no closing balance,
 * SWIFT block never closed) raises an `incomplete_file` alert with how many blocks were cut and how
 * many statements survived, so the journal can ingest the survivors and say the file was partial.
 */
export type Mt94xParse =
  | { ok: true; blocks: StatementBlock[]; alerts: FileAlert[]; encoding: EncodingName | null }
  | { ok: false; code: ParseErrorCode; message: string };

export function parseMt94x(
  text: string,
  format: 'mt940' | 'mt942',
  onTransaction: TransactionSink | null = null,
): Mt94xParse {
  const win = acquireWindow();
  try {
    return parseBlocks(text, format, onTransaction, win);
  } finally {
    releaseWindow(win);
    forgetLine61();
    forgetFinders();
  }
}

function parseBlocks(
  text: string,
  format: 'mt940' | 'mt942',
  onTransaction: TransactionSink | null,
  win: TextWindow,
): Mt94xParse {
  const blocks: StatementBlock[] = [];
  let unclosed = 0;
  // Each block is mapped as soon as the splitter has finished it.
  const split = splitBlocks(text, (raw) => {
    const index = blocks.length;
    const mapped = mapBlock(raw, format, index, onTransaction, win);
    if (!mapped.closed && format === 'mt940') unclosed++;
    if (mapped.ok)
      blocks.push({ index, ok: true, account: mapped.account, statement: mapped.statement, warnings: mapped.warnings });
    else blocks.push({ index, ok: false, account: mapped.account, message: mapped.message });
  });
  if (split.blockCount === 0) return { ok: false, code: 'unrecognised_format', message: 'no :20: statement found' };
  applySequenceChecks(blocks);
  const alerts: FileAlert[] = [];
  if (unclosed > 0) {
    const surviving = blocks.filter((b) => b.ok).length;
    alerts.push({
      kind: 'incomplete_file',
      message: `${unclosed} of ${blocks.length} statement block(s) were not closed (no :62F:/:62M: or no end of the SWIFT block); ${surviving} statement(s) parsed`,
      reason: 'unclosed_block',
      account: blocks.find((b) => !b.ok)?.account ?? null,
      unclosedBlockCount: unclosed,
      survivingStatementCount: surviving,
    });
  }
  return { ok: true, blocks, alerts, encoding: split.swedish7bit ? 'iso-646-se' : null };
}
