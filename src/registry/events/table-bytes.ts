/**
 * Event Table rows written straight from the stored bytes, for large Table lists (what `kubectl get events` asks
 * for): no JSON.parse of the object and no re-serialization of its metadata. The output is byte for byte what
 * goJSON of the row built by eventTableCells/toTable gives, because stored values are canonical JSON written by the
 * same JSON.stringify + Go escaping: a stored string or number literal is exactly how goJSON writes its value.
 *
 * Cached events whose entry recorded the cells' offsets are written from those (row-offsets.ts); others are scanned.
 * The value is read as a latin1 string (event-scan.ts) and the metadata, the bulk of a stored Event (managedFields),
 * is never walked: its bounds come from the canonical order (see scanEvent). Cells are cut from the latin1 text
 * (UTF-8 bytes pass through unchanged); strings are decoded only when they hold escapes or need lower-casing of
 * non-ASCII text.
 */
import { goJSON } from '../../apimachinery/codec/encode.ts';
import { humanDuration } from '../../apimachinery/duration-human.ts';
import type { Served } from '../rest/served.ts';
import { EventEntry } from './attrs.ts';
import { writeCachedRow } from './row-offsets.ts';
import type { ByteSink, IncludeObject } from '../rest/table.ts';
import { QUOTE, ends, starts, timeMs } from '../../apimachinery/codec/json-fields.ts';
import { CONTROLLER, COUNT, EVENT_TIME, FIELD_PATH, FIRST_TS, INSTANCE, KIND, LAST_TS, META, META_NAME, NAME, NOTE, REASON, SERIES, SERIES_COUNT, SERIES_LAST, SRC_COMPONENT, SRC_HOST, TYPE, hasEscape, num, plain, present, scanEvent, trimmable } from './event-scan.ts';

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
export function writeEventRow(item: Served, nowMs: number, include: IncludeObject, object: Buffer | undefined, out: ByteSink): boolean {
  if (item instanceof EventEntry && item.hasRowOffsets()) {
    writeCachedRow(item, nowMs, include, object, out);
    return true;
  }
  const value = item.value;
  const s = value.toString('latin1');
  if (!scanEvent(s)) return false;

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
