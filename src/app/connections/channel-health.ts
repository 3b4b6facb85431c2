import type { BankChannel } from '../../channels/channel.ts';
import { ChannelError } from '../../channels/errors.ts';
import { type ConnectionRow, updateConnection } from '../../db/repositories/connections.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { channelTargetOf } from './channel-target.ts';

/**
 * Permanent errors that are the connection's, not one file's: the settings or the bank's side of
 * the channel (host key, credentials, address, folders, configuration, activation, a signature
 * that does not verify). One of them makes the connection not ready until the channel works again;
 * a refused file or a name conflict does not.
 */
const CONNECTION_FAULTS: ReadonlySet<string> = new Set([
  'host_key_mismatch',
  'auth_failed',
  'address_refused',
  'invalid_config',
  'missing_folder',
  'not_activated',
  'signature_invalid',
]);

export type ChannelFault = { code: string; message: string; at: string };

/** The fault an error is, when it is a connection-level permanent one. */
export function connectionFaultOf(error: unknown, at: Date): ChannelFault | undefined {
  if (!(error instanceof ChannelError) || error.retryable || !CONNECTION_FAULTS.has(error.code)) return undefined;
  return { code: error.code, message: error.message, at: at.toISOString() };
}

/**
 * Records (or clears, with null) the connection's channel fault; a new fault is an audit event.
 * Answers the row after.
 */
export async function recordChannelFault(
  ctx: AppContext,
  connection: ConnectionRow,
  fault: ChannelFault | null,
): Promise<ConnectionRow> {
  const scope = { platformId: connection.platformId, companyId: connection.companyId };
  const same = fault?.code === connection.channelError?.code && fault?.message === connection.channelError?.message;
  if (same || (fault === null && connection.channelError === null)) return connection;
  return ctx.db.transaction(async (tx) => {
    const updated = await updateConnection(tx, scope, connection.id, { channelError: fault });
    if (fault) {
      await recordEvent(ctx, tx, {
        platformId: scope.platformId,
        companyId: scope.companyId,
        type: 'connection.channel_failed',
        message: `connection ${connection.id} to ${connection.bankKey} is not ready: ${fault.message}`,
        metadata: { connectionId: connection.id, code: fault.code, reason: fault.message },
        bankKey: connection.bankKey,
        environment: connection.environment,
        connectionId: connection.id,
      });
    }
    return updated ?? connection;
  });
}

type Calls = Pick<BankChannel, 'deliver' | 'fetchInbound' | 'acknowledge'>;

/**
 * The connection's channel for a delivery or a pickup, watched: a connection-level permanent error
 * is recorded on the connection (readiness not ready, with the reason) and thrown on; the first call
 * that works again clears it.
 */
export function openConnectionChannel(ctx: AppContext, connection: ConnectionRow): BankChannel {
  let row = connection;
  const watch = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      const result = await call();
      if (row.channelError) row = await recordChannelFault(ctx, row, null);
      return result;
    } catch (error) {
      const fault = connectionFaultOf(error, ctx.clock.now());
      if (fault) row = await recordChannelFault(ctx, row, fault).catch(() => row);
      throw error;
    }
  };
  let channel: BankChannel;
  try {
    channel = ctx.channels.open(channelTargetOf(ctx, connection));
  } catch (error) {
    const fault = connectionFaultOf(error, ctx.clock.now());
    // Opening is synchronous: the fault is recorded in the background, the error thrown at once.
    if (fault) recordChannelFault(ctx, connection, fault).catch(() => {});
    throw error;
  }
  const watched: Calls = {
    deliver: (file) => watch(() => channel.deliver(file)),
    fetchInbound: () => watch(() => channel.fetchInbound()),
    acknowledge: (file) => watch(() => channel.acknowledge(file)),
  };
  return {
    ...channel,
    ...watched,
    ...(channel.deliverMany ? { deliverMany: (files) => watch(() => channel.deliverMany!(files)) } : {}),
    ...(channel.listInbound ? { listInbound: () => watch(() => channel.listInbound!()) } : {}),
    ...(channel.download ? { download: (ref) => watch(() => channel.download!(ref)) } : {}),
    close: () => channel.close(),
  };
}
