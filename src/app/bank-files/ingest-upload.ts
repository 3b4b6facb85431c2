import { getProfile } from '../../domain/conversion/index.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { readUploadInWorker } from './file-worker.ts';
import type { IngestResult } from './ingest.ts';
import { receiveBankFile } from './receive.ts';

/**
 * POST /journal/ingest: the route's JSON body arrives in the file worker as an upload (file-worker.ts)
 * and is read and checked there, so the event loop never decodes or parses the file; once the
 * caller's access to the company is checked, the file goes through the bank-files entry point
 * (receive.ts) as a batch of one.
 */
export async function ingestUploadedBody(ctx: AppContext, principal: Principal, upload: number): Promise<IngestResult> {
  const body = await readUploadInWorker(upload);
  if (!body.ok) throw new AppError(body.code, body.message, body.details);
  try {
    const scope = await companyScope(ctx, principal, body.fields.companyId, body.fields.platformId);
    const { bankKey, environment } = body.fields;
    if (bankKey !== undefined && !getProfile(bankKey)) throw notFound('bank');
    if (body.empty) throw new AppError('empty_body', 'the file is empty');
    const handle = await body.prepare(ctx.encryptor.sealingKey);
    try {
      const file = { content: handle, bankKey, environment, source: 'api' } as const;
      return (await receiveBankFile(ctx, scope, file)).result;
    } finally {
      handle.release();
    }
  } finally {
    body.discard();
  }
}
