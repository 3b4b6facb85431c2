import assert from 'node:assert/strict';
import type { AppContext } from '../../src/app/context.ts';
import { deliverDocument } from '../../src/app/delivery/deliver-document.ts';
import { findDocument } from '../../src/db/repositories/journal-documents.ts';

/**
 * Delivers a host-to-host document now, as a delivery worker would, and checks that its channel
 * confirmed it: only then is it `sent` and a candidate for the bank's evidence.
 */
export async function deliverNow(
  ctx: AppContext,
  scope: { platformId: string; companyId: string },
  documentId: string,
): Promise<void> {
  await deliverDocument(ctx, { documentId, ...scope }, { retryCount: 0, retryLimit: 3 });
  const doc = await findDocument(ctx.db, scope, documentId);
  assert.equal(doc?.deliveryStatus, 'delivered', `${documentId} was not delivered`);
}
