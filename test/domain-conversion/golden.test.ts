/**
 * Golden files: one reviewed pain.001 per bank and payment type (the bank's default version) in
 * test/golden/pain001. The test regenerates and compares; `UPDATE_GOLDEN=1` rewrites them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { convertPayment, listProfiles } from '../../src/domain/conversion/index.ts';
import { samplePayment } from './fixtures.ts';

const dir = fileURLToPath(new URL('../golden/pain001/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';
const now = new Date('2026-11-21T08:55:00Z');

for (const profile of listProfiles()) {
  if (profile.unsupported) continue;
  for (const type of profile.paymentTypes) {
    test(`golden ${profile.key} ${type.code} ${profile.painVersion}`, () => {
      const r = convertPayment(samplePayment(type.code, profile.countryCode), profile.key, { now });
      assert.ok(r.ok);
      assert.ok(r.value.ok, JSON.stringify(r.value.ok ? [] : r.value.issues));
      const file = `${dir}${profile.key}__${type.code}.xml`;
      if (update || !existsSync(file)) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(file, r.value.xml);
        if (!update) assert.fail(`golden file ${file} was missing and has been written: review and commit it`);
        return;
      }
      assert.equal(r.value.xml, readFileSync(file, 'utf8'));
    });
  }
}
