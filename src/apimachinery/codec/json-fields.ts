/**
 * Reading fields out of compact JSON text without parsing it into objects (for Table rows cut from stored bytes).
 * The text is a latin1 string of the UTF-8 bytes, so offsets are byte offsets; strings are skipped with the
 * indexOf builtin. A scan records the [start, end) offsets of chosen fields' values in `starts`/`ends` by slot
 * number (one scan at a time: the arrays are shared). Hand-written because a JSON parser builds the objects whose
 * cost is being avoided.
 */

/** Value slots filled by a scan: [starts[i], ends[i]) of slot i's JSON value; -1 = absent. */
export const starts = new Int32Array(32);
export const ends = new Int32Array(32);

/** A field to record: its key, its slot (-1: none), and the fields to record inside it when it is an object. */
export interface Field {
  key: string;
  slot: number;
  nested?: Field[];
}

export const QUOTE = 34;
export const BACKSLASH = 92;

/** Index after the string starting at `i` (an opening quote), or -1 when it does not end. */
export function skipString(s: string, i: number): number {
  let j = s.indexOf('"', i + 1);
  for (;;) {
    if (j < 0) return -1;
    let b = j - 1;
    while (s.charCodeAt(b) === BACKSLASH) b--;
    if ((j - 1 - b) % 2 === 0) return j + 1;
    j = s.indexOf('"', j + 1);
  }
}

/** Index after the JSON value starting at `i`, or -1 when the text is not as expected. */
export function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c === 123 || c === 91) {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const d = s.charCodeAt(j);
      if (d === QUOTE) {
        j = skipString(s, j) - 1;
        if (j < 0) return -1;
      } else if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  let j = i;
  for (; j < s.length; j++) {
    const d = s.charCodeAt(j);
    if (d === 44 || d === 125 || d === 93) break;
  }
  return j > i ? j : -1;
}

// Each field list indexed by key length: most keys are then told apart by length, with one compare to confirm. The
// index rides on the list itself (a WeakMap lookup per object scanned cost a tenth of a row).
const BY_LENGTH = Symbol('byLength');
type Indexed = Field[] & { [BY_LENGTH]?: (Field[] | undefined)[] };

function lengthIndex(fields: Indexed): (Field[] | undefined)[] {
  let idx = fields[BY_LENGTH];
  if (!idx) {
    idx = [];
    for (const f of fields) (idx[f.key.length] ??= []).push(f);
    fields[BY_LENGTH] = idx;
  }
  return idx;
}

/** Matches a key [a, b) of `s` against `fields`. */
function fieldAt(s: string, a: number, b: number, idx: (Field[] | undefined)[]): Field | undefined {
  const candidates = idx[b - a];
  if (candidates) for (const f of candidates) if (s.startsWith(f.key, a)) return f;
  return undefined;
}

/** Records the slots of `fields` in the object at `i`; returns the index after it, or -1 when not as expected. */
export function scanObject(s: string, i: number, fields: Field[]): number {
  if (s.charCodeAt(i) !== 123) return -1;
  return s.charCodeAt(i + 1) === 125 ? i + 2 : scanMembers(s, i + 1, fields);
}

/** Records the slots of `fields` in the members from `i` (a key) to the object's end; returns the index after it. */
export function scanMembers(s: string, i: number, fields: Field[]): number {
  const idx = lengthIndex(fields);
  for (;;) {
    if (s.charCodeAt(i) !== QUOTE) return -1;
    const keyEnd = s.indexOf('"', i + 1);
    // Struct keys never need escapes; an escaped key means a shape this scanner does not read.
    if (keyEnd < 0 || s.charCodeAt(keyEnd - 1) === BACKSLASH || s.charCodeAt(keyEnd + 1) !== 58) return -1;
    const field = fieldAt(s, i + 1, keyEnd, idx);
    const v = keyEnd + 2;
    const end = field?.nested && s.charCodeAt(v) === 123 ? scanObject(s, v, field.nested) : skipValue(s, v);
    if (end < 0) return -1;
    if (field && field.slot >= 0) {
      starts[field.slot] = v;
      ends[field.slot] = end;
    }
    const d = s.charCodeAt(end);
    if (d === 125) return end + 1;
    if (d !== 44) return -1;
    i = end + 1;
  }
}

/** Two decimal digits at `i`, or NaN. */
function d2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : NaN;
}

/** Date.UTC of the parts when they form a date the digit-by-digit reading may judge (else NaN: Date.parse decides). */
function utc(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
  if (year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= 28 && hour <= 23 && minute <= 59 && second <= 59) {
    return Date.UTC(year, month - 1, day, hour, minute, second, ms);
  }
  return NaN;
}

/**
 * Date.parse of the time text in [a, e). Stored times are Go's RFC 3339 forms `2006-01-02T15:04:05Z` and
 * `2006-01-02T15:04:05.000000Z`, read here digit by digit (Date.parse is the larger part of a row's cost); any
 * other text, or a date this shortcut might judge differently (day > 28, year < 100), goes to Date.parse.
 */
export function timeMs(s: string, a: number, e: number): number {
  const len = e - a;
  if ((len === 20 || len === 27) && s.charCodeAt(e - 1) === 90 && s.charCodeAt(a + 4) === 45 && s.charCodeAt(a + 7) === 45 && s.charCodeAt(a + 10) === 84 && s.charCodeAt(a + 13) === 58 && s.charCodeAt(a + 16) === 58) {
    let ms = 0;
    let ok = len === 20 || s.charCodeAt(a + 19) === 46;
    if (len === 27) {
      const h = s.charCodeAt(a + 20) - 48;
      const t = d2(s, a + 21);
      ok = ok && h >= 0 && h <= 9 && t >= 0 && d2(s, a + 23) >= 0 && d2(s, a + 24) >= 0;
      ms = h * 100 + t;
    }
    const t = ok ? utc(d2(s, a) * 100 + d2(s, a + 2), d2(s, a + 5), d2(s, a + 8), d2(s, a + 11), d2(s, a + 14), d2(s, a + 17), ms) : NaN;
    if (!Number.isNaN(t)) return t;
  }
  return Date.parse(s.slice(a, e));
}

/** Two decimal digits at `i` of `b`, or NaN. */
function d2b(b: Uint8Array, i: number): number {
  const x = b[i]! - 48;
  const y = b[i + 1]! - 48;
  return x >= 0 && x <= 9 && y >= 0 && y <= 9 ? x * 10 + y : NaN;
}

/** timeMs of the time text in bytes [a, e) of `b` (for rows written from cached offsets, with no string made). */
export function timeMsBytes(b: Uint8Array, a: number, e: number): number {
  const len = e - a;
  if ((len === 20 || len === 27) && b[e - 1] === 90 && b[a + 4] === 45 && b[a + 7] === 45 && b[a + 10] === 84 && b[a + 13] === 58 && b[a + 16] === 58) {
    let ms = 0;
    let ok = len === 20 || b[a + 19] === 46;
    if (len === 27) {
      const h = b[a + 20]! - 48;
      const t = d2b(b, a + 21);
      ok = ok && h >= 0 && h <= 9 && t >= 0 && d2b(b, a + 23) >= 0 && d2b(b, a + 24) >= 0;
      ms = h * 100 + t;
    }
    const t = ok ? utc(d2b(b, a) * 100 + d2b(b, a + 2), d2b(b, a + 5), d2b(b, a + 8), d2b(b, a + 11), d2b(b, a + 14), d2b(b, a + 17), ms) : NaN;
    if (!Number.isNaN(t)) return t;
  }
  return Date.parse(Buffer.from(b.buffer, b.byteOffset + a, len).toString('latin1'));
}
