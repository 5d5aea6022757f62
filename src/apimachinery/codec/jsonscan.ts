/**
 * What JSON.parse cannot tell us, found cheaply. `scanFast` is one linear pass over the text with no per-character
 * allocation: it measures nesting depth and flags bodies that need the exact (slow) parse — a possibly repeated
 * key in one object (keys are compared by hash), an escaped key, or a number literal that is not a plain
 * integer (Go rejects `1.0` or `1e3` for integer fields; JSON.parse would turn them into integers).
 * `parseExact` is that slow parse: plain values like JSON.parse, plus side tables with the document order of
 * keys in objects that repeat a key and the literal text of non-plain numbers.
 */
import { MAX_DEPTH } from './jsonsyntax.ts';

export const NEEDS_EXACT = 1;
export const TOO_DEEP = 2;

const kinds = new Uint8Array(MAX_DEPTH + 2); // 1 = object, 2 = array, per depth
const bases = new Int32Array(MAX_DEPTH + 2); // start of the depth's keys in `hashes`
const sets: (Set<number> | undefined)[] = [];
let hashes = new Int32Array(512);
// Objects with more keys than this switch from a linear compare to a Set of hashes.
const LINEAR_KEYS = 24;

/** Scans JSON text (assumed valid; JSON.parse decides that) and returns NEEDS_EXACT / TOO_DEEP flags. */
export function scanFast(s: string): number {
  const n = s.length;
  let depth = 0;
  let top = 0;
  let expectKey = false;
  let flags = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      if (!expectKey || (flags & NEEDS_EXACT) !== 0) {
        // A value string (or hashing is off): jump to the closing quote, skipping escaped ones.
        let j = s.indexOf('"', i + 1);
        for (;;) {
          if (j < 0) return flags | NEEDS_EXACT; // unterminated: invalid
          let b = j - 1;
          while (s.charCodeAt(b) === 92) b--;
          if ((j - 1 - b) % 2 === 0) break;
          j = s.indexOf('"', j + 1);
        }
        expectKey = false;
        i = j;
        continue;
      }
      let h = 0;
      let j = i + 1;
      for (; j < n; j++) {
        const d = s.charCodeAt(j);
        if (d === 34) break;
        if (d === 92) {
          flags |= NEEDS_EXACT;
          j++;
          continue;
        }
        h = (Math.imul(h, 31) + d) | 0;
      }
      h = (Math.imul(h, 31) + (j - i)) | 0;
      const base = bases[depth]!;
      let set = sets[depth];
      if (set !== undefined) {
        if (set.has(h)) flags |= NEEDS_EXACT;
        set.add(h);
      } else {
        for (let k = base; k < top; k++) {
          if (hashes[k] === h) {
            flags |= NEEDS_EXACT;
            break;
          }
        }
        if (top - base >= LINEAR_KEYS) {
          set = new Set(hashes.subarray(base, top));
          set.add(h);
          sets[depth] = set;
        }
      }
      if (top === hashes.length) {
        const grown = new Int32Array(hashes.length * 2);
        grown.set(hashes);
        hashes = grown;
      }
      hashes[top++] = h;
      expectKey = false;
      i = j;
    } else if (c === 123 || c === 91) {
      if (++depth > MAX_DEPTH) return flags | TOO_DEEP;
      kinds[depth] = c === 123 ? 1 : 2;
      bases[depth] = top;
      sets[depth] = undefined;
      expectKey = c === 123;
    } else if (c === 125 || c === 93) {
      if (depth === 0) return flags | NEEDS_EXACT; // unbalanced: invalid, let the exact check report it
      top = bases[depth]!;
      sets[depth] = undefined;
      depth--;
    } else if (c === 44) {
      expectKey = kinds[depth] === 1;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      let digits = c === 45 ? 0 : 1;
      for (; j < n; j++) {
        const d = s.charCodeAt(j);
        if (d >= 48 && d <= 57) digits++;
        else if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) flags |= NEEDS_EXACT;
        else break;
      }
      // Beyond 15 digits a double may not hold the integer exactly, so range checks need the literal.
      if (digits > 15) flags |= NEEDS_EXACT;
      i = j - 1;
    }
  }
  return flags;
}

/** Side tables of an exact parse; null on the fast path. */
export interface ExactSides {
  /** Document-order keys (repeats included) of objects that repeat a key. */
  order: WeakMap<object, string[]>;
  /** Literal text of non-plain number members, by object and key. */
  numText: WeakMap<object, Map<string, string>>;
}

interface Frame {
  c: Record<string, unknown> | unknown[];
  key: string;
  keys: string[] | null; // object keys in document order
  seen: Set<string> | null;
  dup: boolean;
}

/** Sets an own data property; `__proto__` must become an own property, as JSON.parse makes it, not the prototype. */
export function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** Parses syntactically valid JSON text (checked beforehand), iteratively, recording the side tables. */
export function parseExact(s: string): { value: unknown; sides: ExactSides } {
  const sides: ExactSides = { order: new WeakMap(), numText: new WeakMap() };
  const stack: Frame[] = [];
  let i = 0;
  const ws = (): void => {
    for (let c = s.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = s.charCodeAt(++i));
  };
  const str = (): string => {
    const start = ++i;
    let esc = false;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 34) break;
      if (c === 92) {
        esc = true;
        i++;
      }
      i++;
    }
    i++;
    return esc ? (JSON.parse(s.slice(start - 1, i)) as string) : s.slice(start, i - 1);
  };
  const key = (f: Frame): void => {
    ws();
    const k = str();
    ws();
    i++; // ':'
    f.key = k;
    f.keys!.push(k);
    if (f.seen!.has(k)) f.dup = true;
    else f.seen!.add(k);
  };
  for (;;) {
    ws();
    let value: unknown;
    let numLit: string | null = null;
    const c = s.charCodeAt(i);
    if (c === 123 || c === 91) {
      i++;
      const isObj = c === 123;
      const f: Frame = { c: isObj ? {} : [], key: '', keys: isObj ? [] : null, seen: isObj ? new Set() : null, dup: false };
      ws();
      if (s.charCodeAt(i) === (isObj ? 125 : 93)) {
        i++;
        value = f.c;
      } else {
        stack.push(f);
        if (isObj) key(f);
        continue;
      }
    } else if (c === 34) {
      value = str();
    } else if (c === 116) {
      i += 4;
      value = true;
    } else if (c === 102) {
      i += 5;
      value = false;
    } else if (c === 110) {
      i += 4;
      value = null;
    } else {
      const start = i;
      let plain = true;
      for (i++; i < s.length; i++) {
        const d = s.charCodeAt(i);
        if (d >= 48 && d <= 57) continue;
        if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) plain = false;
        else break;
      }
      const text = s.slice(start, i);
      value = Number(text);
      if (!plain || i - start > 15) numLit = text;
    }
    // Close every container this value completes, then stop at the next sibling.
    for (;;) {
      const f = stack[stack.length - 1];
      if (f === undefined) return { value, sides };
      if (f.keys !== null) {
        const o = f.c as Record<string, unknown>;
        setOwn(o, f.key, value);
        if (numLit !== null) {
          let m = sides.numText.get(o);
          if (!m) sides.numText.set(o, (m = new Map()));
          m.set(f.key, numLit);
        }
      } else {
        (f.c as unknown[]).push(value);
      }
      numLit = null;
      ws();
      const d = s.charCodeAt(i++);
      if (d === 44) {
        if (f.keys !== null) key(f);
        break;
      }
      // '}' or ']'
      stack.pop();
      if (f.dup) sides.order.set(f.c, f.keys!);
      value = f.c;
    }
  }
}
