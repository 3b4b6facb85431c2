import { finishConversionJob, startConversionAttempt } from '../../db/repositories/conversion-jobs.ts';
import { convertPayment } from '../../domain/conversion/index.ts';
import type { AppContext } from '../context.ts';
import { CONVERSION_MAX_ATTEMPTS } from './convert-async.ts';

/**
 * Worker side of /convert-async. A failure throws so the queue retries; the last allowed attempt
 * records the job as `dead` with the error instead, and the queue sees success.
 */
export async function runConversionJob(ctx: AppContext, input: { jobId: string; platformId: string }): Promise<void> {
  const scope = { platformId: input.platformId };
  const job = await startConversionAttempt(ctx.db, scope, input.jobId, ctx.clock.now());
  if (!job) return; // already finished (a redelivered queue entry) or removed with its sandbox
  try {
    const raw: unknown = JSON.parse(ctx.encryptor.decrypt(job.requestSealed));
    const result = convertPayment(raw, job.bankKey, { painVersion: job.painVersion, now: job.createdAt });
    if (!result.ok) throw new Error(result.error.message);
    if (!result.value.ok) throw new Error(`validation failed with ${result.value.issues.length} issue(s)`);
    await finishConversionJob(ctx.db, scope, job.id, {
      status: 'succeeded',
      resultSealed: ctx.encryptor.encrypt(result.value.xml),
      updatedAt: ctx.clock.now(),
    });
  } catch (error) {
    const lastError = error instanceof Error ? error.message : String(error);
    if (job.attempts < CONVERSION_MAX_ATTEMPTS) {
      await finishConversionJob(ctx.db, scope, job.id, { status: 'pending', updatedAt: ctx.clock.now() });
      throw error;
    }
    ctx.logger.warn({ jobId: job.id, attempts: job.attempts }, 'conversion job failed permanently');
    await finishConversionJob(ctx.db, scope, job.id, {
      status: 'dead',
      failure: { code: 'conversion_failed', message: 'the conversion failed permanently', details: { lastError } },
      updatedAt: ctx.clock.now(),
    });
  }
}
