import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

const key = () => randomBytes(32).toString('base64');
const refused = (env: Record<string, string>, variable: string, message: RegExp) =>
  assert.throws(
    () => loadConfig(env),
    (e) => e instanceof ConfigError && e.variable === variable && message.test(e.message),
  );

test('MASTER_KEYS: the first key encrypts, the others are kept for decrypting; MASTER_KEY is a list of one', () => {
  const [a, b, c] = [key(), key(), key()];
  const several = loadConfig({ MASTER_KEYS: ` ${a}, ${b},${c} ` });
  assert.equal(several.masterKey, a);
  assert.deepEqual(several.previousMasterKeys, [b, c]);
  const one = loadConfig({ MASTER_KEY: a });
  assert.equal(one.masterKey, a);
  assert.deepEqual(one.previousMasterKeys, []);
  assert.equal(loadConfig({}).masterKey, undefined);
});

test('MASTER_KEYS refusals name the variable: both forms, a short key, a repeated key, none with a server', () => {
  const a = key();
  refused({ MASTER_KEY: a, MASTER_KEYS: a }, 'MASTER_KEYS', /both set/);
  refused({ MASTER_KEYS: `${a},c2hvcnQ=` }, 'MASTER_KEYS', /key 2 must be 32 bytes/);
  refused({ MASTER_KEY: 'c2hvcnQ=' }, 'MASTER_KEY', /must be 32 bytes/);
  refused({ MASTER_KEYS: `${a},${a}` }, 'MASTER_KEYS', /same key twice/);
  refused({ DATABASE_URL: 'postgres://db/payops' }, 'MASTER_KEY', /is required when DATABASE_URL is set/);
});

test('metrics and tracing settings: port, token length, stall time, OTLP endpoint', () => {
  const config = loadConfig({
    METRICS_PORT: '9464',
    METRICS_TOKEN: 'a-token-of-24-characters',
    WORKER_STALL_SECONDS: '60',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
  });
  assert.equal(config.metricsPort, 9464);
  assert.equal(config.metricsToken, 'a-token-of-24-characters');
  assert.equal(config.workerStallSeconds, 60);
  assert.equal(config.otlpEndpoint, 'http://collector:4318');
  const defaults = loadConfig({});
  assert.equal(defaults.metricsPort, undefined);
  assert.equal(defaults.metricsToken, undefined);
  assert.equal(defaults.workerStallSeconds, 300);
  assert.equal(defaults.otlpEndpoint, undefined);
  refused({ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN', /at least 16/);
  refused({ METRICS_PORT: 'x' }, 'METRICS_PORT', /whole number/);
  refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT', /must (be a URL|use)/);
});
