import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF rule for every outbound target — webhook URLs, bank SFTP hosts, web-services endpoints
 * (DESIGN.md, Stack: outbound HTTP; deps-trial §6):
 * a host is resolved once, every answer must be a public unicast address, and the connection is
 * pinned to the checked address. Loopback, private, link-local (cloud metadata), unique-local,
 * CGNAT, multicast, unspecified, reserved and the IPv6 forms that embed an IPv4 address
 * (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo) are refused. IP literals never reach DNS,
 * so they are checked here too; the WHATWG URL parser has already turned decimal, hex and octal
 * IPv4 forms (2130706433, 0x7f000001, 0177.0.0.1) into dotted quads.
 */
export class SsrfError extends Error {
  readonly code = 'ssrf_refused';
}

export type SsrfPolicy = {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: any address is fine (local testing only). */
  allowPrivate: boolean;
  /** Exact addresses accepted even though private (a test receiver); everything else still checked. */
  allowAddresses?: readonly string[];
  /** The resolver (tests inject one); the system resolver otherwise. */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
};

/** Why an address is refused, or undefined when it is a public unicast address. */
export function refusalOf(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else {
      const parts = v6.parts;
      // ::a.b.c.d (IPv4-compatible, deprecated) and ::/96 as a whole.
      if (parts.slice(0, 6).every((p) => p === 0)) return 'IPv4-compatible IPv6 address';
    }
  }
  const range = parsed.range();
  return range === 'unicast' ? undefined : `${range} address`;
}

function normalise(address: string): string {
  return ipaddr.isValid(address) ? ipaddr.process(address).toString() : address;
}

export function addressAllowed(address: string, policy: SsrfPolicy): boolean {
  if (policy.allowPrivate) return true;
  if (policy.allowAddresses?.some((a) => normalise(a) === normalise(address))) return true;
  return refusalOf(address) === undefined;
}

/** Hostnames that are loopback by definition, whatever DNS says. */
function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === 'localhost.localdomain';
}

/** The host of a URL without IPv6 brackets. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** A check of the host alone, before any DNS: IP literals and local names. */
export function checkHostLiteral(hostname: string, policy: SsrfPolicy): void {
  const host = bareHost(hostname);
  if (isIP(host) !== 0) {
    if (!addressAllowed(host, policy)) throw new SsrfError(`${host} is a ${refusalOf(host)}; refused`);
    return;
  }
  if (!policy.allowPrivate && isLocalName(host)) throw new SsrfError(`${host} is a loopback name; refused`);
  if (!policy.allowPrivate && /^[0-9.]+$/.test(host)) throw new SsrfError(`${host} is not a plain address; refused`);
}

export type Resolved = { address: string; family: 4 | 6 };

/** Resolves a host once and checks every answer; the first is the address to connect to. */
export async function resolveChecked(hostname: string, policy: SsrfPolicy): Promise<Resolved> {
  const host = bareHost(hostname);
  checkHostLiteral(host, policy);
  const literal = isIP(host);
  if (literal !== 0) return { address: host, family: literal as 4 | 6 };
  const answers = policy.resolve
    ? await policy.resolve(host)
    : await new Promise<{ address: string; family: number }[]>((resolve, reject) =>
        dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
      );
  if (answers.length === 0) throw new SsrfError(`${host} does not resolve`);
  for (const answer of answers) {
    if (!addressAllowed(answer.address, policy)) {
      throw new SsrfError(`${host} resolves to a ${refusalOf(answer.address)} (${answer.address}); refused`);
    }
  }
  const first = answers[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * Save-time check of an outbound target's host (a bank's SFTP host, the host of a webhook or
 * web-services URL): IP literals and local names are refused at once; a name is resolved (at most
 * `timeoutMs`) and refused when an answer is not public. A name that does not resolve now is
 * accepted: every connection resolves and checks it again (resolveChecked).
 */
export async function checkHostTarget(hostname: string, policy: SsrfPolicy, timeoutMs = 2_000): Promise<void> {
  checkHostLiteral(hostname, policy);
  if (policy.allowPrivate || isIP(bareHost(hostname)) !== 0) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    await Promise.race([resolveChecked(hostname, policy), timeout]);
  } catch (error) {
    if (error instanceof SsrfError) throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Save-time check of an outbound URL: no credentials in it, and its host as checkHostTarget. */
export async function checkUrlTarget(url: URL, policy: SsrfPolicy, timeoutMs = 2_000): Promise<void> {
  if (url.username || url.password) throw new SsrfError('URLs with credentials are refused');
  await checkHostTarget(url.hostname, policy, timeoutMs);
}
