import { check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { CONVERSION_JOB_STATUSES, type ConversionJobStatus } from '../../domain/lifecycle/index.ts';
import { oneOf } from './checks.ts';
import { platforms } from './identity.ts';

/**
 * POST /convert-async jobs. The canonical payment and the generated XML are sealed (AES-256-GCM);
 * the job belongs to the platform of the key that created it.
 */
export const conversionJobs = pgTable(
  'conversion_jobs',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    bankKey: text('bank_key').notNull(),
    painVersion: text('pain_version').notNull(),
    status: text('status').$type<ConversionJobStatus>().notNull(),
    requestSealed: text('request_sealed').notNull(),
    resultSealed: text('result_sealed'),
    attempts: integer('attempts').notNull().default(0),
    failure: jsonb('failure').$type<{ code: string; message: string; details: { lastError: string } }>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('conversion_jobs_platform_idx').on(t.platformId, t.id),
    check('conversion_jobs_status_ck', oneOf('status', CONVERSION_JOB_STATUSES)),
  ],
);
