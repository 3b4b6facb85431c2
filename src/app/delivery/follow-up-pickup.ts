import { findConnectionFor } from '../../db/repositories/connections.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import type { JobPayload } from '../../workers/jobs.ts';
import type { AppContext } from '../context.ts';
import { pickUpConnection } from './pickup.ts';

export type ConnectionPickupJob = JobPayload<'connectionPickup'>;

/**
 * How soon after a delivery its connection is picked up: an EBICS bank (the simulator, and banks that
 * check a file at once) has the pain.002 ready within seconds, and waiting for the minute's sweep
 * would make every payment wait up to a minute for its status (docs/adr/0065).
 */
export const FOLLOW_UP_AFTER_MS = 3_000;
/** At most one follow-up pickup per connection per this many seconds, however many files were delivered. */
export const FOLLOW_UP_EVERY_SECONDS = 5;

/** The channels whose deliveries are followed by a pickup (the demo bank sends notices of its own). */
const FOLLOWED = new Set(['ebics']);

/**
 * After deliveries were recorded: one pickup job per connection that took a file over a followed
 * channel, FOLLOW_UP_AFTER_MS later, throttled per connection by the queue (singletonKey with
 * singletonSeconds): a send inside a slot that already has the connection's job goes into the next
 * slot (singletonNextSlot), so the last delivery of a burst is always followed within a slot, even
 * when the current slot's job ran before it (docs/adr/0074). A lost send only means the minute's
 * sweep picks the answers up.
 */
export async function scheduleFollowUpPickups(
  ctx: AppContext,
  delivered: Array<{ platformId: string; companyId: string; bankKey: string; environment: string; channel: string }>,
): Promise<void> {
  const jobs = new Map<string, ConnectionPickupJob>();
  for (const d of delivered) {
    if (!FOLLOWED.has(d.channel)) continue;
    const key = `${d.platformId}/${d.companyId}/${d.bankKey}/${d.environment}`;
    jobs.set(key, { platformId: d.platformId, companyId: d.companyId, bankKey: d.bankKey, environment: d.environment });
  }
  const startAfter = new Date(ctx.clock.now().getTime() + FOLLOW_UP_AFTER_MS);
  for (const [key, job] of jobs) {
    try {
      await ctx.jobs.send('connectionPickup', job, {
        startAfter,
        singletonKey: key,
        singletonSeconds: FOLLOW_UP_EVERY_SECONDS,
        // A slot whose job ran before this delivery's answers were there must not swallow this one:
        // the follow-up goes into the next slot (docs/adr/0074).
        singletonNextSlot: true,
      });
    } catch (error) {
      ctx.logger.warn({ err: error, ...job }, 'follow-up pickup not scheduled; the minute sweep takes the files');
    }
  }
}

/** Runs follow-up pickups: each connection once per batch, if it is still active and has a channel of its own. */
export async function runFollowUpPickups(ctx: AppContext, jobs: ConnectionPickupJob[]): Promise<void> {
  const seen = new Set<string>();
  for (const job of jobs) {
    const key = `${job.platformId}/${job.companyId}/${job.bankKey}/${job.environment}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const scope = { platformId: job.platformId, companyId: job.companyId };
    const connection = await findConnectionFor(ctx.db, scope, job.bankKey, job.environment);
    if (connection?.status !== 'active' || !connection.channelSealed) continue;
    if (getProfile(connection.bankKey)?.channel === 'DEMO') continue;
    const result = await pickUpConnection(ctx, connection);
    // The bank hands out a bounded batch per download: while a pickup takes files, another follows
    // (throttled as the first), so a burst's answers drain in seconds rather than a batch a minute;
    // so does one that left statements at the bank while a delivery was under way (docs/adr/0074).
    if (result.files > 0 || result.deferred > 0) await scheduleFollowUpPickups(ctx, [{ ...job, channel: 'ebics' }]);
  }
}
