import { forgetBankCode } from './camt/map-entry.ts';
import { parseCamt } from './camt/parse-camt.ts';
import { decodeBytes } from './decode-text.ts';
import { detectFormat } from './detect-format.ts';
import { undoAtSeparators } from './mt940/at-separator.ts';
import { forgetDetails86 } from './mt940/details86.ts';
import { parseMt94x } from './mt940/parse-mt94x.ts';
import { parsePain002 } from './pain002/parse-pain002.ts';
import type {
  EncodingName,
  IntegrityWarning,
  ParseBankFileResult,
  ParseErrorCode,
  StatementBlock,
  TransactionSink,
} from './types.ts';
import { forgetLastAttrs } from './xml/node.ts';
import { DEFAULT_MAX_DEPTH } from './xml/stream-xml.ts';

export type ParseOptions = {
  /** Refuse inputs larger than this many bytes (string inputs: UTF-16 code units). Default 512 MiB. */
  maxBytes?: number;
  /** Deepest XML element nesting accepted. Default 64 (camt needs about 15). */
  maxDepth?: number;
  /** Stream transactions to this consumer instead of collecting them (large files: see TransactionSink). */
  onTransaction?: TransactionSink;
};

const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

function fail(code: ParseErrorCode, message: string): ParseBankFileResult {
  return { ok: false, error: { code, message } };
}

/** Only whitespace, BOM and transmission framing (SOH, ETX, SUB); scans, never copies the text. */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 1 && c !== 3 && c !== 0x1a && c !== 0xfeff) return false;
  }
  return true;
}

/** Every block failed: the file as a whole is unparseable, with each block's reason. */
function allFailed(blocks: StatementBlock[]): string | undefined {
  if (blocks.length === 0 || blocks.some((b) => b.ok)) return undefined;
  return blocks.map((b) => (b.ok ? '' : b.message)).join('; ');
}

function parseDecoded(decoded: string, encoding: EncodingName, opts: ParseOptions): ParseBankFileResult {
  if (isBlank(decoded)) return fail('empty', 'the file is empty');
  const text = undoAtSeparators(decoded);
  const detected = detectFormat(text);
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  switch (detected.kind) {
    case 'unrecognised':
      return fail('unrecognised_format', detected.message);
    case 'camt': {
      const r = parseCamt(text, detected.sourceFormat, maxDepth, opts.onTransaction ?? null);
      if (!r.ok) return fail('unparseable_file', r.message);
      const failed = allFailed(r.blocks);
      if (failed) return fail('unparseable_file', failed);
      if (!detected.namespaced) {
        const warning: IntegrityWarning = {
          code: 'no_namespace',
          message: `no ISO 20022 namespace; read as ${detected.format} by its message element`,
        };
        for (const b of r.blocks) if (b.ok) b.warnings.push(warning);
      }
      return {
        ok: true,
        kind: 'statement',
        format: detected.format,
        sourceFormat: detected.sourceFormat,
        encoding,
        blocks: r.blocks,
        alerts: r.alerts,
      };
    }
    case 'pain.002': {
      const r = parsePain002(text, detected.sourceFormat, detected.namespaced, maxDepth);
      if (!r.ok) return fail(r.code, r.message);
      return {
        ok: true,
        kind: 'status-report',
        format: 'pain.002',
        sourceFormat: detected.sourceFormat,
        encoding,
        report: r.report,
        warnings: r.warnings,
      };
    }
    case 'mt': {
      const r = parseMt94x(text, detected.format, opts.onTransaction ?? null);
      if (!r.ok) return fail(r.code, r.message);
      const failed = allFailed(r.blocks);
      if (failed) return fail('unparseable_file', failed);
      const sourceFormat = detected.format === 'mt942' ? 'MT942' : 'MT940';
      return {
        ok: true,
        kind: 'statement',
        format: detected.format,
        sourceFormat,
        encoding: r.encoding ?? encoding,
        blocks: r.blocks,
        alerts: r.alerts,
      };
    }
    default: {
      const never: never = detected;
      return fail('unrecognised_format', `unhandled format ${JSON.stringify(never)}`);
    }
  }
}

/** A code page guessed from the bytes is said on every statement (and on a status report): a wrong guess garbles text. */
function warnGuessedEncoding(result: ParseBankFileResult & { ok: true }): void {
  const warning: IntegrityWarning = {
    code: 'guessed_encoding',
    message: `the file names no encoding and is not UTF-8: read as ${result.encoding}, guessed from its bytes`,
  };
  if (result.kind === 'status-report') result.warnings.push(warning);
  else for (const b of result.blocks) if (b.ok) b.warnings.push(warning);
}

/**
 * Parses one inbound bank file (bytes or already-decoded text). Pure: no I/O, no clock. Never throws:
 * an unexpected internal failure is reported as `unparseable_file` rather than escaping.
 */
export function parseBankFile(input: Uint8Array | string, opts: ParseOptions = {}): ParseBankFileResult {
  try {
    return parseInput(input, opts);
  } finally {
    // The parsers remember the last value of a few fields to share repeated strings; those may be
    // slices of this input, so they are dropped rather than keeping the file alive until the next parse.
    forgetBankCode();
    forgetDetails86();
    forgetLastAttrs();
  }
}

function parseInput(input: Uint8Array | string, opts: ParseOptions): ParseBankFileResult {
  try {
    const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    if (input.length > maxBytes)
      return fail('too_large', `the file has ${input.length} bytes, the limit is ${maxBytes}`);
    if (input.length === 0) return fail('empty', 'the file is empty');
    if (typeof input === 'string')
      return parseDecoded(input.charCodeAt(0) === 0xfeff ? input.slice(1) : input, 'utf-8', opts);
    const decoded = decodeBytes(input);
    if ('error' in decoded) return fail('unparseable_file', decoded.error);
    const result = parseDecoded(decoded.text, decoded.encoding, opts);
    if (decoded.guessed && result.ok) warnGuessedEncoding(result);
    return result;
  } catch (e) {
    // A bug, not a property of the file; still a typed result so one bad upload cannot take a worker down.
    const message = e instanceof Error ? e.message : String(e);
    return fail('unparseable_file', `internal parser error: ${message}`);
  }
}
