import assert from 'node:assert/strict';
import { test } from 'node:test';
import { charsetClasses } from '../validation/charset.ts';
import { StaticBytes, XmlBytes } from './xml-bytes.ts';

const german = charsetClasses('german');

test('text: ASCII, letters of the charset as UTF-8, & escaped; refused characters leave nothing written', () => {
  const out = new XmlBytes(1);
  assert.equal(out.text('Müller & Söhne', german), true);
  assert.equal(out.text('Café', german), false);
  out.ascii('|');
  out.prepend('<h>');
  assert.equal(out.bytes().toString('utf8'), '<h>Müller &amp; Söhne|');
});

test('text: `&` outside the charset (SEPA) is refused, not escaped', () => {
  const out = new XmlBytes(1);
  assert.equal(out.text('A & B', charsetClasses('sepa')), false);
  assert.equal(out.text('A + B', charsetClasses('sepa')), true);
  out.prepend('');
  assert.equal(out.bytes().toString('utf8'), 'A + B');
});

test('static pieces: ASCII through 8-byte words, padding overwritten, anything else copied as it is', () => {
  const out = new XmlBytes(1);
  out.room(64);
  out.raw(new StaticBytes('<a>'));
  out.ascii('x');
  out.raw(new StaticBytes('</a><ü>'));
  out.raw(new StaticBytes('0123456789abcdef'));
  out.prepend('');
  assert.equal(out.bytes().toString('utf8'), '<a>x</a><ü>0123456789abcdef');
});

test('headers: prepended into the reserve, later ones joined at their mark, long ones joined too', () => {
  const out = new XmlBytes(3);
  const first = out.mark();
  out.write('a');
  const second = out.mark();
  out.write('b');
  first.text = '[1]';
  second.text = '[2]';
  out.prepend('<doc>');
  assert.equal(out.bytes().toString('utf8'), '<doc>[1]a[2]b');

  const long = new XmlBytes(1);
  long.write('body');
  long.prepend('x'.repeat(10_000));
  assert.equal(long.bytes().toString('utf8'), `${'x'.repeat(10_000)}body`);
});

test('grows by estimate without losing what was written', () => {
  const out = new XmlBytes(1000);
  let expected = '';
  for (let i = 0; i < 1000; i++) {
    out.room(8192);
    const s = `<t>${i}</t>`.repeat(50);
    out.ascii(s);
    out.written++;
    expected += s;
  }
  assert.equal(out.bytes().toString('utf8'), expected);
});
