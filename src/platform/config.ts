import path from 'node:path';

/** Validated configuration from the environment (DESIGN.md, Configuration). */
export type Role = 'api' | 'worker' | 'all';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export type Config = {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  role: Role;
  sandbox: boolean;
  publicBaseUrl: string;
  masterKey: string | undefined;
  demoBankDelayMs: number;
  webhookAllowPrivateTargets: boolean;
  extraCaCerts: string | undefined;
  xsdDir: string | undefined;
  logLevel: LogLevel;
  fxRatesUrl: string | undefined;
  /** Polish VAT white-list API base (preview); unset: the local registry in a sandbox, else the Ministry's. */
  whitelistApiUrl: string | undefined;
  /** SMTP server for the webhook email transport (smtp:// or smtps://); unset: the local mail drop. */
  smtpUrl: string | undefined;
  /** Sender address of webhook emails. */
  smtpFrom: string;
};

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`invalid configuration: ${variable} ${problem}`);
    this.variable = variable;
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got ${JSON.stringify(raw)}`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  }
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const masterKey = text(env, 'MASTER_KEY');
  if (masterKey !== undefined && Buffer.from(masterKey, 'base64').length !== 32) {
    throw new ConfigError('MASTER_KEY', 'must be 32 bytes encoded as base64');
  }
  if (databaseUrl !== undefined && masterKey === undefined) {
    throw new ConfigError(
      'MASTER_KEY',
      'is required when DATABASE_URL is set (it is generated only for the embedded database)',
    );
  }
  return {
    port,
    host,
    databaseUrl,
    dataDir: path.resolve(text(env, 'DATA_DIR') ?? './data'),
    role: oneOf(env, 'ROLE', ['api', 'worker', 'all'] as const, 'all'),
    sandbox: bool(env, 'SANDBOX', databaseUrl === undefined),
    publicBaseUrl: (url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${host}:${port}`).replace(/\/$/, ''),
    masterKey,
    demoBankDelayMs: integer(env, 'DEMO_BANK_DELAY_MS', 5000, 0, 3_600_000),
    webhookAllowPrivateTargets: bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    extraCaCerts: text(env, 'EXTRA_CA_CERTS'),
    xsdDir: text(env, 'XSD_DIR'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    fxRatesUrl: url(env, 'FX_RATES_URL', ['http:', 'https:']),
    whitelistApiUrl: url(env, 'WHITELIST_API_URL', ['http:', 'https:']),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: text(env, 'SMTP_FROM') ?? 'payops@localhost',
  };
}
