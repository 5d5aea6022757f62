/**
 * Event Table rows written straight from the stored bytes, for large Table lists (what `kubectl get events` asks
 * for): no JSON.parse of the object and no re-serialization of its metadata. The output is byte for byte what
 * goJSON of the row built by eventTableCells/toTable gives, because stored values are canonical JSON written by the
 * same JSON.stringify + Go escaping: a stored string or number literal is exactly how goJSON writes its value.
 *
 * The value is read as a latin1 string (json-scan.ts) and the metadata, the bulk of a stored Event (managedFields),
 * is never walked: its bounds come from the canonical order (see scanEvent). Cells are cut from the latin1 text
 * (UTF-8 bytes pass through unchanged); strings are decoded only when they hold escapes or need lower-casing of
 * non-ASCII text.
 */
import { goJSON } from '../../apimachinery/codec/encode.ts';
import { humanDuration } from '../../apimachinery/duration-human.ts';
import type { ByteSink } from '../../server/handlers/chunks.ts';
import type { IncludeObject } from '../../server/handlers/table.ts';
import { BACKSLASH, type Field, QUOTE, ends, scanMembers, scanObject, skipString, skipValue, starts, timeMs } from '../../apimachinery/codec/json-fields.ts';

// Slots (json-scan.ts starts/ends) of the values a row needs.
const META = 0;
const META_NAME = 1;
const EVENT_TIME = 2;
const SERIES = 3;
const SERIES_COUNT = 4;
const SERIES_LAST = 5;
const CONTROLLER = 6;
const INSTANCE = 7;
const REASON = 8;
const KIND = 9;
const NAME = 10;
const FIELD_PATH = 11;
const NOTE = 12;
const TYPE = 13;
const SRC_COMPONENT = 14;
const SRC_HOST = 15;
const FIRST_TS = 16;
const LAST_TS = 17;
const COUNT = 18;

const META_FIELDS: Field[] = [{ key: 'name', slot: META_NAME }];

/** The Event's own fields (after metadata). */
const EVENT_FIELDS: Field[] = [
  { key: 'eventTime', slot: EVENT_TIME },
  { key: 'series', slot: SERIES, nested: [{ key: 'count', slot: SERIES_COUNT }, { key: 'lastObservedTime', slot: SERIES_LAST }] },
  { key: 'reportingController', slot: CONTROLLER },
  { key: 'reportingInstance', slot: INSTANCE },
  { key: 'reason', slot: REASON },
  { key: 'regarding', slot: -1, nested: [{ key: 'kind', slot: KIND }, { key: 'name', slot: NAME }, { key: 'fieldPath', slot: FIELD_PATH }] },
  { key: 'note', slot: NOTE },
  { key: 'type', slot: TYPE },
  { key: 'deprecatedSource', slot: -1, nested: [{ key: 'component', slot: SRC_COMPONENT }, { key: 'host', slot: SRC_HOST }] },
  { key: 'deprecatedFirstTimestamp', slot: FIRST_TS },
  { key: 'deprecatedLastTimestamp', slot: LAST_TS },
  { key: 'deprecatedCount', slot: COUNT },
];

/** Every field, metadata included, for the general scan. */
const EVENT_FIELDS_FULL: Field[] = [{ key: 'metadata', slot: META, nested: META_FIELDS }, ...EVENT_FIELDS];


const AFTER_META = '},"eventTime":';

/**
 * Fills the slots of a stored Event in `s`; false when `s` is not an object this scanner can read.
 *
 * The metadata is not walked: in the canonical order eventTime (always written) directly follows it, so the first
 * `},"eventTime":` after the metadata key is taken as the metadata's end, and the members from there are parsed to
 * the end of the value. That parse only ends exactly at the last byte when the guess was right — a match inside
 * the metadata would leave at least one enclosing object open — so a wrong guess falls back to the full scan.
 */
function scanEvent(s: string): boolean {
  starts.fill(-1);
  const n = s.length;
  if (s.charCodeAt(0) !== 123) return false;
  let i = 1;
  let metaStart = -1;
  for (;;) {
    if (s.charCodeAt(i) !== QUOTE) return false;
    const keyEnd = s.indexOf('"', i + 1);
    if (keyEnd < 0 || s.charCodeAt(keyEnd - 1) === BACKSLASH || s.charCodeAt(keyEnd + 1) !== 58) return false;
    if (keyEnd - i - 1 === 8 && s.startsWith('metadata', i + 1)) {
      metaStart = keyEnd + 2;
      break;
    }
    const end = skipValue(s, keyEnd + 2);
    if (end < 0 || s.charCodeAt(end) !== 44) return false;
    i = end + 1;
  }
  const q = s.indexOf(AFTER_META, metaStart);
  if (s.charCodeAt(metaStart) !== 123 || q < 0 || scanMembers(s, q + 2, EVENT_FIELDS) !== n) {
    starts.fill(-1);
    return scanObject(s, 0, EVENT_FIELDS_FULL) === n && s.charCodeAt(starts[META]!) === 123;
  }
  starts[META] = metaStart;
  ends[META] = q + 1;
  // The name is ObjectMeta's first field in the canonical order; anything else gets the general scan.
  if (s.startsWith('{"name":"', metaStart)) {
    const end = skipString(s, metaStart + 8);
    if (end < 0) return false;
    starts[META_NAME] = metaStart + 8;
    ends[META_NAME] = end;
  } else if (scanObject(s, metaStart, META_FIELDS) !== q + 1) return false;
  return true;
}

/** True when the slot holds a value other than null (and, for strings, other than ""). */
function present(s: string, slot: number): boolean {
  const a = starts[slot]!;
  if (a < 0) return false;
  const len = ends[slot]! - a;
  if (len === 4 && s.startsWith('null', a)) return false;
  return !(len === 2 && s.charCodeAt(a) === QUOTE);
}

// Where the row's first backslash is (-1: none): most values have none, so escape checks are then free.
let firstEscape = -1;

function hasEscape(s: string, a: number, e: number): boolean {
  if (firstEscape < 0 || firstEscape >= e) return false;
  const k = s.indexOf('\\', a);
  return k >= 0 && k < e;
}

/** The latin1 text between a string slot's quotes when it holds no escapes ('' when absent); undefined otherwise. */
function plain(s: string, slot: number): string | undefined {
  if (!present(s, slot)) return '';
  const a = starts[slot]!;
  const e = ends[slot]!;
  if (s.charCodeAt(a) !== QUOTE) return '';
  return hasEscape(s, a, e) ? undefined : s.slice(a + 1, e - 1);
}

/** The decoded string in a slot ('' when absent, null or not a string). */
function str(b: Buffer, s: string, slot: number): string {
  if (!present(s, slot) || s.charCodeAt(starts[slot]!) !== QUOTE) return '';
  const a = starts[slot]!;
  const e = ends[slot]!;
  if (!hasEscape(s, a, e)) return b.toString('utf8', a + 1, e - 1);
  return JSON.parse(b.toString('utf8', a, e)) as string;
}

/** A string slot as goJSON writes it, in latin1 form: the stored literal itself, or `""`. */
function rawString(s: string, slot: number): string {
  const a = starts[slot]!;
  if (a < 0 || s.charCodeAt(a) !== QUOTE) return '""';
  return s.slice(a, ends[slot]!);
}

const NON_ASCII = /[^\x00-\x7f]/;

/** goJSON of a computed string, as latin1 bytes. */
function quoted(v: string): string {
  const j = goJSON(v);
  return NON_ASCII.test(j) ? Buffer.from(j).toString('latin1') : j;
}

/** The age cell of a time slot at `nowMs` (upstream translateTimestampSince; `<unknown>` for none), quoted. */
function age(s: string, slot: number, nowMs: number): string {
  if (!present(s, slot) || s.charCodeAt(starts[slot]!) !== QUOTE) return UNKNOWN;
  const t = timeMs(s, starts[slot]! + 1, ends[slot]! - 1);
  if (Number.isNaN(t)) return UNKNOWN;
  const h = humanDuration(nowMs - t);
  // Ages are digits and unit letters, except `<invalid>`, which Go's escaping turns into \u003c…\u003e.
  return h.charCodeAt(0) === 60 ? quoted(h) : `"${h}"`;
}

const UNKNOWN = goJSON('<unknown>');

/** A number slot's value (0 when absent or null). */
function num(s: string, slot: number): number {
  if (!present(s, slot)) return 0;
  const n = Number(s.slice(starts[slot]!, ends[slot]!));
  return Number.isNaN(n) ? 0 : n;
}

/** Whether text whose first and last bytes are at `a` and `z` could change under String#trim (not printable ASCII). */
function trimmable(s: string, a: number, z: number): boolean {
  const first = s.charCodeAt(a);
  const last = s.charCodeAt(z);
  return !(first > 32 && first < 127 && last > 32 && last < 127);
}

/** The OBJECT cell: `kind/name` with the kind lower-cased (just the kind when there is no name). */
function objectCell(b: Buffer, s: string): string {
  const kind = plain(s, KIND);
  const name = plain(s, NAME);
  if (kind !== undefined && name !== undefined && !NON_ASCII.test(kind)) {
    // Unescaped stored text needs no escaping when joined; ASCII lower-casing keeps it so.
    const k = kind.toLowerCase();
    return name ? `"${k}/${name}"` : `"${k}"`;
  }
  const k = str(b, s, KIND).toLowerCase();
  const nm = str(b, s, NAME);
  return quoted(nm ? `${k}/${nm}` : k);
}

/** The SOURCE cell: `component, instance`, each from the deprecated source first, then the reporting fields. */
function sourceCell(b: Buffer, s: string): string {
  const c1 = plain(s, SRC_COMPONENT);
  const c2 = c1 === '' ? plain(s, CONTROLLER) : c1;
  const i1 = plain(s, SRC_HOST);
  const i2 = i1 === '' ? plain(s, INSTANCE) : i1;
  if (c2 !== undefined && i2 !== undefined) return i2 ? `"${c2}, ${i2}"` : `"${c2}"`;
  const component = str(b, s, SRC_COMPONENT) || str(b, s, CONTROLLER);
  const instance = str(b, s, SRC_HOST) || str(b, s, INSTANCE);
  return quoted(instance ? `${component}, ${instance}` : component);
}

// messageCell's answer when the stored note literal is the cell as is.
const RAW_NOTE = '';

/** The MESSAGE cell (the note, trimmed), or RAW_NOTE when that is the stored literal unchanged. */
function messageCell(b: Buffer, s: string): string {
  if (!present(s, NOTE)) return '""';
  const a = starts[NOTE]!;
  const e = ends[NOTE]!;
  if (s.charCodeAt(a) === QUOTE && !hasEscape(s, a, e) && !trimmable(s, a + 1, e - 2)) return RAW_NOTE;
  return quoted(str(b, s, NOTE).trim());
}

const PARTIAL_HEAD = ',"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":';

/**
 * Writes the Table row of a stored Event (cells in EVENT_COLUMNS order, as eventTableCells computes them, then the
 * row object per `include`). Returns false without writing when the bytes are not a JSON object it can read.
 */
export function writeEventRow(value: Buffer, nowMs: number, include: IncludeObject, object: Buffer | undefined, out: ByteSink): boolean {
  const s = value.toString('latin1');
  if (!scanEvent(s)) return false;
  firstEscape = s.indexOf('\\');

  const firstSeen = present(s, FIRST_TS) ? age(s, FIRST_TS, nowMs) : age(s, EVENT_TIME, nowMs);
  let lastSeen = present(s, LAST_TS) ? age(s, LAST_TS, nowMs) : firstSeen;
  let count = num(s, COUNT);
  if (present(s, SERIES)) {
    lastSeen = age(s, SERIES_LAST, nowMs);
    count = num(s, SERIES_COUNT);
  } else if (count === 0) {
    count = 1; // singleton events of the new API carry no count
  }
  // One latin1 string per row: slices of the stored text (UTF-8 bytes as they are) joined with the computed cells.
  const message = messageCell(value, s);
  let row =
    `{"cells":[${lastSeen},${rawString(s, TYPE)},${rawString(s, REASON)},${objectCell(value, s)},${rawString(s, FIELD_PATH)},` +
    `${sourceCell(value, s)},${message === RAW_NOTE ? s.slice(starts[NOTE]!, ends[NOTE]!) : message},${firstSeen},` +
    `${JSON.stringify(count)},${rawString(s, META_NAME)}]`;
  if (include === 'Metadata') row += PARTIAL_HEAD + s.slice(starts[META]!, ends[META]!) + '}}';
  else if (include !== 'Object') row += '}';
  out.bytes(row);
  if (include === 'Object') {
    const o = object ?? value;
    out.bytes(',"object":');
    out.raw(o, 0, o.length);
    out.bytes('}');
  }
  return true;
}
