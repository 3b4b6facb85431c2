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

/** Id of a name read from a file: 0 when no mapper asks for it (such elements are never looked up by name). */
export function knownNameId(local: string): number {
  return ids.get(local) ?? 0;
}

const INITIAL = 256;

export class Tree {
  xml = '';
  count = 0;
  /** Registered name id (0 for names no mapper asks for). */
  id = new Int32Array(INITIAL);
  first = new Int32Array(INITIAL);
  next = new Int32Array(INITIAL);
  /** Leaf text as a source range; start -1 means the decoded text is in `decoded` (entities, CDATA, comments). */
  start = new Int32Array(INITIAL);
  end = new Int32Array(INITIAL);
  /** Local name (the tokenizer's interned string) and raw attribute text per node. */
  names: string[] = [];
  attrs: string[] = [];
  decoded: string[] = [];
  /** Last child per node while the tree is being built. */
  private last = new Int32Array(INITIAL);

  reset(xml: string): void {
    this.xml = xml;
    this.count = 0;
  }

  private grow(): void {
    const size = this.id.length * 2;
    const more = (a: Int32Array) => {
      const b = new Int32Array(size);
      b.set(a);
      return b;
    };
    this.id = more(this.id);
    this.first = more(this.first);
    this.next = more(this.next);
    this.start = more(this.start);
    this.end = more(this.end);
    this.last = more(this.last);
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
