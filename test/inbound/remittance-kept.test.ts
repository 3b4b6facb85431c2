/**
 * Issue 38: remittance text is never lost. For generated MT940 statements whose :86: fields are free
 * text (wrapped over lines, repeated as Rabobank's and Danske's continuation fields, or written before
 * the first :61:), every non-blank character of every :86: lands in exactly one field: the remittance of
 * the transaction it follows, or the statement's additionalInfo. (Structured dialects move characters
 * into their own fields; their keys and subfield marks are not text, and the dialect tests check them.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseBankFile } from '../../src/domain/inbound/index.ts';

// Words that cannot open a tag, a structured dialect or mBank's "; TYT." form: letters, digits, . , - ( ) +.
const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9.,()+-]{0,11}$/);
/** One :86: field: 1-4 lines of 1-5 words. */
const field = fc.array(fc.array(word, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 });
/** One entry: its :86: fields (none, one, or continuations). */
const entry = fc.record({ amount: fc.integer({ min: 1, max: 99_999 }), fields: fc.array(field, { maxLength: 3 }) });
const statement = fc.record({ info: fc.array(field, { maxLength: 2 }), entries: fc.array(entry, { maxLength: 6 }) });

const text = (f: string[][]) => f.map((line) => line.join(' ')).join('\n');
const squeeze = (s: string | null) => (s ?? '').replace(/\s+/g, '');

test('every character of every free-text :86: lands in exactly one field', () => {
  fc.assert(
    fc.property(statement, ({ info, entries }) => {
      const lines = [':20:PROP', ':25:NL91ABNA0417164300', ':28C:1/1', ':60F:C261201EUR0,00'];
      for (const f of info) lines.push(`:86:${text(f)}`);
      let sum = 0;
      for (const e of entries) {
        sum += e.amount;
        lines.push(`:61:2612011201C${e.amount},00NTRFNONREF`);
        for (const f of e.fields) lines.push(`:86:${text(f)}`);
      }
      lines.push(`:62F:C261201EUR${sum},00`, '-');
      const r = parseBankFile(Buffer.from(lines.join('\r\n'), 'latin1'));
      assert.ok(r.ok && r.kind === 'statement', r.ok ? '' : r.error.message);
      const b = r.blocks[0];
      assert.ok(b?.ok, b && !b.ok ? b.message : '');
      const s = b.statement;
      assert.equal(squeeze(s.additionalInfo), info.map((f) => squeeze(text(f))).join(''));
      assert.equal(s.transactions.length, entries.length);
      entries.forEach((e, n) => {
        const t = s.transactions[n];
        assert.equal(squeeze(t?.remittance ?? null), e.fields.map((f) => squeeze(text(f))).join(''));
        // Nothing of it is copied into another text field.
        assert.equal(t?.additionalInfo ?? null, null);
        assert.equal(t?.counterpartyName ?? null, null);
      });
    }),
    { numRuns: 300, seed: 38 },
  );
});

/**
 * The Dutch layouts that write the counterparty at the head of a free-text :86: (de Volksbank, ABN AMRO
 * and ING before SEPA, docs/bank-file-dialects.md §7): the counterparty's account and name leave the
 * text for their fields, and every other character stays in the remittance: each in exactly one field.
 */
const digits = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));
const name = fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));
const layout = fc.oneof(
  // de Volksbank: :61: reference = account, supplementary = name; :86: repeats both.
  fc.record({ kind: fc.constant('volksbank' as const), account: digits(10), name, body: field }),
  // ABN AMRO: "GIRO" + giro number, or the dotted account, then the name.
  fc.record({ kind: fc.constant('abn' as const), account: digits(6), name, body: field }),
  fc.record({ kind: fc.constant('abn-dotted' as const), account: digits(9), name, body: field }),
  // ING: a padded two-letter type code, :86: opens with the 10-digit account.
  fc.record({ kind: fc.constant('ing' as const), account: digits(10), name, body: field }),
);

test('the Dutch text layouts: the counterparty moves to its fields, the rest stays the remittance', () => {
  fc.assert(
    fc.property(fc.array(layout, { minLength: 1, maxLength: 5 }), (entries) => {
      const lines = [':20:PROP', ':25:NL91ABNA0417164300', ':28C:1/1', ':60F:C261201EUR0,00'];
      for (const [n, e] of entries.entries()) {
        const amount = `${n + 1},00`;
        const body = text(e.body);
        if (e.kind === 'volksbank') {
          lines.push(`:61:2612011201C${amount}NOVB${e.account}`, e.name, `:86:${e.account} ${e.name}\n${body}`);
        } else if (e.kind === 'abn') {
          lines.push(`:61:2612011201C${amount}N192NONREF`, `:86:GIRO   ${e.account} ${e.name}\n${body}`);
        } else if (e.kind === 'abn-dotted') {
          const a = e.account;
          const dotted = `${a.slice(0, 2)}.${a.slice(2, 4)}.${a.slice(4, 6)}.${a.slice(6)}`;
          lines.push(`:61:2612011201C${amount}N422NONREF`, `:86:${dotted} ${e.name}\n${body}`);
        } else {
          lines.push(`:61:2612011201C${amount}NOV NONREF`, `:86:${e.account} ${e.name}\n${body}`);
        }
      }
      const sum = (entries.length * (entries.length + 1)) / 2;
      lines.push(`:62F:C261201EUR${sum},00`, '-');
      const r = parseBankFile(Buffer.from(lines.join('\r\n'), 'latin1'));
      assert.ok(r.ok && r.kind === 'statement', r.ok ? '' : r.error.message);
      const b = r.blocks[0];
      assert.ok(b?.ok, b && !b.ok ? b.message : '');
      assert.deepEqual(b.warnings, []);
      entries.forEach((e, n) => {
        const t = b.statement.transactions[n];
        assert.ok(t);
        assert.equal(t.counterpartyAccount, e.account);
        if (e.kind === 'ing') {
          // ING's name has no boundary in the text: it stays in the remittance.
          assert.equal(t.counterpartyName, null);
          assert.equal(squeeze(t.remittance), squeeze(`${e.name} ${text(e.body)}`));
        } else {
          assert.equal(t.counterpartyName, e.name);
          assert.equal(squeeze(t.remittance), squeeze(text(e.body)));
        }
        assert.equal(t.additionalInfo, null);
        assert.equal(t.customerRef, e.kind === 'volksbank' ? null : 'NONREF');
      });
    }),
    { numRuns: 300, seed: 38 },
  );
});
