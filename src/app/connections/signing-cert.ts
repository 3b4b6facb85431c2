import { X509Certificate } from 'node:crypto';
import { findConnection, setConnectionSigningCert } from '../../db/repositories/connections.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { requireCompanyAdmin } from '../identity/access.ts';
import type { Principal } from '../identity/principal.ts';

/** Channels that sign their messages (Finnish and other web services): only they take a signing certificate. */
const WEB_SERVICE_CHANNELS = new Set(['FI_WS', 'WS']);

/** A certificate as PEM, or as base64 DER (whitespace allowed). */
function parseCertificate(text: string): X509Certificate {
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith('-----BEGIN')) return new X509Certificate(trimmed);
    const der = Buffer.from(trimmed.replace(/\s+/g, ''), 'base64');
    return new X509Certificate(der);
  } catch {
    throw new AppError('invalid_certificate', 'cert is not an X.509 certificate in PEM or base64 DER');
  }
}

/**
 * Pins the bank's signing certificate on a web-services connection: inbound signatures are verified
 * against it and fail closed on mismatch. Subject and expiry are stored for display; the certificate
 * itself is sealed and never returned.
 */
export async function pinSigningCertificate(
  ctx: AppContext,
  principal: Principal,
  input: { connectionId: string; platformId: string; companyId: string; cert: string },
) {
  const session = requireCompanyAdmin(principal, input.platformId, input.companyId);
  const scope = { platformId: input.platformId, companyId: input.companyId };
  const connection = await findConnection(ctx.db, scope, input.connectionId);
  if (!connection) throw notFound('connection');
  const channel = getProfile(connection.bankKey)?.channel ?? '';
  if (!WEB_SERVICE_CHANNELS.has(channel)) {
    throw new AppError('not_web_services', `${connection.bankKey} connects over ${channel}, not web services`);
  }
  const cert = parseCertificate(input.cert);
  const subject = cert.subject.replaceAll('\n', ', ');
  const expiry = new Date(cert.validTo);
  await ctx.db.transaction(async (tx) => {
    await setConnectionSigningCert(tx, scope, connection.id, {
      sealed: ctx.encryptor.encrypt(cert.toString()),
      subject,
      expiry,
    });
    await recordEvent(ctx, tx, {
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'connection.signing-cert-pinned',
      message: `signing certificate pinned on ${connection.id}: ${subject}, valid to ${expiry.toISOString()}`,
      actorUserId: session.user.id,
      metadata: {
        connectionId: connection.id,
        subject,
        expiry: expiry.toISOString(),
        fingerprint256: cert.fingerprint256,
      },
      bankKey: connection.bankKey,
      environment: connection.environment,
      connectionId: connection.id,
    });
  });
  return { connectionId: connection.id, certSubject: subject, certExpiry: expiry.toISOString() };
}
