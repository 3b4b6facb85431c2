import { XMLParser } from 'fast-xml-parser';

/** XML text escaping for element content and attribute values. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/** `<name>text</name>` when the value is present, nothing otherwise. */
export function el(name: string, value: string | null | undefined): string {
  return value === undefined || value === null ? '' : `<${name}>${esc(value)}</${name}>`;
}

const ARRAYS = new Set([
  'FileDescriptor',
  'UserFileType',
  'Certificate',
  'FileReference',
  'Signature',
  // pain.001 repeats (the bank simulators read delivered files).
  'PmtInf',
  'CdtTrfTxInf',
  'Ustrd',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) => ARRAYS.has(name),
});

export type XmlObject = Record<string, unknown>;

/**
 * Parses a web-services message into plain objects (namespace prefixes removed). A DOCTYPE is refused
 * before parsing: no message of the protocol has one, and entity declarations are the XXE and
 * billion-laughs door. Answers null for anything that is not well-formed XML.
 */
export function parseXml(xml: string): XmlObject | null {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return null;
  try {
    const parsed = parser.parse(xml, true) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as XmlObject) : null;
  } catch {
    return null;
  }
}

export const obj = (v: unknown): XmlObject =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as XmlObject) : {};
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** Text of an element that may carry attributes (`{'#text': ...}`) or none. */
export function text(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const t = obj(v)['#text'];
  return typeof t === 'string' ? t : null;
}

/** The namespace URI of the first element named `localName` (as its prefix or default binds it on that element). */
export function namespaceOf(xml: string, localName: string): string | null {
  const start = new RegExp(`<(?:([A-Za-z_][\\w.-]*):)?${localName}\\b([^>]*)>`).exec(xml);
  if (!start) return null;
  const prefix = start[1];
  const attrs = start[2] ?? '';
  const binding = new RegExp(`\\sxmlns${prefix ? `:${prefix}` : ''}\\s*=\\s*["']([^"']*)["']`).exec(attrs);
  return binding?.[1] ?? null;
}
