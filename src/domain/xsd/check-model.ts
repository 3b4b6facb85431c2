import type { PainVersion } from '../banks/types.ts';
import type { ComplexType, SchemaModel, SimpleType } from './schema-model.ts';
import { schemaModel } from './schema-model.ts';

/**
 * Checks a generated pain.001 against our schema model. The tokenizer reads the subset of XML our writer
 * emits (declaration, elements, attributes in double quotes, escaped text; no comments or CDATA) and
 * reports anything else as a problem, so it fails closed.
 */
export type ModelProblem = { path: string; message: string };

type Node = { name: string; attrs: Record<string, string>; text: string; children: Node[] };

const TOKEN = /<\?[^?]*\?>|<\/([A-Za-z0-9]+)>|<([A-Za-z0-9]+)((?:\s+[A-Za-z:]+="[^"]*")*)\s*(\/?)>|([^<]+)/g;
const ATTR = /([A-Za-z:]+)="([^"]*)"/g;

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

function parse(xml: string, problems: ModelProblem[]): Node | undefined {
  const stack: Node[] = [];
  let root: Node | undefined;
  TOKEN.lastIndex = 0;
  let consumed = 0;
  for (let m = TOKEN.exec(xml); m !== null; m = TOKEN.exec(xml)) {
    if (m.index !== consumed) break;
    consumed = TOKEN.lastIndex;
    if (m[1] !== undefined) {
      const node = stack.pop();
      if (!node || node.name !== m[1]) {
        problems.push({ path: m[1], message: 'mismatched closing tag' });
        return undefined;
      }
      if (stack.length === 0) root = node;
    } else if (m[2] !== undefined) {
      const attrs: Record<string, string> = {};
      for (const a of (m[3] ?? '').matchAll(ATTR)) attrs[a[1] ?? ''] = unescapeXml(a[2] ?? '');
      const node: Node = { name: m[2], attrs, text: '', children: [] };
      stack[stack.length - 1]?.children.push(node);
      if (m[4] === '/') {
        if (stack.length === 0) root = node;
      } else stack.push(node);
    } else if (m[5] !== undefined) {
      const top = stack[stack.length - 1];
      if (top) top.text += unescapeXml(m[5]);
      else if (m[5].trim() !== '') problems.push({ path: '', message: 'text outside the root element' });
    }
  }
  if (consumed !== xml.length || stack.length > 0) {
    problems.push({ path: '', message: `not well-formed near offset ${consumed}` });
    return undefined;
  }
  return root;
}

function totalDigits(value: string): number {
  return value.replace('.', '').replace(/^0+(?=\d)/, '').length;
}

function checkSimple(node: Node, t: SimpleType, path: string, problems: ModelProblem[]): void {
  if (node.children.length > 0) {
    problems.push({ path, message: 'expected text, found child elements' });
    return;
  }
  const v = node.text;
  switch (t.kind) {
    case 'text':
      if (v.length < (t.min ?? 1) || v.length > t.max)
        problems.push({ path, message: `length ${v.length} outside 1..${t.max}` });
      return;
    case 'pattern':
      if (!t.re.test(v)) problems.push({ path, message: `${JSON.stringify(v)} is not a valid ${t.label}` });
      return;
    case 'enum':
      if (!t.values.includes(v))
        problems.push({ path, message: `${JSON.stringify(v)} is not one of ${t.values.join(', ')}` });
      return;
    case 'decimal': {
      const m = /^\d+(?:\.(\d+))?$/.exec(v);
      if (!m || (m[1] ?? '').length > t.fraction || totalDigits(v) > t.total)
        problems.push({ path, message: `${JSON.stringify(v)} is not a valid decimal` });
      return;
    }
    case 'amount': {
      const m = /^\d+(?:\.(\d+))?$/.exec(v);
      if (!m || (m[1] ?? '').length > 5 || totalDigits(v) > 18)
        problems.push({ path, message: `${JSON.stringify(v)} is not a valid amount` });
      if (!/^[A-Z]{3}$/.test(node.attrs['Ccy'] ?? ''))
        problems.push({ path, message: 'Ccy attribute missing or not a currency code' });
      return;
    }
  }
}

function checkComplex(model: SchemaModel, node: Node, t: ComplexType, path: string, problems: ModelProblem[]): void {
  if (node.text.trim() !== '') problems.push({ path, message: 'unexpected text in a complex element' });
  const kids = node.children;
  if ('choice' in t) {
    const only = kids[0];
    const particle = only ? t.choice.find((c) => c.name === only.name) : undefined;
    if (kids.length !== 1 || !only || !particle) {
      problems.push({ path, message: `expected exactly one of ${t.choice.map((c) => c.name).join(', ')}` });
      return;
    }
    checkNode(model, only, particle.type, `${path}/${only.name}`, problems);
    return;
  }
  let k = 0;
  for (const particle of t.seq) {
    let count = 0;
    while (k < kids.length && kids[k]?.name === particle.name) {
      const kid = kids[k] as Node;
      checkNode(model, kid, particle.type, `${path}/${kid.name}`, problems);
      count++;
      k++;
    }
    if (count < particle.min) problems.push({ path: `${path}/${particle.name}`, message: `required element missing` });
    if (count > particle.max)
      problems.push({ path: `${path}/${particle.name}`, message: `at most ${particle.max} occurrences` });
  }
  if (k < kids.length) {
    problems.push({ path: `${path}/${kids[k]?.name}`, message: 'element not expected here (order or name)' });
  }
}

function checkNode(model: SchemaModel, node: Node, typeName: string, path: string, problems: ModelProblem[]): void {
  const t = model.types[typeName];
  if (!t) {
    problems.push({ path, message: `no type ${typeName} in the schema model` });
    return;
  }
  if ('kind' in t) checkSimple(node, t, path, problems);
  else checkComplex(model, node, t, path, problems);
}

export function checkAgainstModel(xml: string, version: PainVersion): ModelProblem[] {
  const problems: ModelProblem[] = [];
  const root = parse(xml, problems);
  if (!root) return problems.length > 0 ? problems : [{ path: '', message: 'no root element' }];
  const model = schemaModel(version);
  if (root.name !== model.root) return [{ path: root.name, message: `root must be ${model.root}` }];
  if (root.attrs['xmlns'] !== `urn:iso:std:iso:20022:tech:xsd:${version}`) {
    problems.push({ path: 'Document', message: `namespace must be urn:iso:std:iso:20022:tech:xsd:${version}` });
  }
  checkNode(model, root, 'Document', 'Document', problems);
  return problems;
}
