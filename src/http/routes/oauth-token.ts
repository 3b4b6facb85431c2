import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../app/errors.ts';
import { serverMetadata } from '../../app/oauth/metadata.ts';
import { OAuthError } from '../../app/oauth/oauth-error.ts';
import { revokeToken } from '../../app/oauth/revoke.ts';
import { token } from '../../app/oauth/tokens.ts';
import { parseForm } from '../plugins/form-body.ts';
import type { HttpServices } from '../services.ts';
import type { RouteApp } from './route-app.ts';

const FlatError = Type.Object({ error: Type.String(), error_description: Type.String() });

/**
 * Errors of the token and revocation endpoints in the flat RFC 6749 §5.2 shape (contract, OAuth
 * rule 5), whatever failed: the request's own mistakes, the framework's (body too large, a content
 * type it cannot read), and internal errors, which say nothing more.
 */
function flatErrors(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof OAuthError) {
    return reply.status(error.status).send({ error: error.error, error_description: error.message });
  }
  // The refusals of the plugins every route passes (input guard, body parsers: a NUL, a lone
  // surrogate, `1e400`, nesting deeper than 64) are AppErrors: the client's mistake, not ours.
  const status = error instanceof AppError ? error.status : ((error as FastifyError).statusCode ?? 500);
  if (status >= 400 && status < 500) {
    return reply.status(400).send({ error: 'invalid_request', error_description: error.message || 'invalid request' });
  }
  request.log.error({ err: error }, 'request failed');
  return reply
    .status(500)
    .send({ error: 'server_error', error_description: 'internal error; quote the X-Request-ID when reporting it' });
}

function formParams(request: FastifyRequest): Record<string, string> {
  const form = parseForm(request.body);
  if (!form.ok) throw new OAuthError('invalid_request', form.reason);
  return form.params;
}

/** A form body (application/x-www-form-urlencoded) for the description; the route parses it itself. */
const form = (schema: unknown) => ({ content: { 'application/x-www-form-urlencoded': { schema } } });

/** RFC 8414 metadata and the token and revocation endpoints (RFC 6749 §3.2, RFC 7009). */
export const oauthTokenRoutes: FastifyPluginAsyncTypebox<HttpServices> = async (app, { ctx }) => {
  metadataRoutes(app, ctx);
  // Token responses carry secrets: never cached (RFC 6749 §5.1), errors included.
  app.register(async (endpoints) => tokenRoutes(endpoints, ctx));
};

/** The RFC 8414 authorization server metadata. */
function metadataRoutes(app: RouteApp, ctx: HttpServices['ctx']): void {
  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        tags: ['oauth'],
        description: 'RFC 8414 authorization server metadata.',
        response: {
          200: Type.Object(
            {
              issuer: Type.String(),
              authorization_endpoint: Type.String(),
              token_endpoint: Type.String(),
              revocation_endpoint: Type.String(),
              scopes_supported: Type.Array(Type.String()),
              response_types_supported: Type.Array(Type.String()),
              grant_types_supported: Type.Array(Type.String()),
              code_challenge_methods_supported: Type.Array(Type.String()),
            },
            { additionalProperties: true },
          ),
        },
      },
    },
    async () => serverMetadata(ctx.config.publicBaseUrl),
  );
}

/**
 * The token and revocation endpoints, in their own scope: flat OAuth errors, never cached. `endpoints` is
 * the scope app.register hands over, typed as fastify's own instance as it was inline.
 */
function tokenRoutes(endpoints: FastifyInstance, ctx: HttpServices['ctx']): void {
  endpoints.setErrorHandler(flatErrors);
  endpoints.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    return payload;
  });

  endpoints.post(
    '/oauth/token',
    {
      schema: {
        tags: ['oauth'],
        description:
          'Token endpoint (application/x-www-form-urlencoded, public clients: client_id, no secret). grant_type=authorization_code with code, redirect_uri, client_id, code_verifier; or grant_type=refresh_token with refresh_token, client_id and an optional narrower scope. A refresh rotates the pair; a rotated refresh token presented again revokes the whole grant.',
        documentedBody: form(
          Type.Object({
            grant_type: Type.Union([Type.Literal('authorization_code'), Type.Literal('refresh_token')]),
            client_id: Type.String(),
            code: Type.Optional(Type.String()),
            redirect_uri: Type.Optional(Type.String()),
            code_verifier: Type.Optional(Type.String()),
            refresh_token: Type.Optional(Type.String()),
            scope: Type.Optional(Type.String()),
          }),
        ),
        response: {
          200: Type.Object({
            access_token: Type.String(),
            token_type: Type.Literal('Bearer'),
            expires_in: Type.Integer(),
            refresh_token: Type.String(),
            scope: Type.String(),
          }),
          400: FlatError,
          401: FlatError,
        },
      },
    },
    async (request) => token(ctx, formParams(request)),
  );

  endpoints.post(
    '/oauth/revoke',
    {
      schema: {
        tags: ['oauth'],
        description:
          'RFC 7009 revocation (form: token, optional token_type_hint and client_id). Always 200, whether the token was valid, unknown, expired or already revoked; either token of a pair revokes its whole grant. 400 invalid_request only without a token.',
        documentedBody: form(
          Type.Object({
            token: Type.String(),
            token_type_hint: Type.Optional(Type.String()),
            client_id: Type.Optional(Type.String()),
          }),
        ),
        response: { 200: Type.Null({ description: 'empty body' }), 400: FlatError },
      },
    },
    async (request, reply) => {
      await revokeToken(ctx, formParams(request));
      return reply.status(200).send();
    },
  );
}
