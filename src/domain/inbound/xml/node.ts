/**
 * A minimal element tree: local name, raw attribute text, text of leaf elements and children.
 * Only the subtrees a parser asks for are ever built (one Ntry at a time), so it stays small.
 */
export type XNode = {
  /** Local name without namespace prefix. */
  name: string;
  /** Raw attribute source between the name and `>`, parsed on demand by `attr`. */
  attrs: string;
  /** Decoded character data of a leaf element ('' for elements with children). */
  text: string;
  children: XNode[];
};

export function child(node: XNode | undefined, name: string): XNode | undefined {
  if (!node) return undefined;
  const c = node.children;
  for (let i = 0; i < c.length; i++) {
    const n = c[i] as XNode;
    if (n.name === name) return n;
  }
  return undefined;
}

/**
 * Follows a path of child names; returns undefined as soon as one is missing. Fixed parameters
 * rather than a rest array: these run tens of times per entry and must not allocate.
 */
export function at(node: XNode | undefined, a: string, b?: string, c?: string, d?: string): XNode | undefined {
  let n = child(node, a);
  if (b === undefined || n === undefined) return n;
  n = child(n, b);
  if (c === undefined || n === undefined) return n;
  n = child(n, c);
  if (d === undefined || n === undefined) return n;
  return child(n, d);
}

/** Trimmed text at a path, or null when the element is missing or empty. */
export function textAt(node: XNode | undefined, a: string, b?: string, c?: string, d?: string): string | null {
  const n = at(node, a, b, c, d);
  if (!n) return null;
  const t = n.text.trim();
  return t === '' ? null : t;
}

const ATTR = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

// The tokenizer hands out one shared string for repeated attribute text (Ccy="EUR" on every Amt), so a
// one-entry cache answers almost every call without scanning (the value depends on the text and name only).
let lastAttrs = '';
let lastName = '';
let lastValue: string | null = null;

/** Drops the cached attribute text (possibly a slice of the input, which it would keep alive). */
export function forgetLastAttrs(): void {
  lastAttrs = '';
  lastName = '';
  lastValue = null;
}

/** Attribute value by local name (prefix ignored); entity references were validated by the tokenizer. */
export function attr(node: XNode | undefined, name: string): string | null {
  return node ? attrOf(node.attrs, name) : null;
}

/** Attribute value by local name in raw attribute text (see `attr`). */
export function attrOf(attrs: string, name: string): string | null {
  if (attrs === '') return null;
  if (attrs === lastAttrs && name === lastName) return lastValue;
  const value = scanAttr(attrs, name);
  lastAttrs = attrs;
  lastName = name;
  lastValue = value;
  return value;
}

function scanAttr(attrs: string, name: string): string | null {
  // Hot path: Ccy="EUR" on every Amt.
  const quick = attrs.indexOf(`${name}="`);
  if (quick >= 0 && (quick === 0 || /\s/.test(attrs[quick - 1] ?? ''))) {
    const end = attrs.indexOf('"', quick + name.length + 2);
    if (end > 0) return attrs.slice(quick + name.length + 2, end).trim();
  }
  ATTR.lastIndex = 0;
  for (let m = ATTR.exec(attrs); m; m = ATTR.exec(attrs)) {
    const key = m[1] ?? '';
    const local = key.includes(':') ? key.slice(key.indexOf(':') + 1) : key;
    if (local === name || key === name) return (m[2] ?? m[3] ?? '').trim();
  }
  return null;
}
