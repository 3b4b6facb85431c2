import { generateSync, generateURI, verifySync } from 'otplib';

/**
 * TOTP as DESIGN.md fixes it (RFC 6238): SHA-1, 6 digits, 30-second steps, one step either side.
 * Pure: the caller passes the time, so tests and the server agree on the clock.
 */
export const TOTP_PERIOD_SECONDS = 30;
const TOLERANCE_SECONDS = TOTP_PERIOD_SECONDS;
const CODE_FORMAT = /^[0-9]{6}$/;

/** The RFC 6238 time step of an accepted code, or null when the code is wrong, malformed or not newer than `afterTimeStep`. */
export function acceptedTimeStep(
  secretBase32: string,
  code: string,
  at: Date,
  afterTimeStep: number | null,
): number | null {
  const token = code.replace(/\s+/g, '');
  if (!CODE_FORMAT.test(token)) return null;
  const result = verifySync({
    secret: secretBase32,
    token,
    epoch: Math.floor(at.getTime() / 1000),
    epochTolerance: TOLERANCE_SECONDS,
    ...(afterTimeStep === null ? {} : { afterTimeStep }),
  });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}

/** The code an authenticator shows at `at` (tests, the demo and the CLI use it). */
export function totpCode(secretBase32: string, at: Date): string {
  return generateSync({ secret: secretBase32, epoch: Math.floor(at.getTime() / 1000) });
}

/** The `otpauth://totp/...` URL an authenticator app scans (as a QR code) to enrol the secret. */
export function otpauthUrl(issuer: string, accountEmail: string, secretBase32: string): string {
  return generateURI({ issuer, label: accountEmail, secret: secretBase32 });
}

/**
 * Recovery codes are typed by people: case, spaces and dashes do not matter. The digest is taken of
 * this normal form.
 */
export function normaliseRecoveryCode(code: string): string {
  return code.replace(/[\s-]+/g, '').toLowerCase();
}

/** Whether a submitted code has the shape of a TOTP code (otherwise it may be a recovery code). */
export function looksLikeTotpCode(code: string): boolean {
  return CODE_FORMAT.test(code.replace(/\s+/g, ''));
}
