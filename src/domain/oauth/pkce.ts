import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * PKCE (RFC 7636) with S256 only: `plain` would send the verifier itself through the browser. A
 * verifier is 43 to 128 unreserved characters (§4.1); a challenge is the base64url SHA-256 of it,
 * always 43 characters (§4.2).
 */
export const PKCE_METHODS = ['S256'] as const;

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isCodeVerifier(value: string): boolean {
  return VERIFIER.test(value);
}

export function isCodeChallenge(value: string): boolean {
  return CHALLENGE.test(value);
}

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Whether `verifier` answers `challenge`, compared in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!isCodeVerifier(verifier) || !isCodeChallenge(challenge)) return false;
  return timingSafeEqual(Buffer.from(s256Challenge(verifier)), Buffer.from(challenge));
}
