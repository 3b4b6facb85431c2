import type { BankCertificates, SubscriberKeys } from '../../channels/ebics/client.ts';
import type { ConnectionRow } from '../../db/repositories/connections.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import type { AppContext } from '../context.ts';
import type { ChannelTarget } from '../delivery/channel-factory.ts';

/**
 * What the channel factory needs to open a connection's channel: the bank's channel kind and the
 * connection's decrypted settings, certificate and private key, and pinned bank certificate. Only
 * the delivery, pickup and certificate use cases call this; nothing of it is ever answered or logged.
 */
export function channelTargetOf(ctx: AppContext, connection: ConnectionRow): ChannelTarget {
  return {
    platformId: connection.platformId,
    companyId: connection.companyId,
    bankKey: connection.bankKey,
    channel: getProfile(connection.bankKey)?.channel ?? 'unknown',
    environment: connection.environment,
    config: connection.channelSealed
      ? (JSON.parse(ctx.encryptor.decrypt(connection.channelSealed)) as Record<string, unknown>)
      : null,
    credentials:
      connection.clientCertPem && connection.clientKeySealed
        ? { certPem: connection.clientCertPem, privateKeyPem: ctx.encryptor.decrypt(connection.clientKeySealed) }
        : undefined,
    bankCertPem: connection.signingCertSealed ? ctx.encryptor.decrypt(connection.signingCertSealed) : undefined,
    ebics: connection.ebicsKeysSealed
      ? {
          keys: JSON.parse(ctx.encryptor.decrypt(connection.ebicsKeysSealed)) as SubscriberKeys,
          bank: connection.ebicsBankKeysSealed
            ? (JSON.parse(ctx.encryptor.decrypt(connection.ebicsBankKeysSealed)) as BankCertificates)
            : undefined,
        }
      : undefined,
  };
}
