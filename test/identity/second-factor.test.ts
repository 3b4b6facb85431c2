/**
 * The TOTP core (DESIGN.md, Identity) on real PostgreSQL: enrolment keeps the secret sealed, a code
 * is accepted once, recovery codes are stored as digests and are single use, and
 * verifyUserSecondFactor answers what the approvals path needs.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { authenticateSession } from '../../src/app/identity/authenticate.ts';
import type { SessionPrincipal } from '../../src/app/identity/principal.ts';
import {
  disableTwoFactor,
  enableTwoFactor,
  regenerateRecoveryCodes,
  setupTwoFactor,
  verifyUserSecondFactor,
} from '../../src/app/identity/two-factor.ts';
import { totpCode } from '../../src/domain/identity/totp.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

const clock = manualClock(new Date('2026-11-26T12:00:05.000Z'));
let t: TestApp;
let db: pg.Pool;
let session: SessionPrincipal;

before(async () => {
  t = await startTestApp({ clock });
  db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
  const sandbox = await provisionAndLogin(t);
  const principal = await authenticateSession(t.ctx, sandbox.sessionToken);
  assert.ok(principal);
  session = principal;
});
after(async () => {
  await db.end();
  await t.close();
});

test('enrolment, single-use codes, recovery codes as digests, disable', async () => {
  const scope = { platformId: session.platformId };
  const userId = session.user.id;
  const before = await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, '123456');
  assert.deepEqual(before, { ok: false, reason: 'not_enrolled' });

  const { secret, otpauthUrl } = await setupTwoFactor(t.ctx, session);
  assert.match(secret, /^[A-Z2-7]{32}$/, '20 random bytes in base32');
  assert.ok(otpauthUrl.startsWith('otpauth://totp/'));
  assert.ok(otpauthUrl.includes(`secret=${secret}`));
  const stored = await db.query('SELECT secret_sealed, enabled_at FROM user_two_factor WHERE user_id = $1', [userId]);
  assert.equal(stored.rows[0].enabled_at, null, 'pending until a code confirms it');
  assert.ok(!String(stored.rows[0].secret_sealed).includes(secret), 'the secret is sealed at rest');
  assert.equal(t.ctx.encryptor.decrypt(stored.rows[0].secret_sealed), secret);

  // Pending: the factor does not count yet.
  const pending = await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, totpCode(secret, clock.now()));
  assert.deepEqual(pending, { ok: false, reason: 'not_enrolled' });

  await assert.rejects(enableTwoFactor(t.ctx, session, '000000'), { code: 'wrong_code' });
  const enabled = await enableTwoFactor(t.ctx, session, totpCode(secret, clock.now()));
  assert.equal(enabled.enabled, true);
  assert.equal(enabled.recoveryCodes.length, 10);
  assert.equal(new Set(enabled.recoveryCodes).size, 10);
  const digests = await db.query('SELECT digest FROM recovery_codes WHERE user_id = $1', [userId]);
  assert.equal(digests.rowCount, 10);
  for (const row of digests.rows) {
    assert.match(row.digest, /^[0-9a-f]{64}$/);
    assert.ok(!enabled.recoveryCodes.some((c) => row.digest.includes(c.replace('-', ''))));
  }

  // The code that enabled 2FA was spent: the same code is refused, at once and within its window.
  const spentCode = totpCode(secret, clock.now());
  assert.deepEqual(await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, spentCode), {
    ok: false,
    reason: 'invalid_code',
  });
  clock.advance(30_000);
  const next = totpCode(secret, clock.now());
  assert.deepEqual(await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, next), { ok: true, method: 'totp' });
  assert.deepEqual(await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, next), {
    ok: false,
    reason: 'invalid_code',
  });
  // The previous step's code is still inside the one-step window, but older than the last accepted one.
  assert.deepEqual(await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, spentCode), {
    ok: false,
    reason: 'invalid_code',
  });

  // Two requests with the same fresh code at once: exactly one wins.
  clock.advance(30_000);
  const raced = totpCode(secret, clock.now());
  const outcomes = await Promise.all([
    verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, raced),
    verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, raced),
  ]);
  assert.equal(outcomes.filter((o) => o.ok).length, 1);

  // A code two steps old is outside the window.
  clock.advance(90_000);
  const stale = totpCode(secret, new Date(clock.now().getTime() - 60_000));
  assert.equal((await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, stale)).ok, false);

  // Recovery codes count only where the caller allows them, and once.
  const [first] = enabled.recoveryCodes;
  assert.ok(first);
  assert.deepEqual(await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, first), {
    ok: false,
    reason: 'invalid_code',
  });
  assert.deepEqual(
    await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, first.toUpperCase(), { allowRecoveryCode: true }),
    { ok: true, method: 'recovery_code' },
  );
  assert.deepEqual(await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, first, { allowRecoveryCode: true }), {
    ok: false,
    reason: 'invalid_code',
  });

  // A new set replaces the old one.
  clock.advance(30_000);
  const regenerated = await regenerateRecoveryCodes(t.ctx, session, totpCode(secret, clock.now()));
  assert.equal(regenerated.recoveryCodes.length, 10);
  const old = enabled.recoveryCodes[1];
  assert.ok(old);
  assert.equal(
    (await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, old, { allowRecoveryCode: true })).ok,
    false,
  );

  clock.advance(30_000);
  await disableTwoFactor(t.ctx, session, totpCode(secret, clock.now()));
  const left = await db.query('SELECT count(*)::int AS n FROM recovery_codes WHERE user_id = $1', [userId]);
  assert.equal(left.rows[0].n, 0);
  assert.deepEqual(await verifyUserSecondFactor(t.ctx, t.ctx.db, scope, userId, '123456'), {
    ok: false,
    reason: 'not_enrolled',
  });
  const events = await db.query(
    `SELECT type FROM activity_events WHERE metadata->>'userId' = $1 AND type LIKE 'user.2fa%' ORDER BY seq`,
    [userId],
  );
  assert.deepEqual(
    events.rows.map((r) => r.type),
    ['user.2fa_enabled', 'user.2fa_recovery_codes_regenerated', 'user.2fa_disabled'],
  );
});
