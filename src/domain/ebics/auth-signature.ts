import { createHash, type KeyObject, sign, verify } from 'node:crypto';
import { C14nCanonicalization } from 'xml-crypto';
import { ALGORITHMS } from './crypto.ts';
import { certificateOf, privateKeyOf } from './key-cache.ts';
import { allElements, child, childElements, NS, parseDom, textOf } from './xml.ts';

/**
 * The X002 authentication signature (Implementation Guide 5.5.1.2; docs/adr/0063): an XML-DSig
 * `AuthSignature` whose one reference is `#xpointer(//*[@authenticate='true'])`, the concatenated
 * inclusive C14N of every element so marked, in document order; RSA-SHA256 over the canonical
 * SignedInfo. xml-crypto canonicalises; selecting the nodes (an XPointer xml-crypto does not resolve),
 * digesting and signing are here. Verification rebuilds the digest from the message itself and checks
 * it against the certificate the caller trusts, never one the message carries.
 */
export const AUTH_REFERENCE = "#xpointer(//*[@authenticate='true'])";
const DIGEST_PLACEHOLDER = '@@EBICS-DIGEST@@';
const SIGNATURE_PLACEHOLDER = '@@EBICS-SIGNATURE@@';

/** The AuthSignature element to put in a message before signing it (placeholders filled by signAuthenticated). */
export function authSignaturePlaceholder(): string {
  return (
    '<AuthSignature><ds:SignedInfo>' +
    `<ds:CanonicalizationMethod Algorithm="${ALGORITHMS.c14n}"/>` +
    `<ds:SignatureMethod Algorithm="${ALGORITHMS.rsaSha256}"/>` +
    `<ds:Reference URI="${AUTH_REFERENCE}"><ds:Transforms><ds:Transform Algorithm="${ALGORITHMS.c14n}"/></ds:Transforms>` +
    `<ds:DigestMethod Algorithm="${ALGORITHMS.sha256}"/><ds:DigestValue>${DIGEST_PLACEHOLDER}</ds:DigestValue></ds:Reference>` +
    `</ds:SignedInfo><ds:SignatureValue>${SIGNATURE_PLACEHOLDER}</ds:SignatureValue></AuthSignature>`
  );
}

/** Inclusive C14N of one element as the apex of a document subset: every namespace in scope rendered. */
function canonical(element: Element): string {
  const ancestors: Array<{ prefix: string; namespaceURI: string }> = [];
  const seen = new Set<string>();
  for (let p = element.parentNode; p && p.nodeType === 1; p = p.parentNode) {
    const attrs = (p as Element).attributes;
    for (let i = 0; i < attrs.length; i++) {
      const a = attrs[i]!;
      const prefix = a.name === 'xmlns' ? '' : a.prefix === 'xmlns' ? a.localName : null;
      if (prefix === null || seen.has(prefix)) continue;
      seen.add(prefix);
      // An unprefixed apex renders its own default namespace; a prefixed one inherits it.
      if (prefix === '' && !element.prefix) continue;
      if (a.value !== '') ancestors.push({ prefix, namespaceURI: a.value });
    }
  }
  return new C14nCanonicalization().process(element as unknown as Node, { ancestorNamespaces: ancestors });
}

function authenticatedDigest(doc: Document): { digest: Buffer; count: number } {
  const marked = allElements(doc.documentElement).filter((e) => e.getAttribute('authenticate') === 'true');
  const hash = createHash('sha256');
  for (const e of marked) hash.update(canonical(e), 'utf8');
  return { digest: hash.digest(), count: marked.length };
}

/** A message with its digest filled in, and the canonical SignedInfo its signature value is over. */
function toSign(xml: string): { withDigest: string; signedInfo: Buffer } {
  const doc = parseDom(xml);
  if (!doc) throw new Error('the message to sign is not well-formed XML');
  const { digest } = authenticatedDigest(doc);
  const withDigest = xml.replace(DIGEST_PLACEHOLDER, digest.toString('base64'));
  const signedInfo = child(child(parseDom(withDigest)?.documentElement, 'AuthSignature'), 'SignedInfo', NS.ds);
  if (!signedInfo) throw new Error('the message has no AuthSignature placeholder');
  return { withDigest, signedInfo: Buffer.from(canonical(signedInfo), 'utf8') };
}

/** Signs a message that holds authSignaturePlaceholder(): fills the digest and signature value. */
export function signAuthenticated(xml: string, authenticationPrivateKeyPem: string): string {
  const { withDigest, signedInfo } = toSign(xml);
  const value = sign('sha256', signedInfo, privateKeyOf(authenticationPrivateKeyPem));
  return withDigest.replace(SIGNATURE_PLACEHOLDER, value.toString('base64'));
}

/**
 * signAuthenticated with the RSA operation on libuv's thread pool (node:crypto's `sign` with a
 * callback), so the signing of many messages at once does not hold the event loop (docs/adr/0074).
 * The same signature value: RSASSA-PKCS1-v1_5 is deterministic.
 */
export async function signAuthenticatedAsync(xml: string, authenticationPrivateKeyPem: string): Promise<string> {
  const { withDigest, signedInfo } = toSign(xml);
  const key = privateKeyOf(authenticationPrivateKeyPem);
  const value = await new Promise<Buffer>((resolve, reject) =>
    sign('sha256', signedInfo, key, (error, signature) => (error ? reject(error) : resolve(signature))),
  );
  return withDigest.replace(SIGNATURE_PLACEHOLDER, value.toString('base64'));
}

export type AuthVerification = { ok: true } | { ok: false; reason: string };

/**
 * Verifies the AuthSignature of a parsed message against a trusted authentication certificate:
 * exactly one AuthSignature under the root, the X002 algorithms and reference, the digest over the
 * authenticated elements as they are in this message, and the signature value.
 */
export function verifyAuthenticated(doc: Document, trustedCertPem: string): AuthVerification {
  const sigs = childElements(doc.documentElement).filter((e) => e.localName === 'AuthSignature');
  if (sigs.length !== 1)
    return { ok: false, reason: sigs.length === 0 ? 'the message is not signed' : 'more than one AuthSignature' };
  const signedInfo = child(sigs[0], 'SignedInfo', NS.ds);
  const refs = signedInfo ? childElements(signedInfo).filter((e) => e.localName === 'Reference') : [];
  const ref = refs[0];
  if (!signedInfo || refs.length !== 1 || !ref) return { ok: false, reason: 'the signature must have one reference' };
  const algorithm = (name: string, parent: Element | null = signedInfo) =>
    child(parent, name, NS.ds)?.getAttribute('Algorithm');
  if (algorithm('CanonicalizationMethod') !== ALGORITHMS.c14n)
    return { ok: false, reason: 'canonicalisation is not C14N 1.0' };
  if (algorithm('SignatureMethod') !== ALGORITHMS.rsaSha256)
    return { ok: false, reason: 'signature method is not RSA-SHA256' };
  if (ref.getAttribute('URI') !== AUTH_REFERENCE)
    return { ok: false, reason: `the reference is not ${AUTH_REFERENCE}` };
  if (algorithm('DigestMethod', ref) !== ALGORITHMS.sha256)
    return { ok: false, reason: 'digest method is not SHA-256' };
  const transforms = childElements(child(ref, 'Transforms', NS.ds) ?? ref).filter((e) => e.localName === 'Transform');
  if (transforms.length !== 1 || transforms[0]?.getAttribute('Algorithm') !== ALGORITHMS.c14n) {
    return { ok: false, reason: 'the reference transform is not C14N 1.0' };
  }
  const { digest, count } = authenticatedDigest(doc);
  if (count === 0) return { ok: false, reason: 'nothing in the message is authenticated' };
  const claimed = Buffer.from(textOf(child(ref, 'DigestValue', NS.ds)) ?? '', 'base64');
  if (!claimed.equals(digest)) return { ok: false, reason: 'the authenticated elements do not match their digest' };
  const value = Buffer.from(textOf(child(sigs[0], 'SignatureValue', NS.ds)) ?? '', 'base64');
  let key: KeyObject;
  try {
    key = certificateOf(trustedCertPem).publicKey;
  } catch {
    return { ok: false, reason: 'the trusted certificate is unreadable' };
  }
  if (!verify('sha256', Buffer.from(canonical(signedInfo), 'utf8'), key, value)) {
    return { ok: false, reason: 'the signature value does not verify' };
  }
  return { ok: true };
}
