import assert from 'node:assert/strict';
import { test } from 'node:test';
import { charsetClasses } from '../validation/charset.ts';
import { StaticBytes, TRANSACTION_ROOM, XmlBytes } from './xml-bytes.ts';

const german = charsetClasses('german');
const polish = charsetClasses('polish');

/** A finished XmlBytes as its document, with the working buffer given back as the converter does. */
function done(out: XmlBytes): string {
  const xml = out.xml();
  out.release();
  return xml;
}

test('text: ASCII, letters of the charset, & escaped; a refused character leaves nothing written', () => {
  const out = new XmlBytes();
  assert.equal(out.text('Müller & Söhne', german), true);
  assert.equal(out.text('Café', german), false);
  out.ascii('|');
  out.prepend('<h>');
  assert.equal(done(out), '<h>Müller &amp; Söhne|');
});

test('text: `&` outside the charset (SEPA) is refused, not escaped', () => {
  const out = new XmlBytes();
  assert.equal(out.text('A & B', charsetClasses('sepa')), false);
  assert.equal(out.text('A + B', charsetClasses('sepa')), true);
  assert.equal(done(out), 'A + B');
});

test('letters beyond Latin-1 turn the chunk to UTF-8 from their field on, before and after kept as written', () => {
  const out = new XmlBytes();
  out.ascii('<a>');
  assert.equal(out.text('Zażółć ąę', polish), true);
  out.ascii('</a><b>');
  // ó is Latin-1, ł is not: the field is started over in the UTF-8 chunk.
  assert.equal(out.text('Łódź', polish), true);
  out.write('</b>ü');
  assert.equal(done(out), '<a>Zażółć ąę</a><b>Łódź</b>ü');

  // A refused character after a widening: nothing of the field kept, the retry writes in the UTF-8 chunk.
  const retry = new XmlBytes();
  retry.ascii('[');
  assert.equal(retry.text('Łuk €', polish), false);
  assert.equal(retry.text('Łuk E', polish), true);
  retry.ascii(']');
  assert.equal(done(retry), '[Łuk E]');
});

test('write: Latin-1 text stays in a Latin-1 chunk, other text widens it', () => {
  const out = new XmlBytes();
  out.write('<Nm>Köln</Nm>');
  out.write('<Nm>Gdańsk</Nm>');
  out.write('<Nm>Straße</Nm>');
  assert.equal(done(out), '<Nm>Köln</Nm><Nm>Gdańsk</Nm><Nm>Straße</Nm>');
});

test('static pieces: ASCII through 8-byte words, padding overwritten, anything else written as text', () => {
  const out = new XmlBytes();
  out.room(64);
  out.raw(new StaticBytes('<a>'));
  out.ascii('x');
  out.raw(new StaticBytes('</a><ü>'));
  out.raw(new StaticBytes('0123456789abcdef'));
  out.raw(new StaticBytes('<ł/>'));
  assert.equal(done(out), '<a>x</a><ü>0123456789abcdef<ł/>');
});

test('headers: prepended, later ones joined at their mark', () => {
  const out = new XmlBytes();
  const first = out.mark();
  out.write('a');
  const second = out.mark();
  out.write('b');
  first.text = '[1]';
  second.text = '[2]';
  out.prepend('<doc>');
  assert.equal(done(out), '<doc>[1]a[2]b');

  const long = new XmlBytes();
  long.write('body');
  long.prepend('x'.repeat(10_000));
  assert.equal(done(long), `${'x'.repeat(10_000)}body`);
});

test('chunks: a document many times the working buffer keeps every byte in order, across both encodings', () => {
  // Polish letters and, for this test, ü: chunks of both encodings.
  const mixed = polish.slice();
  mixed[0xfc] = mixed[0x142] as number;
  const out = new XmlBytes();
  let expected = '';
  for (let i = 0; i < 2000; i++) {
    out.room(TRANSACTION_ROOM);
    const s = `<t>${i}</t>`.repeat(20);
    out.ascii(s);
    const name = i % 7 === 0 ? 'Łukasz' : 'Jürgen';
    assert.equal(out.text(name, mixed), true);
    expected += s + name;
  }
  out.write('x'.repeat(100_000));
  expected += 'x'.repeat(100_000);
  assert.equal(done(out), expected);
});

test('the working buffer is reused by the next conversion, and a nested one gets its own', () => {
  const outer = new XmlBytes();
  outer.ascii('outer');
  const inner = new XmlBytes();
  assert.notEqual(inner.buf, outer.buf);
  inner.ascii('inner');
  assert.equal(done(inner), 'inner');
  assert.equal(done(outer), 'outer');
  const next = new XmlBytes();
  assert.equal(next.buf, outer.buf);
  next.release();
});

test('a write longer than the working buffer gets a buffer of its own; the working one still goes back', () => {
  const out = new XmlBytes();
  const working = out.buf;
  out.write('y'.repeat(100_000));
  assert.notEqual(out.buf, working);
  assert.equal(done(out), 'y'.repeat(100_000));
  const next = new XmlBytes();
  assert.equal(next.buf, working);
  next.release();
});
