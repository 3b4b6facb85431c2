import { findConversionJob, insertConversionJob } from '../../db/repositories/conversion-jobs.ts';
import { validatePayment } from '../../domain/conversion/index.ts';
import type { AppContext } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { engineError, validationFailed } from './engine-errors.ts';

/**
 * POST /convert-async: validated now (422 at once), written later by a worker. The job row and its
 * queue entry are written in one transaction, so an accepted job is never lost.
 */
export async function submitConversionJob(
  ctx: AppContext,
  platformId: string,
  raw: unknown,
  bankKey: string,
  options: { painVersion?: string | undefined; validate?: boolean | undefined },
) {
  if (options.validate) throw badRequest('validate=true is not supported on /convert-async; use /convert');
  const checked = validatePayment(raw, bankKey, {
    now: ctx.clock.now(),
    ...(options.painVersion !== undefined ? { painVersion: options.painVersion } : {}),
  });
  if (!checked.ok) throw engineError(checked.error);
  const result = checked.value;
  if (!result.valid) throw validationFailed(result.issues, { unknownFieldsDropped: result.unknownFieldsDropped });

  const now = ctx.clock.now();
  const jobId = ctx.ids.next('job');
  await ctx.db.transaction(async (tx) => {
    await insertConversionJob(tx, {
      id: jobId,
      platformId,
      bankKey,
      painVersion: result.painVersion,
      status: 'pending',
      requestSealed: ctx.encryptor.encrypt(JSON.stringify(raw)),
      createdAt: now,
      updatedAt: now,
    });
    await ctx.jobs.send('conversion', { jobId, platformId }, { tx });
  });
  const warnings = result.issues.filter((i) => i.severity === 'warning');
  return {
    jobId,
    status: 'pending' as const,
    bankKey,
    autoPaymentType: result.autoSelected[0]?.selected ?? null,
    autoSelected: result.autoSelected,
    unknownFieldsDropped: result.unknownFieldsDropped,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** Attempts before a job is dead: the first run and two retries. */
export const CONVERSION_MAX_ATTEMPTS = 3;

export type JobView =
  | { kind: 'xml'; xml: string }
  | {
      kind: 'status';
      body: {
        jobId: string;
        status: string;
        bankKey: string;
        createdAt: string;
        updatedAt: string;
        failure?: { code: string; message: string; details: { lastError: string } };
      };
    };

/** GET /convert-jobs/{id}: the XML once succeeded, else the job's status (dead jobs carry `failure`). */
export async function getConversionJob(ctx: AppContext, platformId: string, jobId: string): Promise<JobView> {
  const job = await findConversionJob(ctx.db, { platformId }, jobId);
  if (!job) throw notFound('conversion job');
  if (job.status === 'succeeded' && job.resultSealed)
    return { kind: 'xml', xml: ctx.encryptor.decrypt(job.resultSealed) };
  return {
    kind: 'status',
    body: {
      jobId: job.id,
      status: job.status,
      bankKey: job.bankKey,
      createdAt: job.createdAt.toISOString(),
      updatedAt: job.updatedAt.toISOString(),
      ...(job.status === 'dead' && job.failure ? { failure: job.failure } : {}),
    },
  };
}
