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

/** Follows a path of child names; returns undefined as soon as one is missing. */
export function at(node: XNode | undefined, ...path: string[]): XNode | undefined {
  let n = node;
  for (let i = 0; i < path.length && n; i++) n = child(n, path[i] as string);
  return n;
}

/** Trimmed text at a path, or null when the element is missing or empty. */
export function textAt(node: XNode | undefined, ...path: string[]): string | null {
  const n = at(node, ...path);
  if (!n) return null;
  const t = n.text.trim();
  return t === '' ? null : t;
}

const ATTR = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** Attribute value by local name (prefix ignored); entity references were validated by the tokenizer. */
export function attr(node: XNode | undefined, name: string): string | null {
  if (!node || node.attrs === '') return null;
  // Hot path: Ccy="EUR" on every Amt.
  const quick = node.attrs.indexOf(`${name}="`);
  if (quick >= 0 && (quick === 0 || /\s/.test(node.attrs[quick - 1] ?? ''))) {
    const end = node.attrs.indexOf('"', quick + name.length + 2);
    if (end > 0) return node.attrs.slice(quick + name.length + 2, end).trim();
  }
  ATTR.lastIndex = 0;
  for (let m = ATTR.exec(node.attrs); m; m = ATTR.exec(node.attrs)) {
    const key = m[1] ?? '';
    const local = key.includes(':') ? key.slice(key.indexOf(':') + 1) : key;
    if (local === name || key === name) return (m[2] ?? m[3] ?? '').trim();
  }
  return null;
}
