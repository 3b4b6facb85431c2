import type { BankChannel } from '../../channels/channel.ts';
import { ChannelError } from '../../channels/errors.ts';
import { type ConnectionRow, findConnection, updateConnection } from '../../db/repositories/connections.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { checkHostTarget, checkUrlTarget, SsrfError } from '../../platform/ssrf-guard.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import type { ChannelTarget } from '../delivery/channel-factory.ts';
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
  return new AppError('validation_failed', `${field}: ${message}`, {
    field,
    issues: [{ path: `body.${field}`, field, message }],
  });
}

/** Only set fields are written: an omitted secret keeps its stored value (secrets are write-only). */
function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

/**
 * PUT /connections/{id}/settings: the channel settings of a connection, sealed at rest. Every host is
 * SSRF-checked first (400 with the reason). SFTP settings (host, port, user, pinned host key, folders,
 * key or password) make an SFTP connection active once a connection with them works (host key
 * against the pin, authentication, folders; else 400 channel_check_failed, nothing stored); web-services settings (customer id, target id, sender id, endpoints) are
 * what the activation and the channel use. Secrets are never answered, only whether they are set.
 */
export async function putChannelSettings(ctx: AppContext, principal: Principal, input: SettingsInput) {
  const session = requireCompanyAdmin(principal, input.platformId, input.companyId);
  const scope = { platformId: input.platformId, companyId: input.companyId };
  const connection = await findConnection(ctx.db, scope, input.connectionId);
  if (!connection) throw notFound('connection');
  const { wanted, given } = givenSettings(connection, input);
  const previous = channelTargetOf(ctx, connection).config ?? {};
  const stored: Record<string, unknown> =
    wanted === 'sftp'
      ? { ...(previous['kind'] === 'sftp' ? previous : {}), ...defined(given), kind: 'sftp' }
      : await webServicesConfig(ctx, previous, given as WebServicesSettings);
  if (wanted === 'sftp') {
    if (typeof stored['privateKey'] !== 'string' && typeof stored['password'] !== 'string') {
      throw invalid('sftp.privateKey', 'a private key or a password is required');
    }
    await guardHost(ctx, 'sftp.host', typeof stored['host'] === 'string' ? stored['host'] : '');
    await tryChannel(ctx, { ...channelTargetOf(ctx, connection), config: { ...stored, ...CHECK_DEADLINES } });
  }
  const changed = Object.keys(given).filter((k) => (given as Record<string, unknown>)[k] !== undefined);
  const row = await storeSettings(ctx, scope, connection, wanted, stored, changed, session.user.id);
  return connectionView(ctx, row);
}

type Wanted = 'sftp' | 'webServices';

/** The settings the connection's bank channel takes (SFTP or web services), and only those, or 400 wrong_channel. */
function givenSettings(connection: ConnectionRow, input: SettingsInput) {
  const channel = getProfile(connection.bankKey)?.channel;
  const wanted: Wanted | null = channel === 'SFTP' ? 'sftp' : channel === 'FI_WS' ? 'webServices' : null;
  if (!wanted) {
    throw new AppError(
      'wrong_channel',
      `${connection.bankKey} connects over ${channel ?? 'no channel'}; it has no channel settings here`,
    );
  }
  const given = wanted === 'sftp' ? input.sftp : input.webServices;
  const other = wanted === 'sftp' ? input.webServices : input.sftp;
  if (!given || other) {
    throw new AppError(
      'wrong_channel',
      `${connection.bankKey} connects over ${channel}: send ${wanted} settings only`,
      {
        field: wanted,
      },
    );
  }
  return { wanted, given };
}

/** Seals and stores the settings (an SFTP connection that passed its check becomes active), with their events. */
async function storeSettings(
  ctx: AppContext,
  scope: { platformId: string; companyId: string },
  connection: ConnectionRow,
  wanted: Wanted,
  stored: Record<string, unknown>,
  changed: string[],
  actorUserId: string,
): Promise<ConnectionRow> {
  const activates = wanted === 'sftp' && connection.status !== 'active';
  const about = {
    platformId: scope.platformId,
    companyId: scope.companyId,
    actorUserId,
    bankKey: connection.bankKey,
    environment: connection.environment,
    connectionId: connection.id,
  };
  return ctx.db.transaction(async (tx) => {
    const updated = await updateConnection(
      tx,
      scope,
      connection.id,
      {
        channelSealed: ctx.encryptor.encrypt(JSON.stringify(stored)),
        // Settings that passed the check replace the ones that failed.
        ...(wanted === 'sftp' ? { channelError: null } : {}),
        ...(activates ? { activatedAt: ctx.clock.now() } : {}),
      },
      activates ? activeFrom(connection.status) : undefined,
    );
    if (!updated) throw new AppError('conflict', 'the connection changed meanwhile; try again');
    await recordEvent(ctx, tx, {
      ...about,
      type: 'connection.settings_updated',
      message: `${wanted} settings of ${connection.id} updated (${changed.join(', ')})`,
      // Names of the changed fields only: no secret, and no value a secret could hide in.
      metadata: {
        connectionId: connection.id,
        channel: wanted,
        fields: changed,
        secretsChanged: changed.filter((k) => (SECRET_FIELDS as readonly string[]).includes(k)),
      },
    });
    if (activates) {
      await recordEvent(ctx, tx, {
        ...about,
        type: 'connection.activated',
        message: `connection ${connection.id} to ${connection.bankKey} (${connection.environment}) is active`,
        metadata: { connectionId: connection.id, status: 'active', channel: 'sftp' },
      });
    }
    return updated;
  });
}

/** A save-time check is shorter than a delivery's deadlines: a silent host answers in seconds, not minutes. */
const CHECK_DEADLINES = { connectTimeoutMs: 10_000, operationTimeoutMs: 20_000 };

/** The SSRF guard every outbound target goes through (src/platform/ssrf-guard.ts), at save time. */
async function guardHost(ctx: AppContext, field: string, host: string, url?: URL): Promise<void> {
  const policy = { allowPrivate: ctx.config.webhookAllowPrivateTargets };
  try {
    if (url) await checkUrlTarget(url, policy);
    else await checkHostTarget(host, policy);
  } catch (error) {
    if (!(error instanceof SsrfError)) throw error;
    throw new AppError('validation_failed', `${field}: ${error.message}`, {
      field,
      issues: [{ path: `body.${field}`, field, code: 'target_not_allowed', message: error.message }],
    });
  }
}

/**
 * Opens the channel with the new settings and, where it can, connects once as a delivery would
 * (SFTP: host key against the pin, authentication, both folders). Configuration the channel refuses
 * is 400 validation_failed; a check that fails is 400 channel_check_failed naming what failed, with
 * the readiness such settings would have. Nothing is stored either way.
 */
async function tryChannel(ctx: AppContext, target: ChannelTarget): Promise<void> {
  let channel: BankChannel;
  try {
    channel = ctx.channels.open(target);
  } catch (error) {
    throw invalid('sftp', (error as Error).message);
  }
  try {
    await channel.check?.();
  } catch (error) {
    const at = ctx.clock.now().toISOString();
    const code = error instanceof ChannelError ? error.code : 'connection_failed';
    const message = (error as Error).message;
    throw new AppError('channel_check_failed', `the connection check failed: ${message}`, {
      field: 'sftp',
      check: { code, message, retryable: error instanceof ChannelError ? error.retryable : true },
      readiness: { ready: false, missing: ['channel'], channelError: { code, message, at } },
    });
  } finally {
    await channel.close().catch(() => {});
  }
}

async function webServicesConfig(
  ctx: AppContext,
  previous: Record<string, unknown>,
  given: WebServicesSettings,
): Promise<Record<string, unknown>> {
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
    await guardHost(ctx, `webServices.${field}`, url.hostname, url);
  }
  const base = previous['kind'] === 'fi-ws' ? previous : {};
  const next: Record<string, unknown> = { ...base, ...defined(given), kind: 'fi-ws' };
  // Endpoints of the user's own replace the sandbox simulator.
  if (given.fileServiceUrl !== undefined || given.certServiceUrl !== undefined) delete next['simulator'];
  return next;
}
