import type { ConnectionRow } from '../../db/repositories/connections.ts';
import { findConnection, updateConnection } from '../../db/repositories/connections.ts';
import { type WebServicesProfile, webServicesProfile } from '../../domain/banks/connectivity.ts';
import type { WsFamily } from '../../domain/fi-ws/families.ts';
import { newKeyAndCsr, type SubjectFields } from '../../platform/x509.ts';
import { type AuditEvent, recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { requireCompanyAdmin } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';
import { type ChannelFailure, channelFailureOf, reportSignatureRefusal } from './bank-refusal.ts';
import { channelTargetOf } from './channel-target.ts';
import { enrolledCertificate } from './enrolled-certificate.ts';
import { activeFrom } from './status.ts';
import { connectionView } from './view.ts';

/**
 * Web-services activation (DESIGN.md, Bank connectivity; domain.md §1.1 flows A and B): the service
 * makes the key pair and the PKCS#10 request, enrols it with the bank's certificate service
 * (authenticated by the transfer key, or by the HMAC of the request keyed with the SMS code), and
 * stores the certificate with its private key sealed at rest and the bank's signing certificate
 * pinned. Each step is an audit event; a bank refusal answers 400 activation_failed with the bank's
 * words. Secrets (transfer key, activation code, private key) never reach an event, a log or an answer.
 */
export type FamilyAInput = { userId: string; pin: string };
export type FamilyBInput = {
  holderName: string;
  signerId: string;
  country: string;
  activationCode: string;
  senderId?: string | undefined;
};
export type ActivationInput = { connectionId: string; platformId: string; companyId: string } & (
  | { family: 'A'; fields: FamilyAInput }
  | { family: 'B'; fields: FamilyBInput }
);

const ROUTE: Record<WsFamily, string> = { A: 'activate-op', B: 'activate-nordea' };

/** 400 validation_failed naming the field, in the shape schema failures have. */
function invalidField(field: string, message: string): AppError {
  return new AppError('validation_failed', `${field}: ${message}`, {
    field,
    issues: [{ path: `body.${field}`, field, message }],
  });
}

function checkFields(ws: WebServicesProfile, fields: Record<string, string | undefined>): void {
  for (const [name, rule] of Object.entries(ws.fieldRules)) {
    const value = fields[name];
    if (value === undefined && name === 'senderId') continue;
    if (value === undefined || !new RegExp(rule.pattern).test(value))
      throw invalidField(name, `must be ${rule.description}`);
  }
}

export async function activateConnection(ctx: AppContext, principal: Principal, input: ActivationInput) {
  const session = requireCompanyAdmin(principal, input.platformId, input.companyId);
  const scope = { platformId: input.platformId, companyId: input.companyId };
  const { connection, ws } = await activatable(ctx, scope, input);
  const customerId = input.family === 'A' ? input.fields.userId : input.fields.signerId;
  const subject: SubjectFields =
    input.family === 'A'
      ? { commonName: input.fields.userId, country: 'FI' }
      : { commonName: input.fields.holderName, serialNumber: input.fields.signerId, country: input.fields.country };
  const about: About = {
    platformId: scope.platformId,
    companyId: scope.companyId,
    actorUserId: session.user.id,
    bankKey: connection.bankKey,
    environment: connection.environment,
    connectionId: connection.id,
  };
  const keys = await newKeyAndCsr(subject);
  await ctx.db.transaction(async (tx) => {
    await recordEvent(ctx, tx, {
      ...about,
      type: 'connection.activation_started',
      message: `activation of ${connection.id} (${connection.bankKey}, family ${ws.family}) started for customer ${customerId}`,
      metadata: { connectionId: connection.id, family: ws.family, customerId },
    });
    await recordEvent(ctx, tx, {
      ...about,
      type: 'connection.key_generated',
      message: `RSA 2048 key pair and PKCS#10 request made for ${connection.id}`,
      metadata: { connectionId: connection.id, keyBits: 2048, subject: { ...subject } },
    });
  });
  const settings: Record<string, unknown> = {
    ...(channelTargetOf(ctx, connection).config ?? {}),
    kind: 'fi-ws',
    customerId,
  };
  if (input.family === 'B' && input.fields.senderId) settings['senderId'] = input.fields.senderId;
  const enrolment = await enrol(ctx, connection, about, settings, keys, input);
  const row = await storeEnrolment(ctx, scope, connection, about, settings, enrolment, keys.privateKeyPem, customerId);
  await recordUserInfo(ctx, row, about);
  return connectionView(ctx, row);
}

type About = {
  platformId: string;
  companyId: string;
  actorUserId: string;
  bankKey: string;
  environment: ConnectionRow['environment'];
  connectionId: string;
};
type Keys = Awaited<ReturnType<typeof newKeyAndCsr>>;
type Enrolment = Parameters<typeof enrolledCertificate>[1];

/** The connection, when it is one this family activates and the fields are what its bank asks for. */
async function activatable(
  ctx: AppContext,
  scope: { platformId: string; companyId: string },
  input: ActivationInput,
): Promise<{ connection: ConnectionRow; ws: WebServicesProfile }> {
  const connection = await findConnection(ctx.db, scope, input.connectionId);
  if (!connection) throw notFound('connection');
  const ws = webServicesProfile(connection.bankKey);
  if (ws?.family !== input.family) {
    throw new AppError(
      'wrong_activation_family',
      ws
        ? `${connection.bankKey} is activated with POST /connections/{id}/${ws.activationRoute}, not ${ROUTE[input.family]}`
        : `${connection.bankKey} does not connect over Finnish web services; it has no certificate activation`,
      { bankKey: connection.bankKey, activationRoute: ws?.activationRoute ?? null },
    );
  }
  checkFields(ws, input.fields as Record<string, string | undefined>);
  return { connection, ws };
}

/** Enrols the request with the bank's certificate service; a refusal becomes 400 activation_failed. */
async function enrol(
  ctx: AppContext,
  connection: ConnectionRow,
  about: About,
  settings: Record<string, unknown>,
  keys: Keys,
  input: ActivationInput,
): Promise<Enrolment> {
  const wsSession = ctx.channels.webServices({
    ...channelTargetOf(ctx, connection),
    config: settings,
    bankCertPem: undefined,
  });
  try {
    return await wsSession.client.getCertificate({
      csrDer: keys.csrDer,
      publicKeyPem: keys.publicKeyPem,
      ...(input.family === 'A' ? { transferKey: input.fields.pin } : { activationCode: input.fields.activationCode }),
    });
  } catch (error) {
    throw await activationFailure(ctx, connection, about, channelFailureOf(error));
  } finally {
    await wsSession.close();
  }
}

/** Stores the certificate (key sealed), pins the bank's, and records the three events, in one transaction. */
async function storeEnrolment(
  ctx: AppContext,
  scope: { platformId: string; companyId: string },
  connection: ConnectionRow,
  about: About,
  settings: Record<string, unknown>,
  enrolment: Enrolment,
  privateKeyPem: string,
  customerId: string,
): Promise<ConnectionRow> {
  const { client, bank, patch } = enrolledCertificate(ctx, enrolment, privateKeyPem);
  return ctx.db.transaction(async (tx) => {
    const updated = await updateConnection(
      tx,
      scope,
      connection.id,
      { ...patch, channelSealed: ctx.encryptor.encrypt(JSON.stringify(settings)), activatedAt: ctx.clock.now() },
      activeFrom(connection.status),
    );
    if (!updated) throw new AppError('conflict', 'the connection changed during its activation; try again');
    await recordEvent(ctx, tx, {
      ...about,
      type: 'connection.certificate_enrolled',
      message: `certificate ${client.serialNumber} enrolled for ${connection.id}: ${client.subject}, valid to ${client.notAfter.toISOString()}`,
      metadata: {
        connectionId: connection.id,
        subject: client.subject,
        issuer: client.issuer,
        serialNumber: client.serialNumber,
        expiry: client.notAfter.toISOString(),
        fingerprint256: client.fingerprint256,
      },
    });
    await recordEvent(ctx, tx, {
      ...about,
      type: 'connection.signing-cert-pinned',
      message: `bank signing certificate pinned on ${connection.id} at enrolment: ${bank.subject}`,
      metadata: {
        connectionId: connection.id,
        subject: bank.subject,
        expiry: bank.notAfter.toISOString(),
        fingerprint256: bank.fingerprint256,
        source: 'enrolment',
      },
    });
    await recordEvent(ctx, tx, {
      ...about,
      type: 'connection.activated',
      message: `connection ${connection.id} to ${connection.bankKey} (${connection.environment}) is active`,
      metadata: { connectionId: connection.id, status: 'active', customerId },
    });
    return updated;
  });
}

/**
 * The first signed call with the new certificate: getUserInfo, the file types the agreement allows,
 * kept in the audit trail. It proves the certificate works end to end; a failure here does not undo
 * the activation (the certificate is the bank's), it is logged.
 */
async function recordUserInfo(ctx: AppContext, connection: ConnectionRow, about: Omit<AuditEvent, 'type' | 'message'>) {
  const session = ctx.channels.webServices(channelTargetOf(ctx, connection));
  try {
    const fileTypes = await session.client.userInfo();
    await ctx.db.transaction((tx) =>
      recordEvent(ctx, tx, {
        ...about,
        type: 'connection.user_info',
        message: `${connection.bankKey} allows ${fileTypes.map((f) => `${f.direction} ${f.fileType}`).join(', ')}`,
        metadata: { connectionId: connection.id, fileTypes },
      }),
    );
  } catch (error) {
    const failure = channelFailureOf(error);
    if (failure.code === 'signature_invalid') await reportSignatureRefusal(ctx, connection, 'getUserInfo', failure);
    else
      ctx.logger.warn({ connectionId: connection.id, reason: failure.message }, 'getUserInfo after activation failed');
  } finally {
    await session.close();
  }
}

/** Records why the activation failed and answers the client's error: the bank's words for a refusal. */
async function activationFailure(
  ctx: AppContext,
  connection: ConnectionRow,
  about: {
    platformId: string;
    companyId: string;
    actorUserId: string;
    bankKey: string;
    environment: string;
    connectionId: string;
  },
  failure: ChannelFailure,
): Promise<AppError> {
  if (failure.code === 'signature_invalid') await reportSignatureRefusal(ctx, connection, 'getCertificate', failure);
  await ctx.db.transaction((tx) =>
    recordEvent(ctx, tx, {
      ...about,
      type: 'connection.activation_failed',
      message: `activation of ${connection.id} failed: ${failure.bank ? `${failure.bank.code} ${failure.bank.text}` : failure.message}`,
      metadata: { connectionId: connection.id, reason: failure.code, ...(failure.bank ? { bank: failure.bank } : {}) },
    }),
  );
  if (failure.code === 'bank_refused' && failure.bank) {
    return new AppError('activation_failed', `the bank refused the activation: ${failure.bank.text}`, {
      bankCode: failure.bank.code,
      bankMessage: failure.bank.text,
    });
  }
  if (failure.code === 'invalid_config' || failure.code === 'address_refused') {
    return new AppError('activation_failed', failure.message, { reason: failure.code });
  }
  // The bank could not be reached or answered something unusable: not the client's mistake.
  return new AppError('bank_unavailable', `the bank's certificate service failed: ${failure.message}`, {
    reason: failure.code,
    retryable: failure.retryable,
  });
}
