/**
 * How long journal documents and activity events are kept (docs/adr/0006-journal.md): ten years for
 * production records (bookkeeping law in the countries we serve asks for up to ten), one year for
 * test-environment records. Sandboxes go sooner, with their platform, when unused for 30 days.
 */
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

export function retentionUntil(now: Date, environment: string | null): Date {
  const years = environment === 'test' ? 1 : 10;
  return new Date(now.getTime() + years * YEAR_MS);
}
