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
  /** BOOTSTRAP=true: POST /platforms/{id}/admins is open without a credential while the platform has no admin. */
  bootstrap: boolean;
  publicBaseUrl: string;
  /** The key that encrypts: the first of MASTER_KEYS, or MASTER_KEY. */
  masterKey: string | undefined;
  /** The rest of MASTER_KEYS: they still decrypt what they sealed, until `rekey` moved it all. */
  previousMasterKeys: string[];
  /** A separate listener for /metrics, /health and /ready; unset: /metrics on the API port. */
  metricsPort: number | undefined;
  /** Bearer token a scrape of /metrics must send; unset: /metrics is open. */
  metricsToken: string | undefined;
  /** A worker loop or queue with no progress for this long makes /ready answer 503. */
  workerStallSeconds: number;
  /** OTLP/HTTP collector base URL; unset: tracing off. */
  otlpEndpoint: string | undefined;
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

/**
 * MASTER_KEYS (comma-separated, the first encrypts, the others still decrypt) or MASTER_KEY (one key);
 * each 32 bytes in base64. Both at once is refused: which one encrypts would be a guess.
 */
function masterKeys(env: Env): string[] {
  const single = text(env, 'MASTER_KEY');
  const several = text(env, 'MASTER_KEYS');
  if (single !== undefined && several !== undefined) {
    throw new ConfigError('MASTER_KEYS', 'and MASTER_KEY are both set; keep MASTER_KEYS only (its first key encrypts)');
  }
  const name = several !== undefined ? 'MASTER_KEYS' : 'MASTER_KEY';
  const keys = (several ?? single ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  for (const [i, key] of keys.entries()) {
    if (Buffer.from(key, 'base64').length !== 32) {
      throw new ConfigError(name, `${several !== undefined ? `key ${i + 1} ` : ''}must be 32 bytes encoded as base64`);
    }
  }
  if (new Set(keys).size !== keys.length) throw new ConfigError(name, 'lists the same key twice');
  return keys;
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const [masterKey, ...previousMasterKeys] = masterKeys(env);
  if (databaseUrl !== undefined && masterKey === undefined) {
    throw new ConfigError(
      'MASTER_KEY',
      'is required when DATABASE_URL is set (it is generated only for the embedded database); or set MASTER_KEYS',
    );
  }
  const metricsToken = text(env, 'METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters');
  }
  const metricsPort = text(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65535);
  return {
    port,
    host,
    databaseUrl,
    dataDir: path.resolve(text(env, 'DATA_DIR') ?? './data'),
    role: oneOf(env, 'ROLE', ['api', 'worker', 'all'] as const, 'all'),
    sandbox: bool(env, 'SANDBOX', databaseUrl === undefined),
    bootstrap: bool(env, 'BOOTSTRAP', false),
    publicBaseUrl: (url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${host}:${port}`).replace(/\/$/, ''),
    masterKey,
    previousMasterKeys,
    metricsPort,
    metricsToken,
    workerStallSeconds: integer(env, 'WORKER_STALL_SECONDS', 300, 10, 86_400),
    otlpEndpoint:
      url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']) ??
      url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
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
