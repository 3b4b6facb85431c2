/** What stands in for a secret part of a destination. */
const MASK = '***';

/**
 * A webhook destination as the API, the events and the logs show it: never the secret parts. A
 * Slack incoming-webhook URL's last path segment is its token (`/services/T…/B…/<token>`), so for
 * `slack` the last segment is masked; for every transport the user-info (`user:password@`) and each
 * query value are masked, since receivers commonly take a token there. The host and the rest of the
 * path stay, so a user can still tell endpoints apart.
 */
export function maskedDestination(url: string, transport: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return MASK;
  }
  if (parsed.username !== '' || parsed.password !== '') {
    parsed.username = MASK;
    parsed.password = '';
  }
  if (transport === 'slack') {
    const segments = parsed.pathname.split('/');
    const last = segments.findLastIndex((s) => s !== '');
    if (last >= 0) segments[last] = MASK;
    parsed.pathname = segments.join('/');
  }
  const query = [...parsed.searchParams.keys()];
  if (query.length > 0) parsed.search = query.map((k) => `${encodeURIComponent(k)}=${MASK}`).join('&');
  parsed.hash = '';
  // The URL serialiser percent-encodes the mask in user-info and path; show it as written.
  return parsed.toString().replaceAll('%2A%2A%2A', MASK);
}
