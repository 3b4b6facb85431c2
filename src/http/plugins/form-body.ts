/**
 * application/x-www-form-urlencoded bodies (the OAuth endpoints, the consent form). The app takes
 * them as raw bytes (body-parsers.ts: `curl -d` sends bank files with this type), so the routes
 * that mean a form decode it here, with the platform's URLSearchParams. A parameter sent twice is
 * refused (RFC 6749 §3.1: "MUST NOT be included more than once"), and so is a NUL character.
 */
export type FormParse = { ok: true; params: Record<string, string> } | { ok: false; reason: string };

export function parseForm(body: unknown): FormParse {
  if (!Buffer.isBuffer(body)) {
    return { ok: false, reason: 'the body must be application/x-www-form-urlencoded' };
  }
  const params: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    // As the input guard refuses in JSON (input-guard.ts): PostgreSQL cannot store it in text.
    if (name.includes('\u0000') || value.includes('\u0000')) {
      return { ok: false, reason: `${name.replaceAll('\u0000', '\\0')} contains a NUL character` };
    }
    if (name in params) return { ok: false, reason: `${name} is sent more than once` };
    params[name] = value;
  }
  return { ok: true, params };
}
