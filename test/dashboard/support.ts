/**
 * Dashboard test support: signing a browser in through the real sign-in form (inject), and reading
 * what the pages render.
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { nextIp, type TestApp } from '../harness.ts';

export type Browser = { cookie: string; csrf: string; remoteAddress: string };

function cookieValue(res: LightMyRequestResponse, name: string): string | undefined {
  const header = res.headers['set-cookie'];
  const list = header === undefined ? [] : Array.isArray(header) ? header : [header];
  for (const line of list) {
    const [pair] = line.split(';');
    const [key, value] = (pair ?? '').split('=');
    if (key === name && value) return decodeURIComponent(value);
  }
  return undefined;
}

/** The value of a hidden field in a page. */
export function hiddenValue(body: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(body);
  assert.ok(match, `no ${name} field in the page`);
  return match[1]!;
}

export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** Signs in through GET and POST /dashboard/sign-in, as a browser does; answers the session cookie. */
export async function signIn(t: TestApp, email: string, password: string): Promise<Browser> {
  const remoteAddress = nextIp();
  const page = await t.request({ method: 'GET', url: '/dashboard/sign-in', remoteAddress });
  assert.equal(page.statusCode, 200);
  const signInCookie = cookieValue(page, 'payops_sign_in');
  assert.ok(signInCookie);
  const res = await t.request({
    method: 'POST',
    url: '/dashboard/sign-in',
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `payops_sign_in=${signInCookie}` },
    payload: form({ sign_in_token: hiddenValue(page.body, 'sign_in_token'), email, password }),
  });
  assert.equal(res.statusCode, 303, res.body);
  const session = cookieValue(res, 'payops_session');
  assert.ok(session, 'no session cookie set');
  const cookie = `payops_session=${session}`;
  const overview = await t.request({ method: 'GET', url: '/dashboard', headers: { cookie }, remoteAddress });
  assert.equal(overview.statusCode, 200, overview.body);
  return { cookie, csrf: hiddenValue(overview.body, 'csrf_token'), remoteAddress };
}

export function get(t: TestApp, browser: Browser, url: string) {
  return t.request({ method: 'GET', url, headers: { cookie: browser.cookie }, remoteAddress: browser.remoteAddress });
}

export function post(t: TestApp, browser: Browser, url: string, fields: Record<string, string>) {
  return t.request({
    method: 'POST',
    url,
    headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ csrf_token: browser.csrf, ...fields }),
    remoteAddress: browser.remoteAddress,
  });
}
