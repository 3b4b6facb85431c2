import type { PgBoss } from 'pg-boss';
import { inSpan, tracingEnabled } from '../platform/tracing.ts';

type Handler = (...args: unknown[]) => unknown;

/**
 * The job queue as the worker runner sees it, with every handler run inside a span named
 * `job <queue>` (bank delivery, demo-bank reply, pickup, retention ...), so a job's queries and
 * outbound calls hang under it. The same instance when tracing is off.
 */
export function traceJobs(boss: PgBoss): PgBoss {
  if (!tracingEnabled()) return boss;
  const work = (name: string, ...rest: unknown[]) => {
    const handler = rest.pop() as Handler;
    const traced = (...args: unknown[]) => inSpan(`job ${name}`, async () => handler(...args));
    return (boss.work as (...a: unknown[]) => Promise<string>).call(boss, name, ...rest, traced);
  };
  return new Proxy(boss, {
    get(target, property) {
      if (property === 'work') return work;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as Handler).bind(target) : value;
    },
  });
}
