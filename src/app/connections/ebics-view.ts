import type { ConnectionRow } from '../../db/repositories/connections.ts';
import type { AppContext } from '../context.ts';
import { bankKeyHashes } from './ebics-hashes.ts';

/**
 * The EBICS part of a connection's readiness (DESIGN.md, EBICS 3.0): where the onboarding stands,
 * the subscriber, the hashes of the bank keys (confirmed, or fetched and awaiting confirmation), when
 * our certificates end, and the next step's route.
 */
export function ebicsReadiness(ctx: AppContext, row: ConnectionRow): Record<string, unknown> {
  const config = row.channelSealed
    ? (JSON.parse(ctx.encryptor.decrypt(row.channelSealed)) as Record<string, unknown>)
    : {};
  const sealed = row.ebicsPendingBankKeysSealed ?? row.ebicsBankKeysSealed;
  const state = row.ebicsState ?? 'new';
  const text = (key: string) => (typeof config[key] === 'string' ? (config[key] as string) : null);
  const next: Record<string, string | null> = {
    new: `POST /connections/${row.id}/ebics/init`,
    'awaiting-bank': `POST /connections/${row.id}/ebics/bank-keys`,
    'confirm-bank-keys': `POST /connections/${row.id}/ebics/confirm-bank-keys`,
    'bank-keys-changed': `POST /connections/${row.id}/ebics/confirm-bank-keys`,
    suspended: `POST /connections/${row.id}/ebics/init`,
    active: null,
  };
  return {
    ebics: {
      state,
      hostId: text('hostId'),
      partnerId: text('partnerId'),
      userId: text('userId'),
      bankKeyHashes: sealed ? bankKeyHashes(JSON.parse(ctx.encryptor.decrypt(sealed))) : null,
      certificatesExpireAt: row.ebicsCertsExpireAt?.toISOString() ?? null,
      reason: row.ebicsStateReason,
      letter: row.ebicsKeysSealed ? `GET /connections/${row.id}/ebics/letter` : null,
    },
    activation: { family: 'C', route: next[state] ?? null },
  };
}
