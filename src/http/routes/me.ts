import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireSession } from '../../app/identity/access.ts';
import { listMySessions, revokeMySession } from '../../app/identity/sessions.ts';
import {
  disableTwoFactor,
  enableTwoFactor,
  regenerateRecoveryCodes,
  setupTwoFactor,
  twoFactorStatus,
} from '../../app/identity/two-factor.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses, Ok } from '../schemas/common.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

const Session = Type.Object({
  id: Type.String(),
  createdAt: Type.String(),
  lastSeenAt: Type.String(),
  expiresAt: Type.String(),
  ip: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  current: Type.Boolean(),
});
const CodeBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) });
const RecoveryCodes = Type.Array(Type.String());

/** The signed-in user's own account: sessions and the TOTP second factor (DESIGN.md, Identity). Session only. */
export const meRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  sessionRoutes(app, ctx);
  twoFactorSetupRoutes(app, ctx);
  twoFactorChangeRoutes(app, ctx);
};

/** The routes of /me/sessions and /me/sessions/:id. */
function sessionRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/me/sessions',
    {
      schema: {
        tags: ['identity'],
        description: "The caller's live sessions; `current` marks the one making this request.",
        response: { 200: Type.Object({ items: Type.Array(Session) }), ...errorResponses(401) },
      },
    },
    async (request) => listMySessions(ctx, requireSession(principalOf(request))),
  );

  app.delete(
    '/me/sessions/:id',
    {
      schema: {
        tags: ['identity'],
        description: "Revokes one of the caller's sessions (404 for an unknown one or another user's).",
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 200: Ok, ...errorResponses(401, 404) },
      },
    },
    async (request) => revokeMySession(ctx, requireSession(principalOf(request)), request.params.id),
  );
}

/** The routes of /2fa/status, /2fa/setup and /2fa/enable. */
function twoFactorSetupRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/2fa/status',
    {
      schema: {
        tags: ['identity'],
        response: {
          200: Type.Object({ enabled: Type.Boolean(), pending: Type.Boolean(), recoveryCodesLeft: Type.Integer() }),
          ...errorResponses(401),
        },
      },
    },
    async (request) => twoFactorStatus(ctx, requireSession(principalOf(request))),
  );

  app.post(
    '/2fa/setup',
    {
      schema: {
        tags: ['identity'],
        description:
          'A new TOTP secret (pending until POST /2fa/enable confirms a code from it). 409 two_factor_already_enabled while 2FA is on.',
        response: {
          200: Type.Object({ secret: Type.String(), otpauthUrl: Type.String() }),
          ...errorResponses(401, 409),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return setupTwoFactor(ctx, requireSession(principalOf(request)));
    },
  );

  app.post(
    '/2fa/enable',
    {
      schema: {
        tags: ['identity'],
        description: 'A code from the pending secret enables 2FA; the 10 recovery codes are shown this once.',
        body: CodeBody,
        response: {
          200: Type.Object({ enabled: Type.Literal(true), recoveryCodes: RecoveryCodes }),
          ...errorResponses(400, 401, 409, 429),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return enableTwoFactor(ctx, requireSession(principalOf(request)), request.body.code);
    },
  );
}

/** The routes of /2fa/disable and /2fa/recovery-codes. */
function twoFactorChangeRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.post(
    '/2fa/disable',
    {
      schema: {
        tags: ['identity'],
        description: 'A current TOTP code (or a recovery code) turns 2FA off and removes the recovery codes.',
        body: CodeBody,
        response: { 200: Type.Object({ enabled: Type.Literal(false) }), ...errorResponses(400, 401, 409, 429) },
      },
    },
    async (request) => disableTwoFactor(ctx, requireSession(principalOf(request)), request.body.code),
  );

  app.post(
    '/2fa/recovery-codes',
    {
      schema: {
        tags: ['identity'],
        description: 'A current TOTP code replaces every recovery code with a new set, shown this once.',
        body: CodeBody,
        response: { 200: Type.Object({ recoveryCodes: RecoveryCodes }), ...errorResponses(400, 401, 409, 429) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return regenerateRecoveryCodes(ctx, requireSession(principalOf(request)), request.body.code);
    },
  );
}
