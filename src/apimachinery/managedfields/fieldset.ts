/**
 * A set of field paths stored as a trie (structured-merge-diff `fieldpath.Set`): `members` are the paths that end
 * at this node, `children` the subtrees below it. Set algebra follows upstream, including its asymmetric
 * Difference (a parent minus a child stays; a child minus its parent stays too, only exact members go). The
 * FieldsV1 encoding writes siblings in upstream order: `.`, then `f:`, `k:`, `v:`, `i:` elements, each sorted.
 */
import { comparePE, deserializePE, type Path, type PathElement, PathElementError } from './pathelement.ts';

interface Child {
  pe: PathElement;
  set: FieldSet;
}

export class FieldsV1Error extends Error {}

export class FieldSet {
  readonly members = new Map<string, PathElement>();
  readonly children = new Map<string, Child>();

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds `p`; its parents are not added. The empty path (the whole object) is never tracked. */
  insert(p: Path): void {
    if (p.length === 0) return;
    let s: FieldSet = this;
    for (let i = 0; i < p.length - 1; i++) s = s.descend(p[i]!);
    const last = p[p.length - 1]!;
    if (!s.members.has(last.s)) s.members.set(last.s, last);
  }

  private descend(pe: PathElement): FieldSet {
    let c = this.children.get(pe.s);
    if (c === undefined) {
      c = { pe, set: new FieldSet() };
      this.children.set(pe.s, c);
    }
    return c.set;
  }

  has(p: Path): boolean {
    if (p.length === 0) return false;
    let s: FieldSet | undefined = this;
    for (let i = 0; i < p.length - 1; i++) {
      s = s.children.get(p[i]!.s)?.set;
      if (s === undefined) return false;
    }
    return s.members.has(p[p.length - 1]!.s);
  }

  empty(): boolean {
    if (this.members.size > 0) return false;
    for (const c of this.children.values()) if (!c.set.empty()) return false;
    return true;
  }

  /** The subtree below `pe` (shared, do not mutate), or an empty set. */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(pe.s)?.set ?? EMPTY;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, c] of this.children) out.children.set(k, { pe: c.pe, set: c.set.copy() });
    return out;
  }

  union(o: FieldSet): FieldSet {
    const out = this.copy();
    for (const [k, pe] of o.members) out.members.set(k, pe);
    for (const [k, c] of o.children) {
      const mine = out.children.get(k);
      out.children.set(k, { pe: c.pe, set: mine === undefined ? c.set.copy() : mine.set.union(c.set) });
    }
    return out;
  }

  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      if (theirs === undefined) continue;
      const r = c.set.intersection(theirs.set);
      if (!r.empty()) out.children.set(k, { pe: c.pe, set: r });
    }
    return out;
  }

  difference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      if (theirs === undefined) out.children.set(k, { pe: c.pe, set: c.set.copy() });
      else {
        const d = c.set.difference(theirs.set);
        if (!d.empty()) out.children.set(k, { pe: c.pe, set: d });
      }
    }
    return out;
  }

  equals(o: FieldSet): boolean {
    return this.difference(o).empty() && o.difference(this).empty();
  }

  private sortedMembers(): PathElement[] {
    return [...this.members.values()].sort(comparePE);
  }

  private sortedChildren(): Child[] {
    return [...this.children.values()].sort((a, b) => comparePE(a.pe, b.pe));
  }

  /** Every member path, preorder: this node's members in order, then each child subtree in order. */
  paths(prefix: PathElement[] = []): PathElement[][] {
    const out: PathElement[][] = [];
    for (const pe of this.sortedMembers()) out.push([...prefix, pe]);
    for (const c of this.sortedChildren()) if (!c.set.empty()) out.push(...c.set.paths([...prefix, c.pe]));
    return out;
  }

  /** The FieldsV1 object, keys in upstream order (JS keeps insertion order: no key here looks like an index). */
  toFieldsV1(): Record<string, unknown> {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const members = this.sortedMembers();
    const children = this.sortedChildren().filter((c) => !c.set.empty());
    if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = {};
    let mi = 0;
    let ci = 0;
    while (mi < members.length || ci < children.length) {
      const m = members[mi];
      const c = children[ci];
      const cmp = m === undefined ? 1 : c === undefined ? -1 : comparePE(m, c.pe);
      if (cmp < 0) {
        out[m!.s] = {};
        mi++;
      } else {
        out[c!.pe.s] = c!.set.emit(cmp === 0);
        if (cmp === 0) mi++;
        ci++;
      }
    }
    return out;
  }

  /** Parses FieldsV1; throws FieldsV1Error where upstream's decoder fails. Unknown element types are skipped. */
  static fromFieldsV1(v: unknown): FieldSet {
    if (v === null || v === undefined) return new FieldSet();
    if (typeof v !== 'object' || Array.isArray(v)) throw new FieldsV1Error('FieldsV1 must be a JSON object');
    return readNode(v as Record<string, unknown>).children ?? new FieldSet();
  }
}

const EMPTY = new FieldSet();

function readNode(o: Record<string, unknown>): { children: FieldSet | null; isMember: boolean } {
  let children: FieldSet | null = null;
  let isMember = false;
  for (const key of Object.keys(o)) {
    if (key === '.') {
      isMember = true;
      continue;
    }
    let pe: PathElement | null;
    try {
      pe = deserializePE(key);
    } catch (e) {
      if (e instanceof PathElementError) throw new FieldsV1Error(`parsing key as path element: ${e.message}`);
      throw e;
    }
    if (pe === null) continue;
    const v = o[key];
    if (v !== null && (typeof v !== 'object' || Array.isArray(v))) throw new FieldsV1Error(`ReadMapCB: expect { or n, but found ${JSON.stringify(v)}`);
    const sub = v === null ? { children: null, isMember: true } : readNode(v as Record<string, unknown>);
    if (sub.isMember) {
      children ??= new FieldSet();
      children.members.set(pe.s, pe);
    }
    if (sub.children !== null) {
      children ??= new FieldSet();
      children.children.set(pe.s, { pe, set: sub.children });
    }
  }
  // A node without (known) children is a member of its parent: `"f:x": {}`.
  if (children === null) isMember = true;
  return { children, isMember };
}
