import { EmbeddedStartError } from '../db/embedded-leftover.ts';
import type { Config } from '../platform/config.ts';

const DATABASE_UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
// PostgreSQL's SQLSTATEs for a refused login or a missing database.
const DATABASE_REFUSED: Record<string, string> = {
  '28P01': 'the password was refused',
  '28000': 'the login was refused',
  '3D000': 'the database does not exist',
};

/** Where DATABASE_URL points, without its password. */
function databaseTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/**
 * Why the service could not start, in one line a newcomer can act on (`npm start` prints it and exits
 * 1): a port in use, a database that cannot be reached, an embedded data folder of another PostgreSQL
 * version or held by another process. Never `undefined`: an unknown failure is named by its message.
 */
export function startupFailureLine(error: unknown, config: Pick<Config, 'port' | 'host' | 'databaseUrl'>): string {
  if (error instanceof EmbeddedStartError) return error.message;
  const e = (error ?? {}) as { code?: unknown; message?: unknown; syscall?: unknown; port?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(error);
  if (code === 'EADDRINUSE') {
    return `port ${String(e.port ?? config.port)} on ${config.host} is already in use (another payops, or another program): stop it or set PORT to a free port`;
  }
  if (code === 'EACCES' && e.syscall === 'listen') {
    return `not allowed to listen on ${config.host}:${config.port}: choose a PORT above 1023`;
  }
  if (
    config.databaseUrl !== undefined &&
    code !== undefined &&
    (DATABASE_UNREACHABLE.has(code) || code in DATABASE_REFUSED)
  ) {
    const why = DATABASE_REFUSED[code] ?? `${code}: ${message}`;
    return `cannot reach the database at ${databaseTarget(config.databaseUrl)} (${why}): check DATABASE_URL and that PostgreSQL is running`;
  }
  return `${error instanceof Error ? error.name : 'error'}: ${message}`;
}
