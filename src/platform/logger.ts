import { pino } from 'pino';
import type { LogLevel } from './config.ts';

/**
 * Structured logs. Secrets never reach a log line: credential headers are censored by path, and
 * every field whose name says it holds a secret — keys, tokens, passwords, passphrases, private
 * keys, secrets, PINs, credentials, SMTP and Slack URLs — is censored wherever it appears in the
 * logged object (by name, at any depth), as is any string value that is a Slack webhook URL or one
 * of our own credentials (API keys, session tokens, signing secrets, OAuth tokens). A field named
 * `code` is not a secret by its name: channel and error codes must reach the logs.
 */
const CENSOR = '[redacted]';

const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-session-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/** Field names (lower case, without `-` and `_`) that hold a secret. */
const SECRET_NAME =
  /password|passphrase|secret|token|apikey|privatekey|masterkey|signingkey|clientkey|encryptionkey|credential|authorization|cookie|codeverifier|smtpurl|slack/;
const SECRET_EXACT = new Set(['key', 'keys', 'pin']);

/** Secret values whatever their field: a Slack incoming-webhook URL and our own credential forms. */
const SECRET_VALUE =
  /https:\/\/hooks\.slack\.com\/\S*|\b(?:key_[0-9a-f]{64}|st_[0-9a-f]{64}|lc_[0-9a-f]{64}|inv_[0-9a-f]{64}|whsec_[A-Za-z0-9+/=]{16,}|oat_[A-Za-z0-9_-]{16,}|ort_[A-Za-z0-9_-]{16,})\b/g;

function isSecretName(name: string): boolean {
  const normal = name.toLowerCase().replace(/[-_]/g, '');
  return SECRET_EXACT.has(normal) || SECRET_NAME.test(normal);
}

const MAX_DEPTH = 8;

/** A copy of `value` with secret fields and values censored; plain objects and arrays only are walked. */
function censored(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return value.replace(SECRET_VALUE, CENSOR);
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value;
  if (seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => censored(v, depth + 1, seen));
  if (value instanceof Error) return censoredError(value, depth, seen);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSecretName(k) ? CENSOR : censored(v, depth + 1, seen);
  return out;
}

/** An error keeps its class (pino's serializer reads type, message, stack); its own fields are censored. */
function censoredError(error: Error, depth: number, seen: WeakSet<object>): Error {
  const copy = Object.create(Object.getPrototypeOf(error)) as Error & Record<string, unknown>;
  for (const k of Object.getOwnPropertyNames(error)) {
    const v = (error as unknown as Record<string, unknown>)[k];
    copy[k] = isSecretName(k) ? CENSOR : censored(v, depth + 1, seen);
  }
  return copy;
}

export type Logger = pino.Logger;

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      base: undefined,
      formatters: { log: (object) => censored(object, 0, new WeakSet()) as Record<string, unknown> },
    },
    destination,
  );
}
