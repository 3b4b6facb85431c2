import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The browser's session for the dashboard and the consent page: the same session as X-Session-Token
 * (DESIGN.md, Dashboard), carried in an HttpOnly, SameSite=Strict cookie that only the dashboard and
 * the OAuth consent routes read. Every form the pages post carries a CSRF token; no API route takes
 * the cookie.
 */
export const SESSION_COOKIE = 'payops_session';
/** Double-submit token of the sign-in form, before there is a session to bind a CSRF token to. */
export const SIGN_IN_COOKIE = 'payops_sign_in';

export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string' || header === '') return undefined;
  const value = parseCookie(header)[name];
  return value === undefined || value === '' ? undefined : value;
}

function setCookie(reply: FastifyReply, name: string, value: string, maxAgeSeconds: number, secure: boolean): void {
  const cookie = stringifySetCookie({
    name,
    value,
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure,
    maxAge: maxAgeSeconds,
  });
  const existing = reply.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
  reply.header('set-cookie', [...list, cookie]);
}

export function setSessionCookie(
  reply: FastifyReply,
  token: string,
  expiresAt: Date,
  now: Date,
  secure: boolean,
): void {
  const seconds = Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
  setCookie(reply, SESSION_COOKIE, token, seconds, secure);
}

/** Signing out: the browser drops the session cookie. */
export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  setCookie(reply, SESSION_COOKIE, '', 0, secure);
}

/** A fresh sign-in token, set as a cookie and put in the form: the post must carry both, equal. */
export function issueSignInToken(reply: FastifyReply, secure: boolean): string {
  const token = randomBytes(32).toString('base64url');
  setCookie(reply, SIGN_IN_COOKIE, token, 30 * 60, secure);
  return token;
}

/**
 * The CSRF token of the dashboard's and the consent page's forms: an HMAC keyed with the session token itself, which only the server
 * (holding its digest, it recomputes from the cookie) and the cookie's owner can produce.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('payops oauth consent').digest('base64url');
}

export function sameSecret(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
