import { isTrimSpace } from '../trim-space.ts';
import { attrOf, type XNode } from './node.ts';

/**
 * A captured XML subtree as parallel arrays of numbers instead of one object per element: the
 * tokenizer refills the same arrays for every captured element (one camt Ntry after the other), so
 * mapping a 100,000-entry statement allocates no tree at all. A node is an index (-1: missing, and
 * every accessor accepts -1). Element names are compared as small integers: names a mapper asks for
 * are registered once (`nameId`) and the tokenizer resolves each distinct name of a file once.
 * Leaf text stays a range of the source string and is only cut out when a mapper reads it.
 */

const ids = new Map<string, number>();

/** Id of a local element name the mappers look up; registered at module load, never 0. */
export function nameId(local: string): number {
  let id = ids.get(local);
  if (id === undefined) {
    id = ids.size + 1;
    ids.set(local, id);
  }
  return id;
}

/** How many names are registered (ids read before a registration may be out of date). */
export function registeredNames(): number {
  return ids.size;
}

/** Id of a name read from a file: 0 when no mapper asks for it (such elements are never looked up by name). */
export function knownNameId(local: string): number {
  return ids.get(local) ?? 0;
}

const INITIAL = 256;

export class Tree {
  xml = '';
  count = 0;
  /** Registered name id (0 for names no mapper asks for). */
  id: Int32Array;
  first: Int32Array;
  next: Int32Array;
  /** Leaf text as a source range; start -1 means the decoded text is in `decoded` (entities, CDATA, comments). */
  start: Int32Array;
  end: Int32Array;
  /** Local name (the tokenizer's interned string) and raw attribute text per node. */
  names: string[] = [];
  attrs: string[] = [];
  decoded: string[] = [];
  /** Last child per node while the tree is being built. */
  private last: Int32Array;

  /** `size`: nodes to make room for at first (the arrays double when needed). */
  constructor(size = INITIAL) {
    // One buffer for the six arrays: allocating a buffer costs far more than a view on it.
    const buffer = new ArrayBuffer(size * 24);
    this.id = new Int32Array(buffer, 0, size);
    this.first = new Int32Array(buffer, size * 4, size);
    this.next = new Int32Array(buffer, size * 8, size);
    this.start = new Int32Array(buffer, size * 12, size);
    this.end = new Int32Array(buffer, size * 16, size);
    this.last = new Int32Array(buffer, size * 20, size);
  }

  /** How many nodes the arrays have room for. */
  get capacity(): number {
    return this.id.length;
  }

  reset(xml: string): void {
    this.xml = xml;
    this.count = 0;
  }

  /** Forgets the input and the texts cut from it (the arrays are kept for the next parse). */
  release(): void {
    this.xml = '';
    this.count = 0;
    this.attrs.fill('');
    this.decoded.fill('');
  }

  private grow(): void {
    const size = this.id.length;
    const buffer = new ArrayBuffer(size * 48);
    const more = (a: Int32Array, k: number) => {
      const b = new Int32Array(buffer, size * 8 * k, size * 2);
      b.set(a);
      return b;
    };
    this.id = more(this.id, 0);
    this.first = more(this.first, 1);
    this.next = more(this.next, 2);
    this.start = more(this.start, 3);
    this.end = more(this.end, 4);
    this.last = more(this.last, 5);
  }

  /** Appends an element under `parent` (-1 for the root) and returns its index. */
  add(parent: number, id: number, name: string, attrs: string): number {
    const i = this.count++;
    if (i === this.id.length) this.grow();
    this.id[i] = id;
    this.first[i] = -1;
    this.next[i] = -1;
    this.last[i] = -1;
    this.start[i] = 0;
    this.end[i] = 0;
    this.names[i] = name;
    this.attrs[i] = attrs;
    if (parent >= 0) {
      const prev = this.last[parent] as number;
      if (prev < 0) this.first[parent] = i;
      else this.next[prev] = i;
      this.last[parent] = i;
    }
    return i;
  }

  setText(i: number, start: number, end: number): void {
    this.start[i] = start;
    this.end[i] = end;
  }

  setDecoded(i: number, text: string): void {
    this.start[i] = -1;
    this.decoded[i] = text;
  }

  /** Copies node `src` of `from` (with its subtree) under `parent` of this tree; returns the copy. */
  copyFrom(from: Tree, src: number, parent: number): number {
    const i = this.add(parent, from.id[src] as number, from.names[src] as string, from.attrs[src] as string);
    const s = from.start[src] as number;
    if (s < 0) this.setDecoded(i, from.decoded[src] as string);
    else this.setText(i, s, from.end[src] as number);
    for (let c = from.first[src] as number; c >= 0; c = from.next[c] as number) this.copyFrom(from, c, i);
    return i;
  }

  hasChildren(i: number): boolean {
    return (this.first[i] as number) >= 0;
  }

  child(i: number, id: number): number {
    if (i < 0) return -1;
    for (let c = this.first[i] as number; c >= 0; c = this.next[c] as number) if (this.id[c] === id) return c;
    return -1;
  }

  /** Follows a path of child names; -1 as soon as one is missing (fixed parameters: no rest array per call). */
  at(i: number, a: number, b = 0, c = 0, d = 0): number {
    let n = this.child(i, a);
    if (b === 0 || n < 0) return n;
    n = this.child(n, b);
    if (c === 0 || n < 0) return n;
    n = this.child(n, c);
    if (d === 0 || n < 0) return n;
    return this.child(n, d);
  }

  /** Decoded text of a leaf ('' for elements with children and missing nodes), untrimmed. */
  text(i: number): string {
    if (i < 0) return '';
    const s = this.start[i] as number;
    if (s < 0) return this.decoded[i] as string;
    return this.xml.slice(s, this.end[i]);
  }

  /** Trimmed text, '' when empty or missing; cut once from the source, already trimmed. */
  trimmed(i: number): string {
    if (i < 0) return '';
    let s = this.start[i] as number;
    if (s < 0) return (this.decoded[i] as string).trim();
    let e = this.end[i] as number;
    const xml = this.xml;
    while (s < e && isTrimSpace(xml.charCodeAt(s))) s++;
    while (e > s && isTrimSpace(xml.charCodeAt(e - 1))) e--;
    return s === e ? '' : xml.slice(s, e);
  }

  /** Whether the trimmed text equals `value`, compared in place. */
  textIs(i: number, value: string): boolean {
    if (i < 0) return false;
    let s = this.start[i] as number;
    if (s < 0) return (this.decoded[i] as string).trim() === value;
    let e = this.end[i] as number;
    const xml = this.xml;
    while (s < e && isTrimSpace(xml.charCodeAt(s))) s++;
    while (e > s && isTrimSpace(xml.charCodeAt(e - 1))) e--;
    if (e - s !== value.length) return false;
    // Short values (codes, dates): a character loop beats startsWith here.
    for (let k = 0; k < value.length; k++) if (xml.charCodeAt(s + k) !== value.charCodeAt(k)) return false;
    return true;
  }

  /** Trimmed text of a node, or null when it is missing or its text empty. */
  value(i: number): string | null {
    const t = this.trimmed(i);
    return t === '' ? null : t;
  }

  /** Trimmed text at a path, or null when an element is missing or the text empty. */
  textAt(i: number, a: number, b = 0, c = 0, d = 0): string | null {
    const n = this.at(i, a, b, c, d);
    if (n < 0) return null;
    const t = this.trimmed(n);
    return t === '' ? null : t;
  }

  /** Attribute value by local name (prefix ignored). */
  attr(i: number, name: string): string | null {
    return i < 0 ? null : attrOf(this.attrs[i] as string, name);
  }

  /** The subtree as XNode objects, for mappers of small messages (pain.002) written against XNode. */
  toXNode(i: number): XNode {
    const children: XNode[] = [];
    for (let c = this.first[i] as number; c >= 0; c = this.next[c] as number) children.push(this.toXNode(c));
    return {
      name: this.names[i] as string,
      attrs: this.attrs[i] as string,
      text: children.length ? '' : this.text(i),
      children,
    };
  }
}
