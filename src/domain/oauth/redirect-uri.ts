/**
 * Redirect URIs of installed applications (contract, Authentication: OAuth rule 1; RFC 8252 §7.3):
 * exactly `http://127.0.0.1:<port>/<path>`. `localhost` is refused (it can resolve elsewhere, RFC 8252
 * §8.3), as is any other host, https, user info, a query or a fragment, and a port left implicit.
 * A request's redirect_uri must then equal a registered one character for character.
 */
const LOOPBACK = /^http:\/\/127\.0\.0\.1:([0-9]{1,5})(\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)$/;

export const MAX_REDIRECT_URI_LENGTH = 2048;

export type RedirectUriCheck = { ok: true } | { ok: false; reason: string };

export function checkRedirectUri(uri: string): RedirectUriCheck {
  if (uri.length > MAX_REDIRECT_URI_LENGTH)
    return { ok: false, reason: `longer than ${MAX_REDIRECT_URI_LENGTH} characters` };
  const match = LOOPBACK.exec(uri);
  if (!match) {
    return {
      ok: false,
      reason: 'must be http://127.0.0.1:<port>/<path> (no localhost, other host, https, query or fragment)',
    };
  }
  const port = Number(match[1]);
  if (port < 1 || port > 65535 || match[1]!.startsWith('0')) return { ok: false, reason: 'port must be 1 to 65535' };
  const path = match[2]!;
  if (path.split('/').some((segment) => segment === '.' || segment === '..'))
    return { ok: false, reason: 'the path may not contain . or .. segments' };
  return { ok: true };
}
