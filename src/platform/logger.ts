import { pino } from 'pino';
import type { LogLevel } from './config.ts';

/**
 * Structured logs. Secrets never reach a log line: credential headers and every field that names a
 * secret are censored wherever they appear in the logged object.
 */
const SECRET_FIELDS = [
  'password',
  'newPassword',
  'token',
  'sessionToken',
  'challengeToken',
  'apiKey',
  'key',
  'secret',
  'code',
  'refresh_token',
  'access_token',
  'code_verifier',
  'masterKey',
  'previousMasterKeys',
  'metricsToken',
  'pin',
  'smtpUrl',
  'privateKey',
  'passphrase',
];

const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-session-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_FIELDS.map((f) => `*.*.${f}`),
];

export type Logger = pino.Logger;

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: undefined }, destination);
}
