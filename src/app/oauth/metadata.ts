import { PKCE_METHODS } from '../../domain/oauth/pkce.ts';
import { GRANTABLE_SCOPES } from '../../domain/oauth/scopes.ts';
import { GRANT_TYPES } from './tokens.ts';

/**
 * RFC 8414 authorization server metadata, built from the constants the endpoints enforce (the
 * scopes parseScope takes, the grant types token() dispatches, the PKCE methods checked), so it can
 * never advertise what the server refuses.
 */
export function serverMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    scopes_supported: [...GRANTABLE_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    code_challenge_methods_supported: [...PKCE_METHODS],
    // Installed applications are public clients: no secret, the client_id alone (RFC 8252 §8.4).
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs`,
  };
}
