import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_CODES } from './error-codes.ts';
import { AppError } from './errors.ts';

test('an AppError answers the status the table gives its code', () => {
  for (const [code, entry] of Object.entries(ERROR_CODES)) {
    const error = new AppError(code as keyof typeof ERROR_CODES, 'm');
    assert.equal(error.status, entry.status, code);
    assert.ok(entry.meaning.length > 10, `${code} says what it means`);
  }
});

test('the codes split so that one has one status (docs/adr/0068)', () => {
  const status = (code: keyof typeof ERROR_CODES) => ERROR_CODES[code].status;
  assert.deepEqual(
    [status('validation_failed'), status('invalid_payment'), status('unrecognised_format')],
    [400, 422, 422],
  );
  assert.deepEqual([status('unrecognised_statement'), status('invalid_code'), status('wrong_code')], [400, 401, 400]);
});
