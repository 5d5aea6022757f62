/**
 * Setting and removing `metadata.resourceVersion` in encoded JSON without decoding it. Storage keeps values without
 * their resourceVersion (a backend that assigns the revision at commit, as etcd does, cannot write it into the
 * bytes), and hands out values with it, in the bytes clients receive unchanged. So a value is spliced once per read
 * from storage and once per write, and both must cost next to nothing beside the decode/encode they replace.
 *
 * The place is found by a short scan: to the top-level `metadata` member (after `kind` and `apiVersion` in the
 * encoder's order), then over the ObjectMeta fields that come before resourceVersion in Go's field order (name,
 * generateName, namespace, selfLink, uid), stopping at the first other member. Inserting there keeps the encoder's
 * order, so `spliceResourceVersion(stripResourceVersion(x), rv)` is `x` for every value the encoder writes.
 * Works on the UTF-8 bytes of compact JSON (no whitespace between tokens, as every encoder here writes).
 */

/** Where a value's resourceVersion goes (or is). */
interface Slot {
  /** Offset of the opening brace of the metadata object. */
  readonly meta: number;
  /** Present: [key, valueStart, valueEnd) of the resourceVersion member. Absent: -1, and `at` is where it goes. */
  readonly key: number;
  readonly valueStart: number;
  readonly valueEnd: number;
  /** Where an absent member is inserted: at a member's opening quote, or at the metadata's closing brace. */
  readonly at: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN = 0x7b;
const CLOSE = 0x7d;

const bytesOf = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
const METADATA = bytesOf('metadata');
const RESOURCE_VERSION = bytesOf('resourceVersion');
// ObjectMeta's fields before resourceVersion, in Go's order (k8s.io/apimachinery/pkg/apis/meta/v1 ObjectMeta).
const NAME = bytesOf('name');
const GENERATE_NAME = bytesOf('generateName');
const NAMESPACE = bytesOf('namespace');
const SELF_LINK = bytesOf('selfLink');
const UID = bytesOf('uid');

// What a member name is to the scan.
const OTHER = 0;
const IS_METADATA = 1;
const IS_RESOURCE_VERSION = 2;
/** One of the ObjectMeta fields that come before resourceVersion. */
const IS_BEFORE = 3;

/** A value that is not the JSON object this scan expects; callers treat it as corrupt. */
export class ResourceVersionSpliceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResourceVersionSpliceError';
  }
}

function fail(what: string, at: number): never {
  throw new ResourceVersionSpliceError(`cannot place metadata.resourceVersion: ${what} at byte ${at}`);
}

/**
 * Index after the string whose opening quote is at `i`. The closing quote is found with Buffer#indexOf (memchr:
 * several times faster than a byte loop over a name or a uid), then checked not to be escaped.
 */
function skipString(b: Buffer, i: number): number {
  let j = b.indexOf(QUOTE, i + 1);
  for (;;) {
    if (j < 0) return fail('unterminated string', i);
    let k = j - 1;
    while (b[k] === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j + 1;
    j = b.indexOf(QUOTE, j + 1);
  }
}

/** Index after the JSON value starting at `i`. Small, so that it inlines: nearly every value here is a string. */
function skipValue(b: Buffer, i: number): number {
  return b[i] === QUOTE ? skipString(b, i) : skipOther(b, i);
}

/** Index after the object, array, number or literal starting at `i`. */
function skipOther(b: Buffer, i: number): number {
  const c = b[i];
  const n = b.length;
  if (c === OPEN || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < n; j++) {
      const d = b[j]!;
      if (d === QUOTE) j = skipString(b, j) - 1;
      else if (d === OPEN || d === 0x5b) depth++;
      else if ((d === CLOSE || d === 0x5d) && --depth === 0) return j + 1;
    }
    return fail('unterminated value', i);
  }
  // A number, true, false or null: up to the next delimiter.
  let j = i;
  while (j < n && b[j] !== COMMA && b[j] !== CLOSE && b[j] !== 0x5d) j++;
  return j > i ? j : fail('missing value', i);
}

/** Whether the key string whose opening quote is at `i` and closing quote at `end - 1` is `key`. */
function keyIs(b: Uint8Array, i: number, end: number, key: Uint8Array): boolean {
  if (end - i - 2 !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (b[i + 1 + k] !== key[k]) return false;
  return true;
}

/** What the member name whose quotes are at `i` and `end - 1` is; by length first, as this runs per member. */
function memberKind(b: Uint8Array, i: number, end: number): number {
  switch (end - i - 2) {
    case 3:
      return keyIs(b, i, end, UID) ? IS_BEFORE : OTHER;
    case 4:
      return keyIs(b, i, end, NAME) ? IS_BEFORE : OTHER;
    case 8:
      if (keyIs(b, i, end, SELF_LINK)) return IS_BEFORE;
      return keyIs(b, i, end, METADATA) ? IS_METADATA : OTHER;
    case 9:
      return keyIs(b, i, end, NAMESPACE) ? IS_BEFORE : OTHER;
    case 12:
      return keyIs(b, i, end, GENERATE_NAME) ? IS_BEFORE : OTHER;
    case 15:
      return keyIs(b, i, end, RESOURCE_VERSION) ? IS_RESOURCE_VERSION : OTHER;
    default:
      return OTHER;
  }
}

/**
 * The end of the key at `i` (a member's opening quote), checked to be followed by a colon. Member names are short
 * and plain: a byte loop finds their end sooner than a call out to memchr; one with a backslash takes skipString.
 */
function keyEnd(b: Buffer, i: number): number {
  if (b[i] !== QUOTE) fail('expected a member name', i);
  let end = i + 1;
  for (let c = b[end]; c !== QUOTE; c = b[++end]) {
    if (c === BACKSLASH || c === undefined) {
      end = skipString(b, i) - 1;
      break;
    }
  }
  end++;
  if (b[end] !== COLON) fail('expected a colon', end);
  return end;
}

/** Offset of the opening brace of the top-level metadata object. */
function walkToMetadata(b: Buffer): number {
  if (b[0] !== OPEN) fail('not an object', 0);
  let i = 1;
  if (b[i] === CLOSE) fail('no metadata', i);
  // The top-level members up to metadata (kind and apiVersion, in the encoder's order).
  for (;;) {
    const end = keyEnd(b, i);
    if (memberKind(b, i, end) === IS_METADATA) {
      i = end + 1;
      break;
    }
    i = skipValue(b, end + 1);
    if (b[i] !== COMMA) fail('no metadata', i);
    i++;
  }
  if (b[i] !== OPEN) fail('metadata is not an object', i);
  return i;
}

function findSlot(b: Buffer): Slot {
  const meta = walkToMetadata(b);
  let i = meta + 1;
  if (b[i] === CLOSE) return { meta, key: -1, valueStart: -1, valueEnd: -1, at: i };
  for (;;) {
    const end = keyEnd(b, i);
    const kind = memberKind(b, i, end);
    if (kind === IS_RESOURCE_VERSION) return { meta, key: i, valueStart: end + 1, valueEnd: skipValue(b, end + 1), at: i };
    if (kind !== IS_BEFORE) return { meta, key: -1, valueStart: -1, valueEnd: -1, at: i };
    const next = skipValue(b, end + 1);
    if (b[next] === CLOSE) return { meta, key: -1, valueStart: -1, valueEnd: -1, at: next };
    if (b[next] !== COMMA) fail('expected a comma', next);
    i = next + 1;
  }
}

// `"resourceVersion":"` — the member up to its value's digits.
const MEMBER_HEAD = bytesOf('"resourceVersion":"');

/** Decimal digits of a revision (a non-negative safe integer, as every revision is). */
function digitsOf(rv: number): number {
  let n = 1;
  for (let v = rv; v >= 10; v = Math.floor(v / 10)) n++;
  return n;
}

/** Writes `"<rv>"` (or, with `member`, `"resourceVersion":"<rv>"`) into `out` at `at`; returns the index after it. */
function writeMember(out: Buffer, at: number, rv: number, member: boolean): number {
  let p = at;
  if (member) {
    out.set(MEMBER_HEAD, p);
    p += MEMBER_HEAD.length;
  } else out[p++] = QUOTE;
  const end = p + digitsOf(rv);
  for (let v = rv, q = end; q > p; v = Math.floor(v / 10)) out[--q] = 48 + (v % 10);
  out[end] = QUOTE;
  return end + 1;
}

/**
 * A copy of `b` in which [from, to) is replaced by `"<rv>"` (or the whole member with `member`), with a comma before
 * (`comma` < 0) or after (`comma` > 0) it. Built by hand: this runs once per value read from or written to storage,
 * and string formatting plus Buffer#write cost more than the copy itself. The value is copied whole and its tail
 * moved within the copy, which needs no view objects (Buffer#copy of a range makes one per call).
 */
function withMember(b: Buffer, from: number, to: number, rv: number, member: boolean, comma: number): Buffer {
  const size = (member ? MEMBER_HEAD.length : 1) + digitsOf(rv) + 1 + (comma === 0 ? 0 : 1);
  const out = Buffer.allocUnsafe(b.length - (to - from) + size);
  if (to - from > size) {
    // Shrinking (a longer resourceVersion replaced): the tail moves left, so copy it after the head is written.
    out.set(b.subarray(0, from), 0);
    out.set(b.subarray(to), from + size);
  } else {
    out.set(b, 0);
    out.copyWithin(from + size, to, b.length);
  }
  let p = from;
  if (comma < 0) out[p++] = COMMA;
  p = writeMember(out, p, rv, member);
  if (comma > 0) out[p++] = COMMA;
  return out;
}

function checkRevision(rv: number): void {
  if (!Number.isSafeInteger(rv) || rv < 0) throw new RangeError(`not a revision: ${rv}`);
}

/**
 * `value` (the JSON of an object with a top-level `metadata` object) with `metadata.resourceVersion` set to `rv`:
 * inserted at its place in ObjectMeta's field order, or replacing the one at that place (values stored before
 * resourceVersions were kept out of storage still carry theirs). Throws ResourceVersionSpliceError when `value`
 * is not such an object.
 */
export function spliceResourceVersion(value: Buffer, rv: number): Buffer {
  checkRevision(rv);
  const s = findSlot(value);
  if (s.key >= 0) return withMember(value, s.valueStart, s.valueEnd, rv, false, 0);
  const at = s.at;
  if (value[at] !== CLOSE) return withMember(value, at, at, rv, true, 1);
  return withMember(value, at, at, rv, true, at === s.meta + 1 ? 0 : -1);
}

/**
 * `value` without `metadata.resourceVersion` (the form storage keeps). A value without one at its place is
 * returned as it is. Throws ResourceVersionSpliceError when `value` is not a JSON object with a metadata object.
 */
export function stripResourceVersion(value: Buffer): Buffer {
  const s = findSlot(value);
  if (s.key < 0) return value;
  // With the comma after it, or (the last member) the one before it, if any.
  const from = value[s.valueEnd] === COMMA || value[s.key - 1] !== COMMA ? s.key : s.key - 1;
  const to = value[s.valueEnd] === COMMA ? s.valueEnd + 1 : s.valueEnd;
  return Buffer.concat([value.subarray(0, from), value.subarray(to)], value.length - (to - from));
}
