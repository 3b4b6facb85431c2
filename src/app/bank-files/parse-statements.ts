import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { ParseError } from '../../domain/inbound/index.ts';
import { openCompressed } from '../../platform/encryption.ts';
import { AppError } from '../errors.ts';
import { prepareStateless } from './file-worker.ts';

/** Parse failures as the contract answers them: 400 empty or unrecognised, 422 unparseable. */
function parseFailure(error: ParseError): AppError {
  switch (error.code) {
    case 'empty':
      return new AppError('empty_body', error.message);
    case 'unrecognised_format':
      return new AppError('unrecognised_statement', error.message);
    case 'too_large':
      return new AppError('payload_too_large', error.message);
    default:
      return new AppError('unparseable_file', error.message);
  }
}

/**
 * POST /inbound/statement: stateless, nothing stored; one normalised statement per account block,
 * as the JSON `{"items":[...]}`. The file is parsed in the file worker as an ingest's is (its
 * statements' JSON made there as they stream, gzipped and sealed under a key of this request only,
 * docs/adr/0029), and each statement's JSON is inflated by zlib's thread pool as it is written out:
 * the event loop neither parses a 50 MB statement nor stringifies what it makes. A raw body arrives
 * as an upload already streamed into the worker (its number, docs/adr/0064): the event loop never
 * holds or joins it either.
 */
export async function parseStatements(content: number | string): Promise<Readable> {
  const key = randomBytes(32);
  const handle = await prepareStateless(content, key);
  // Nothing is matched: what the worker keeps for matching goes at once.
  handle.release();
  const { file } = handle;
  if (!file.ok) throw parseFailure(file.error);
  if (file.kind !== 'statement') {
    throw new AppError('unparseable_file', 'this is a payment status report; send it to /inbound/payment-status');
  }
  const payloads = file.blocks.flatMap((b) => (b.ok ? [b.payloadSealed] : []));
  return Readable.from(statementsJson(payloads, key));
}

const INFLATE_CHUNK = 256 * 1024;

/** `{"items":[...]}` from each statement's sealed, gzipped JSON, opened and inflated one at a time. */
async function* statementsJson(payloads: string[], key: Buffer): AsyncGenerator<Buffer | string> {
  yield '{"items":[';
  for (const [i, sealed] of payloads.entries()) {
    if (i > 0) yield ',';
    // Large output chunks: a 50 MB statement's 90 MB of JSON in a few hundred callbacks on the event
    // loop, not thousands of 16 KB ones.
    yield* createGunzip({ chunkSize: INFLATE_CHUNK }).end(openCompressed(key, sealed));
  }
  yield ']}';
}
