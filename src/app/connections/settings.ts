import { findConnection, updateConnection } from '../../db/repositories/connections.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { requireCompanyAdmin } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';
import { channelTargetOf } from './channel-target.ts';
import { SECRET_FIELDS } from './settings-view.ts';
import { activeFrom } from './status.ts';
import { connectionView } from './view.ts';

export type SftpSettings = {
  host: string;
  port?: number | undefined;
  username: string;
  hostKeySha256: string;
  inboundDir: string;
  outboundDir: string;
  archiveDir?: string | undefined;
  privateKey?: string | undefined;
  passphrase?: string | undefined;
  password?: string | undefined;
};

export type WebServicesSettings = {
  customerId?: string | undefined;
  targetId?: string | undefined;
  senderId?: string | undefined;
  fileServiceUrl?: string | undefined;
  certServiceUrl?: string | undefined;
};

export type SettingsInput = {
  connectionId: string;
  platformId: string;
  companyId: string;
  sftp?: SftpSettings | undefined;
  webServices?: WebServicesSettings | undefined;
};

function invalid(field: string, message: string): AppError {
  return new AppError(400, 'validation_failed', `${field}: ${message}`, {
    field,
    issues: [{ path: `body.${field}`, field, message }],
  });
}

/** Only set fields are written: an omitted secret keeps its stored value (secrets are write-only). */
function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

/**
 * PUT /connections/{id}/settings: the channel settings of a connection, sealed at rest. SFTP settings
 * (host, port, user, pinned host key, folders, key or password) make an SFTP connection active once
 * the channel accepts them; web-services settings (customer id, target id, sender id, endpoints) are
 * what the activation and the channel use. Secrets are never answered, only whether they are set.
 */
export async function putChannelSettings(ctx: AppContext, principal: Principal, input: SettingsInput) {
  const session = requireCompanyAdmin(principal, input.platformId, input.companyId);
  const scope = { platformId: input.platformId, companyId: input.companyId };
  const connection = await findConnection(ctx.db, scope, input.connectionId);
  if (!connection) throw notFound('connection');
  const channel = getProfile(connection.bankKey)?.channel;
  const wanted = channel === 'SFTP' ? 'sftp' : channel === 'FI_WS' ? 'webServices' : null;
  if (!wanted) {
    throw new AppError(
      400,
      'wrong_channel',
      `${connection.bankKey} connects over ${channel ?? 'no channel'}; it has no channel settings here`,
    );
  }
  const given = wanted === 'sftp' ? input.sftp : input.webServices;
  const other = wanted === 'sftp' ? input.webServices : input.sftp;
  if (!given || other) {
    throw new AppError(
      400,
      'wrong_channel',
      `${connection.bankKey} connects over ${channel}: send ${wanted} settings only`,
      {
        field: wanted,
      },
    );
  }
  const previous = channelTargetOf(ctx, connection).config ?? {};
  const stored: Record<string, unknown> =
    wanted === 'sftp'
      ? { ...(previous['kind'] === 'sftp' ? previous : {}), ...defined(given), kind: 'sftp' }
      : webServicesConfig(previous, given as WebServicesSettings);

  if (wanted === 'sftp') {
    if (typeof stored['privateKey'] !== 'string' && typeof stored['password'] !== 'string') {
      throw invalid('sftp.privateKey', 'a private key or a password is required');
    }
    // The channel checks the rest (key readable, fingerprint form, port, folders) as it would at delivery.
    try {
      await ctx.channels.open({ ...channelTargetOf(ctx, connection), config: stored }).close();
    } catch (error) {
      throw invalid('sftp', (error as Error).message);
    }
  }

  const changed = Object.keys(given).filter((k) => (given as Record<string, unknown>)[k] !== undefined);
  const activates = wanted === 'sftp' && connection.status !== 'active';
  const row = await ctx.db.transaction(async (tx) => {
    const updated = await updateConnection(
      tx,
      scope,
      connection.id,
      {
        channelSealed: ctx.encryptor.encrypt(JSON.stringify(stored)),
        ...(activates ? { activatedAt: ctx.clock.now() } : {}),
      },
      activates ? activeFrom(connection.status) : undefined,
    );
    if (!updated) throw new AppError(409, 'conflict', 'the connection changed meanwhile; try again');
    await recordEvent(ctx, tx, {
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'connection.settings_updated',
      message: `${wanted} settings of ${connection.id} updated (${changed.join(', ')})`,
      actorUserId: session.user.id,
      // Names of the changed fields only: no secret, and no value a secret could hide in.
      metadata: {
        connectionId: connection.id,
        channel: wanted,
        fields: changed,
        secretsChanged: changed.filter((k) => (SECRET_FIELDS as readonly string[]).includes(k)),
      },
      bankKey: connection.bankKey,
      environment: connection.environment,
      connectionId: connection.id,
    });
    if (activates) {
      await recordEvent(ctx, tx, {
        platformId: scope.platformId,
        companyId: scope.companyId,
        type: 'connection.activated',
        message: `connection ${connection.id} to ${connection.bankKey} (${connection.environment}) is active`,
        actorUserId: session.user.id,
        metadata: { connectionId: connection.id, status: 'active', channel: 'sftp' },
        bankKey: connection.bankKey,
        environment: connection.environment,
        connectionId: connection.id,
      });
    }
    return updated;
  });
  return connectionView(ctx, row);
}

function webServicesConfig(previous: Record<string, unknown>, given: WebServicesSettings): Record<string, unknown> {
  for (const field of ['fileServiceUrl', 'certServiceUrl'] as const) {
    const value = given[field];
    if (value === undefined) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw invalid(`webServices.${field}`, 'must be an https URL');
    }
    if (url.protocol !== 'https:' || url.username || url.password) {
      throw invalid(`webServices.${field}`, 'must be an https URL without credentials');
    }
  }
  const base = previous['kind'] === 'fi-ws' ? previous : {};
  const next: Record<string, unknown> = { ...base, ...defined(given), kind: 'fi-ws' };
  // Endpoints of the user's own replace the sandbox simulator.
  if (given.fileServiceUrl !== undefined || given.certServiceUrl !== undefined) delete next['simulator'];
  return next;
}
