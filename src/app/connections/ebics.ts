import { timingSafeEqual, X509Certificate } from 'node:crypto';
import type { BankCertificates, EbicsClient } from '../../channels/ebics/client.ts';
import { newSubscriberKeys } from '../../channels/ebics/keys.ts';
import { findCompany } from '../../db/repositories/companies.ts';
import { type ConnectionRow, findConnection, updateConnection } from '../../db/repositories/connections.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { certificateHash, parseHashInput } from '../../domain/ebics/crypto.ts';
import { initialisationLetter } from '../../domain/ebics/letter.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { requireCompanyAdmin } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';
import { channelFailureOf } from './bank-refusal.ts';
import { channelTargetOf } from './channel-target.ts';
import { bankKeyHashes } from './ebics-hashes.ts';
import { ebicsMove } from './ebics-state.ts';
import { activeFrom } from './status.ts';
import { connectionView } from './view.ts';

/**
 * EBICS 3.0 onboarding, activation family C (DESIGN.md, EBICS 3.0): init makes the subscriber's keys
 * and sends INI and HIA; the letter is printed for the bank; bank-keys runs HPB and shows the bank's
 * certificate hashes; confirm-bank-keys compares them with what the bank published and activates the
 * connection, or changes nothing. Each step is an audit event; private keys never leave sealed storage.
 */
type Scoped = { connectionId: string; platformId: string; companyId: string };

const ID = /^[a-zA-Z0-9,=]{1,35}$/;
const HOST = /^[A-Za-z0-9][A-Za-z0-9._-]{0,34}$/;

function invalidField(field: string, message: string): AppError {
  return new AppError('validation_failed', `${field}: ${message}`, {
    field,
    issues: [{ path: `body.${field}`, field, message }],
  });
}

async function ebicsConnection(ctx: AppContext, principal: Principal, input: Scoped) {
  const session = requireCompanyAdmin(principal, input.platformId, input.companyId);
  const scope = { platformId: input.platformId, companyId: input.companyId };
  const connection = await findConnection(ctx.db, scope, input.connectionId);
  if (!connection) throw notFound('connection');
  if (getProfile(connection.bankKey)?.channel !== 'EBICS') {
    throw new AppError(
      'wrong_activation_family',
      `${connection.bankKey} does not connect over EBICS; it is not onboarded with the EBICS routes`,
      { bankKey: connection.bankKey, activationRoute: null },
    );
  }
  const about = {
    platformId: scope.platformId,
    companyId: scope.companyId,
    actorUserId: session.user.id,
    bankKey: connection.bankKey,
    environment: connection.environment,
    connectionId: connection.id,
  };
  return { session, scope, connection, about };
}

/** The client's answer to a bank refusal, an unreachable bank, or a configuration it cannot use. */
function ebicsFailure(error: unknown): AppError {
  const failure = channelFailureOf(error);
  if (failure.bank) {
    return new AppError('ebics_refused', `the bank refused: ${failure.message}`, {
      returnCode: failure.bank.code,
      reportText: failure.bank.text,
    });
  }
  if (failure.code === 'invalid_config' || failure.code === 'address_refused') {
    return new AppError('ebics_refused', failure.message, { returnCode: null, reportText: failure.message });
  }
  return new AppError('bank_unavailable', `the bank's EBICS server failed: ${failure.message}`, {
    reason: failure.code,
    retryable: failure.retryable,
  });
}

async function withClient<T>(
  ctx: AppContext,
  connection: ConnectionRow,
  run: (client: EbicsClient) => Promise<T>,
  overrides = {},
) {
  const session = ctx.channels.ebics({ ...channelTargetOf(ctx, connection), ...overrides });
  try {
    return await run(session.client);
  } catch (error) {
    throw ebicsFailure(error);
  } finally {
    await session.close();
  }
}

const hex = (pem: string) => certificateHash(pem).toString('hex').toUpperCase();

export async function initEbics(
  ctx: AppContext,
  principal: Principal,
  input: Scoped & { hostId: string; partnerId: string; userId: string; url?: string | undefined },
) {
  const { scope, connection, about } = await ebicsConnection(ctx, principal, input);
  if (!HOST.test(input.hostId))
    throw invalidField('hostId', "must be the bank's EBICS host id (letters and digits, at most 35)");
  if (!ID.test(input.partnerId)) throw invalidField('partnerId', 'must be 1 to 35 letters, digits, "," or "="');
  if (!ID.test(input.userId)) throw invalidField('userId', 'must be 1 to 35 letters, digits, "," or "="');
  if (input.url !== undefined && !/^https:\/\/[^\s]+$/.test(input.url))
    throw invalidField('url', 'must be an HTTPS URL');
  const next = ebicsMove(connection.ebicsState, 'awaiting-bank');
  const current = channelTargetOf(ctx, connection).config ?? {};
  const settings: Record<string, unknown> = {
    kind: 'ebics',
    hostId: input.hostId,
    partnerId: input.partnerId,
    userId: input.userId,
    ...(current['simulator'] === true ? { simulator: true } : {}),
    ...(input.url ? { url: input.url } : typeof current['url'] === 'string' ? { url: current['url'] } : {}),
  };
  const company = await findCompany(ctx.db, { platformId: scope.platformId }, scope.companyId);
  const keys = await newSubscriberKeys({ ...input, companyName: company?.name ?? 'payops', now: ctx.clock.now() });
  const target = { config: settings, ebics: { keys, bank: undefined } };
  const orders = await withClient(
    ctx,
    connection,
    async (client) => {
      const versions = await client.hev();
      if (!versions.some((v) => v.protocol === 'H005')) {
        throw new AppError('ebics_refused', 'the bank does not offer EBICS 3.0 (H005)', {
          returnCode: null,
          reportText: `offered: ${versions.map((v) => v.protocol).join(', ') || 'none'}`,
        });
      }
      return { ini: await client.ini(), hia: await client.hia() };
    },
    target,
  ).catch((error: unknown) => {
    throw error instanceof AppError ? error : ebicsFailure(error);
  });
  const expires = new Date(
    Math.min(...Object.values(keys).map((k) => Date.parse(new X509Certificate(k.certPem).validTo))),
  );
  const row = await ctx.db.transaction(async (tx) => {
    const updated = await updateConnection(tx, scope, connection.id, {
      channelSealed: ctx.encryptor.encrypt(JSON.stringify(settings)),
      ebicsKeysSealed: ctx.encryptor.encrypt(JSON.stringify(keys)),
      ebicsBankKeysSealed: null,
      ebicsPendingBankKeysSealed: null,
      ebicsState: next,
      ebicsStateReason: null,
      ebicsCertsExpireAt: expires,
    });
    if (!updated) throw new AppError('conflict', 'the connection changed during its onboarding; try again');
    await recordEvent(ctx, tx, {
      ...about,
      type: 'connection.ebics_keys_sent',
      message: `EBICS keys (A006, X002, E002) of ${input.userId} sent to ${input.hostId} with INI and HIA; the bank awaits the letter`,
      metadata: {
        connectionId: connection.id,
        hostId: input.hostId,
        partnerId: input.partnerId,
        userId: input.userId,
        orderIds: { ini: orders.ini.orderId, hia: orders.hia.orderId },
        certificateHashes: {
          signature: hex(keys.signature.certPem),
          authentication: hex(keys.authentication.certPem),
          encryption: hex(keys.encryption.certPem),
        },
      },
    });
    return updated;
  });
  return connectionView(ctx, row);
}

export async function ebicsLetter(ctx: AppContext, principal: Principal, input: Scoped): Promise<string> {
  const { scope, connection } = await ebicsConnection(ctx, principal, input);
  const target = channelTargetOf(ctx, connection);
  const config = target.config ?? {};
  if (!target.ebics) throw new AppError('conflict', 'no EBICS keys yet: run POST /connections/{id}/ebics/init first');
  const company = await findCompany(ctx.db, { platformId: scope.platformId }, scope.companyId);
  const keys = target.ebics.keys;
  return initialisationLetter({
    hostId: String(config['hostId'] ?? ''),
    partnerId: String(config['partnerId'] ?? ''),
    userId: String(config['userId'] ?? ''),
    companyName: company?.name ?? '',
    bankName: getProfile(connection.bankKey)?.bankName ?? connection.bankKey,
    createdAt: ctx.clock.now().toISOString(),
    certificates: {
      signature: keys.signature.certPem,
      authentication: keys.authentication.certPem,
      encryption: keys.encryption.certPem,
    },
  });
}

export async function fetchEbicsBankKeys(ctx: AppContext, principal: Principal, input: Scoped) {
  const { scope, connection, about } = await ebicsConnection(ctx, principal, input);
  if (!connection.ebicsKeysSealed)
    throw new AppError('conflict', 'no EBICS keys yet: run POST /connections/{id}/ebics/init first');
  // A key change keeps its state until the admin confirms; otherwise HPB leads to confirming.
  const next = ebicsMove(
    connection.ebicsState,
    connection.ebicsState === 'bank-keys-changed' ? 'bank-keys-changed' : 'confirm-bank-keys',
  );
  const got = await withClient(ctx, connection, (client) => client.hpb(), {
    ebics: { ...channelTargetOf(ctx, connection).ebics!, bank: undefined },
  });
  const certs: BankCertificates = {
    authenticationCertPem: got.authenticationCertPem,
    encryptionCertPem: got.encryptionCertPem,
  };
  const hashes = bankKeyHashes(certs);
  await ctx.db.transaction(async (tx) => {
    await updateConnection(tx, scope, connection.id, {
      ebicsPendingBankKeysSealed: ctx.encryptor.encrypt(JSON.stringify(certs)),
      ebicsState: next,
    });
    await recordEvent(ctx, tx, {
      ...about,
      type: 'connection.ebics_bank_keys_fetched',
      message: `HPB: bank keys of ${got.hostId} fetched for ${connection.id}; an admin confirms their hashes`,
      metadata: { connectionId: connection.id, hostId: got.hostId, bankKeyHashes: hashes },
    });
  });
  return { connectionId: connection.id, state: next, bankKeyHashes: hashes };
}

function sameHash(typed: string, expectedHex: string): boolean {
  const bytes = parseHashInput(typed);
  const expected = Buffer.from(expectedHex, 'hex');
  return bytes !== null && bytes.length === expected.length && timingSafeEqual(bytes, expected);
}

export async function confirmEbicsBankKeys(
  ctx: AppContext,
  principal: Principal,
  input: Scoped & { authenticationHash: string; encryptionHash: string },
) {
  const { scope, connection, about } = await ebicsConnection(ctx, principal, input);
  if (!connection.ebicsPendingBankKeysSealed) {
    throw new AppError('conflict', 'no bank keys to confirm: run POST /connections/{id}/ebics/bank-keys first');
  }
  const next = ebicsMove(connection.ebicsState, 'active');
  const pending = JSON.parse(ctx.encryptor.decrypt(connection.ebicsPendingBankKeysSealed)) as BankCertificates;
  const hashes = bankKeyHashes(pending);
  const mismatched = [
    ...(sameHash(input.authenticationHash, hashes.authentication) ? [] : ['authenticationHash']),
    ...(sameHash(input.encryptionHash, hashes.encryption) ? [] : ['encryptionHash']),
  ];
  if (mismatched.length > 0) {
    await ctx.db.transaction((tx) =>
      recordEvent(ctx, tx, {
        ...about,
        type: 'connection.ebics_bank_key_mismatch',
        message: `the bank key hashes typed for ${connection.id} do not match what HPB returned: ${mismatched.join(', ')}`,
        metadata: { connectionId: connection.id, mismatched },
      }),
    );
    throw new AppError(
      'bank_key_mismatch',
      'the hashes do not match the bank keys received by HPB; nothing was changed',
      { mismatched },
    );
  }
  const row = await ctx.db.transaction(async (tx) => {
    const updated = await updateConnection(
      tx,
      scope,
      connection.id,
      {
        ebicsBankKeysSealed: connection.ebicsPendingBankKeysSealed,
        ebicsPendingBankKeysSealed: null,
        ebicsState: next,
        ebicsStateReason: null,
        activatedAt: ctx.clock.now(),
      },
      activeFrom(connection.status),
    );
    if (!updated) throw new AppError('conflict', 'the connection changed during its activation; try again');
    await recordEvent(ctx, tx, {
      ...about,
      type: 'connection.activated',
      message: `connection ${connection.id} to ${connection.bankKey} (${connection.environment}) is active over EBICS`,
      metadata: { connectionId: connection.id, status: 'active', bankKeyHashes: hashes },
    });
    return updated;
  });
  return connectionView(ctx, row);
}

/**
 * The bank answered EBICS_BANK_PUBKEY_UPDATE_REQUIRED (or locked the subscriber) on a delivery or
 * pickup: the connection stops being ready with the reason, and for a key change HPB runs at once so
 * the admin only has to confirm the new hashes. Failures here are logged; the next order tries again.
 */
export function isEbicsStateRefusal(error: unknown): boolean {
  const failure = channelFailureOf(error);
  return failure.code === 'bank_keys_changed' || failure.bank?.code === '091002' || failure.bank?.code === '091004';
}

export async function noteEbicsRefusal(ctx: AppContext, connection: ConnectionRow, error: unknown): Promise<void> {
  const failure = channelFailureOf(error);
  const suspended = failure.bank?.code === '091002' || failure.bank?.code === '091004';
  if (!isEbicsStateRefusal(error)) return;
  if (connection.ebicsState !== 'active' && connection.ebicsState !== 'bank-keys-changed') return;
  const scope = { platformId: connection.platformId, companyId: connection.companyId };
  const to = suspended ? 'suspended' : 'bank-keys-changed';
  let pending: BankCertificates | undefined;
  if (!suspended) {
    const target = channelTargetOf(ctx, connection);
    const session = ctx.channels.ebics({
      ...target,
      ebics: target.ebics ? { ...target.ebics, bank: undefined } : undefined,
    });
    try {
      const got = await session.client.hpb();
      pending = { authenticationCertPem: got.authenticationCertPem, encryptionCertPem: got.encryptionCertPem };
    } catch (hpbError) {
      ctx.logger.warn({ err: hpbError, connectionId: connection.id }, 'HPB after a bank key change failed');
    } finally {
      await session.close();
    }
  }
  await ctx.db.transaction(async (tx) => {
    const updated = await updateConnection(
      tx,
      scope,
      connection.id,
      {
        ebicsState: ebicsMove(connection.ebicsState, to),
        ebicsStateReason: `${failure.bank?.code ?? ''} ${failure.message}`.trim(),
        ...(pending ? { ebicsPendingBankKeysSealed: ctx.encryptor.encrypt(JSON.stringify(pending)) } : {}),
      },
      connection.status === 'active' ? { from: 'active', to: 'pending-activation' } : undefined,
    );
    if (!updated) return;
    await recordEvent(ctx, tx, {
      platformId: connection.platformId,
      companyId: connection.companyId,
      type: suspended ? 'connection.ebics_suspended' : 'connection.ebics_bank_keys_changed',
      message: suspended
        ? `the bank refused subscriber of ${connection.id}: ${failure.message}`
        : `the bank changed its EBICS keys; ${connection.id} waits for an admin to confirm the new hashes`,
      metadata: {
        connectionId: connection.id,
        returnCode: failure.bank?.code ?? null,
        ...(pending ? { bankKeyHashes: bankKeyHashes(pending) } : {}),
      },
      bankKey: connection.bankKey,
      environment: connection.environment,
      connectionId: connection.id,
    });
  });
}
