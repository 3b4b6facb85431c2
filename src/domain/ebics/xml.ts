import { DOMParser } from '@xmldom/xmldom';

/** The namespaces of EBICS 3.0 messages (Annex 2: H005 schemas, S002 signatures, H000 for HEV). */
export const NS = {
  h005: 'urn:org:ebics:H005',
  s002: 'http://www.ebics.org/S002',
  h000: 'http://www.ebics.org/H000',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
} as const;

/** XML text escaping for element content and attribute values. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/**
 * Parses an EBICS message into a DOM. A DOCTYPE is refused before parsing (no EBICS message has one;
 * entity declarations are the XXE and billion-laughs door), as is anything not well-formed: null.
 */
export function parseDom(xml: string): Document | null {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return null;
  try {
    const errors: string[] = [];
    const doc = new DOMParser({
      errorHandler: (level: string, message: unknown) => {
        if (level !== 'warning') errors.push(String(message));
      },
    }).parseFromString(xml, 'text/xml') as unknown as Document;
    return errors.length > 0 || !doc.documentElement ? null : doc;
  } catch {
    return null;
  }
}

/** The element children of a node, in document order. */
export function childElements(node: Node): Element[] {
  const out: Element[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (c.nodeType === 1) out.push(c as Element);
  return out;
}

/** The first child element named `localName` (in `ns`), or null. */
export function child(node: Node | null | undefined, localName: string, ns: string = NS.h005): Element | null {
  if (!node) return null;
  return childElements(node).find((e) => e.localName === localName && e.namespaceURI === ns) ?? null;
}

/** The element at a path of child names below `node` (all in `ns`). */
export function at(node: Node | null | undefined, path: string[], ns: string = NS.h005): Element | null {
  let cur: Element | null = (node as Element | null) ?? null;
  for (const name of path) {
    cur = child(cur, name, ns);
    if (!cur) return null;
  }
  return cur;
}

/** The trimmed text of an element, or null when it is absent. */
export function textOf(node: Element | null | undefined): string | null {
  if (!node) return null;
  return (node.textContent ?? '').trim();
}

/** Every element in the document, depth first in document order. */
export function allElements(root: Element): Element[] {
  const out: Element[] = [];
  const walk = (e: Element) => {
    out.push(e);
    for (const c of childElements(e)) walk(c);
  };
  walk(root);
  return out;
}
