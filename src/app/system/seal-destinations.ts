import type { Db } from '../../db/client.ts';
import { sealDestination, unsealedDestinations } from '../../db/repositories/webhooks.ts';
import { maskedDestination } from '../../domain/webhooks/index.ts';
import type { Encryptor } from '../../platform/encryption.ts';

/**
 * Seals the webhook destinations written before they were sealed at rest (migration 0018): each URL
 * moves into `url_sealed` and the plain column keeps only the masked form. Runs at start-up after the
 * migrations (a migration cannot: it has no master key); idempotent, and rows locked by another
 * process starting at the same time are left to it. Answers how many were sealed.
 */
export async function sealWebhookDestinations(deps: { db: Db; encryptor: Encryptor }): Promise<number> {
  let sealed = 0;
  for (;;) {
    const done = await deps.db.transaction(async (tx) => {
      const rows = await unsealedDestinations(tx, 200);
      for (const row of rows) {
        await sealDestination(tx, row.id, maskedDestination(row.url, row.transport), deps.encryptor.encrypt(row.url));
      }
      return rows.length;
    });
    sealed += done;
    if (done === 0) return sealed;
  }
}
