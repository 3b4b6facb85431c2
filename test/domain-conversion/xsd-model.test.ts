import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkAgainstModel, validateGeneratedXml } from '../../src/domain/xsd/index.ts';

const goldenDir = fileURLToPath(new URL('../golden/pain001/', import.meta.url));
const xsd09 = fileURLToPath(
  new URL('../../../shared/corpus/xsd/phoughton-pyiso20022__pain.001.001.09.xsd', import.meta.url),
);

function versionOf(xml: string) {
  return xml.includes('pain.001.001.09') ? ('pain.001.001.09' as const) : ('pain.001.001.03' as const);
}

test('every golden file passes the schema model', () => {
  for (const f of readdirSync(goldenDir)) {
    const xml = readFileSync(goldenDir + f, 'utf8');
    assert.deepEqual(checkAgainstModel(xml, versionOf(xml)), [], f);
  }
});

test('the schema model catches order, cardinality, length, pattern and namespace errors', () => {
  const xml = readFileSync(`${goldenDir}op__FI_REF.xml`, 'utf8');
  const v = versionOf(xml);
  const messages = (x: string) => checkAgainstModel(x, v).map((p) => `${p.path}: ${p.message}`);
  assert.match(messages(xml.replace('<PmtMtd>TRF</PmtMtd>', ''))[0] ?? '', /PmtMtd: required element missing/);
  assert.match(
    messages(xml.replace('<MsgId>MSG-FI-REF</MsgId>', `<MsgId>${'M'.repeat(36)}</MsgId>`))[0] ?? '',
    /MsgId: length 36/,
  );
  assert.match(messages(xml.replace('<Ctry>FI</Ctry>', '<Ctry>fi</Ctry>'))[0] ?? '', /not a valid CountryCode/);
  assert.match(messages(xml.replace('<ChrgBr>SLEV</ChrgBr>', '<ChrgBr>OUR</ChrgBr>'))[0] ?? '', /ChrgBr/);
  assert.equal(messages(xml.replace('pain.001.001.09"', 'pain.001.001.03"')).length > 0, true);
  assert.match(messages(xml.slice(0, 200))[0] ?? '', /well-formed/);
});

test('validateGeneratedXml says which validation ran', async (t) => {
  const xml = readFileSync(`${goldenDir}op__FI_REF.xml`, 'utf8');
  const modelOnly = await validateGeneratedXml(xml, 'pain.001.001.09', 'op');
  assert.deepEqual(modelOnly, { valid: true, ran: ['schema-model'], issues: [] });
  if (!existsSync(xsd09)) {
    t.diagnostic('official pain.001.001.09 XSD not found: official-xsd branch not exercised');
    return;
  }
  const xsd = readFileSync(xsd09, 'utf8');
  const both = await validateGeneratedXml(xml, 'pain.001.001.09', 'op', xsd);
  assert.deepEqual(both.ran, ['schema-model', 'official-xsd']);
  assert.equal(both.valid, true);
  const broken = await validateGeneratedXml(xml.replace('<PmtMtd>TRF</PmtMtd>', ''), 'pain.001.001.09', 'op', xsd);
  assert.equal(broken.valid, false);
  assert.ok(broken.issues.some((i) => i.message.startsWith('official XSD:')));
});
