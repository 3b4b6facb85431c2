import { createHash } from 'node:crypto';
import { canonicalJson } from '../audit/hash-chain.ts';

/**
 * The request digest of POST /journal/payments (column request_digest): SHA-256 hex of the canonical
 * JSON (keys sorted at every depth) of what decides the document: bank, environment and payment. The
 * idempotency key itself and `validate` are left out, so the same request sent with the key in the
 * header or in the body, with or without the extra XSD check, is the same request.
 */
export function submitRequestDigest(input: { bankKey: string; environment: string; payment: unknown }): string {
  return createHash('sha256')
    .update(canonicalJson({ bankKey: input.bankKey, environment: input.environment, payment: input.payment }))
    .digest('hex');
}
