import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grantTransition, refreshVerdict, tokenPairTransition } from '../lifecycle/index.ts';
import { isCodeVerifier, s256Challenge, verifierMatches } from './pkce.ts';
import { checkRedirectUri } from './redirect-uri.ts';
import { formatScope, parseScope } from './scopes.ts';

test('loopback redirect URIs: exactly http://127.0.0.1:<port>/<path>', () => {
  for (const good of ['http://127.0.0.1:8123/', 'http://127.0.0.1:1/cb', 'http://127.0.0.1:65535/oauth/callback-2']) {
    assert.deepEqual(checkRedirectUri(good), { ok: true }, good);
  }
  for (const bad of [
    'http://localhost:8123/cb',
    'http://127.0.0.1/cb',
    'http://127.0.0.1:8123',
    'https://127.0.0.1:8123/cb',
    'http://127.0.0.2:8123/cb',
    'http://[::1]:8123/cb',
    'http://127.0.0.1:0/cb',
    'http://127.0.0.1:65536/cb',
    'http://127.0.0.1:08123/cb',
    'http://127.0.0.1:8123/cb?x=1',
    'http://127.0.0.1:8123/cb#frag',
    'http://user@127.0.0.1:8123/cb',
    'http://127.0.0.1:8123/a/../b',
    'HTTP://127.0.0.1:8123/cb',
    `http://127.0.0.1:8123/${'a'.repeat(2048)}`,
  ]) {
    assert.equal(checkRedirectUri(bad).ok, false, bad);
  }
});

test('PKCE S256: the RFC 7636 appendix B example, and verifiers of the right form only', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  assert.equal(s256Challenge(verifier), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  assert.equal(verifierMatches(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), true);
  assert.equal(verifierMatches(`${verifier}x`, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), false);
  assert.equal(verifierMatches(verifier, verifier), false, 'plain is not S256');
  assert.equal(isCodeVerifier('a'.repeat(42)), false);
  assert.equal(isCodeVerifier('a'.repeat(43)), true);
  assert.equal(isCodeVerifier('a'.repeat(128)), true);
  assert.equal(isCodeVerifier('a'.repeat(129)), false);
  assert.equal(isCodeVerifier(`${'a'.repeat(43)}+`), false);
});

test('scopes: space-delimited, known, not repeated, printed in one order', () => {
  assert.deepEqual(parseScope('payments:read payments:submit'), {
    ok: true,
    scopes: ['payments:submit', 'payments:read'],
  });
  assert.deepEqual(parseScope(' engine:use  '), { ok: true, scopes: ['engine:use'] });
  assert.equal(parseScope(undefined).ok, false);
  assert.equal(parseScope('   ').ok, false);
  assert.equal(parseScope('payments:read openid').ok, false);
  assert.equal(parseScope('payments:read payments:read').ok, false);
  assert.equal(formatScope(['banks:read', 'payments:submit']), 'payments:submit banks:read');
});

test('lifecycles: a pair rotates once, a rotated pair only dies, a revoked grant stays revoked', () => {
  assert.deepEqual(tokenPairTransition('active', 'rotated'), { ok: true, to: 'rotated', changed: true });
  assert.deepEqual(tokenPairTransition('active', 'revoked'), { ok: true, to: 'revoked', changed: true });
  assert.deepEqual(tokenPairTransition('rotated', 'active'), {
    ok: false,
    reason: 'a token pair cannot move from rotated to active',
  });
  assert.deepEqual(tokenPairTransition('rotated', 'revoked'), { ok: true, to: 'revoked', changed: true });
  assert.deepEqual(tokenPairTransition('revoked', 'revoked'), { ok: true, to: 'revoked', changed: false });
  assert.equal(tokenPairTransition('revoked', 'active').ok, false);
  assert.equal(refreshVerdict('active'), 'rotate');
  assert.equal(refreshVerdict('rotated'), 'replay');
  assert.equal(refreshVerdict('revoked'), 'dead');
  assert.deepEqual(grantTransition('active', 'revoked'), { ok: true, to: 'revoked', changed: true });
  assert.deepEqual(grantTransition('revoked', 'active'), {
    ok: false,
    reason: 'a grant cannot move from revoked to active',
  });
});
