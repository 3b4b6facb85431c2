import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isCountryCode } from './countries.ts';

test('country codes: assigned pairs and XK pass; lower case, other lengths and non-letters do not', () => {
  for (const code of ['DE', 'AT', 'AD', 'ZW', 'XK', 'FR']) assert.equal(isCountryCode(code), true, code);
  for (const code of ['', 'D', 'DEU', 'de', 'XX', 'AA', 'D1', '@Z', '[A', 'Z[']) {
    assert.equal(isCountryCode(code), false, code);
  }
});
