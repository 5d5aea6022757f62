/**
 * Event Table rows from offsets the watch cache keeps per event: when a version is cached, where the row's cells sit
 * in its bytes is recorded as six small integers, and the cells a shared EventProfile decides (type, reason, kind,
 * field path, component) are rendered once per profile. A row is then a few byte copies plus the two ages, with no
 * scan of the event. Events these offsets cannot describe (escapes, notes to trim, values of 32 KB or more) keep
 * zeros and are written by the scanning writer (table-bytes.ts). Output is byte for byte that writer's.
 */
import { goJSON } from '../../apimachinery/codec/encode.ts';
import { QUOTE, ends, starts, timeMsBytes } from '../../apimachinery/codec/json-fields.ts';
import { humanDuration } from '../../apimachinery/duration-human.ts';
import type { ByteSink, IncludeObject } from '../rest/table.ts';
import { COUNT, EVENT_TIME, FIRST_TS, INSTANCE, LAST_TS, META, META_NAME, NOTE, SERIES, SERIES_COUNT, SERIES_LAST, SRC_HOST, hasEscape, num, plain, present, scanEvent, trimmable } from './event-scan.ts';

/** Row text a profile decides, as latin1 strings of the UTF-8 bytes (shared by every event of the profile). */
export interface ProfileCells {
  /** `,<type>,<reason>,"<kind, lower-cased>`: what follows LAST SEEN up to the regarding name. */
  readonly head: string;
  /** `",<field path>,"<component>`: from the end of OBJECT up to SOURCE's instance. */
  readonly mid: string;
}

/** The profile fields the cells come from (EventProfile's). */
interface ProfileValues {
  readonly type: string;
  readonly reason: string;
  readonly regardingKind: string;
  readonly regardingFieldPath: string;
  readonly source: string;
}

const latin1 = (s: string): string => Buffer.from(s).toString('latin1');

/** The row text of a profile, exactly as goJSON writes those cells (escaping a joined string = joining escapes). */
export function profileCells(p: ProfileValues): ProfileCells {
  const kind = goJSON(p.regardingKind.toLowerCase());
  const component = goJSON(p.source);
  return {
    head: latin1(`,${goJSON(p.type)},${goJSON(p.reason)},${kind.slice(0, -1)}`),
    mid: latin1(`",${goJSON(p.regardingFieldPath)},${component.slice(0, -1)}`),
  };
}

/**
 * A cached event's row offsets, each [start, end) packed as start + end × 2^15 (both < 2^15, so every field is a
 * small integer even with pointer compression); 0 = absent. rowMeta 0 means "no offsets: scan the bytes".
 */
export interface RowOffsets {
  /** The metadata object. The name's literal starts 8 bytes in (`{"name":`). */
  readonly rowMeta: number;
  /** The note's literal, quotes included (0: no note, the cell is ""). */
  readonly rowNote: number;
  /** The SOURCE instance's text, inside the quotes (0: none). */
  readonly rowInst: number;
  /** FIRST SEEN's and LAST SEEN's time text, inside the quotes (0: no time, the age is <unknown>). */
  readonly rowFirst: number;
  readonly rowLast: number;
  /** COUNT × 256 + the length of the name's literal. */
  readonly rowCount: number;
}

/** What eventRowOffsets found, in RowOffsets order (read by the entry's constructor call; all 0 when not found). */
export const ROW = new Int32Array(6);

const LIMIT = 1 << 15;
// Text goJSON writes as itself, one byte a character (printable ASCII except " \ < > &).
const PLAIN_ASCII = /^[\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7e]*$/;

const pack = (a: number, e: number): number => a + e * LIMIT;

/** The bounds of a time slot's text, packed (0 when the slot holds no string: the age is <unknown>). */
function timeBounds(s: string, slot: number): number {
  return present(s, slot) && s.charCodeAt(starts[slot]!) === QUOTE ? pack(starts[slot]! + 1, ends[slot]! - 1) : 0;
}

/**
 * Fills ROW with the row offsets of a stored Event whose regarding name is `regardingName`; false (ROW all 0) when
 * the row must be written by scanning instead.
 */
export function eventRowOffsets(value: Buffer, regardingName: string): boolean {
  ROW.fill(0);
  if (value.length >= LIMIT || !PLAIN_ASCII.test(regardingName)) return false;
  const s = value.toString('latin1');
  if (!scanEvent(s)) return false;
  const meta = starts[META]!;
  const nameA = starts[META_NAME]!;
  const nameE = ends[META_NAME]!;
  if (nameA !== meta + 8 || nameE - nameA > 255 || hasEscape(s, nameA, nameE)) return false;

  let note = 0;
  if (present(s, NOTE)) {
    const a = starts[NOTE]!;
    const e = ends[NOTE]!;
    if (s.charCodeAt(a) !== QUOTE || hasEscape(s, a, e) || trimmable(s, a + 1, e - 2)) return false;
    note = pack(a, e);
  }
  // The instance: the deprecated source's host first, then reportingInstance (as the SOURCE cell takes them).
  const instSlot = plain(s, SRC_HOST) === '' ? INSTANCE : SRC_HOST;
  const inst = plain(s, instSlot);
  if (inst === undefined) return false;

  const first = present(s, FIRST_TS) ? FIRST_TS : EVENT_TIME;
  const series = present(s, SERIES);
  const last = series ? SERIES_LAST : present(s, LAST_TS) ? LAST_TS : first;
  let count = num(s, COUNT);
  if (series) count = num(s, SERIES_COUNT);
  else if (count === 0) count = 1; // singleton events of the new API carry no count
  if (!Number.isInteger(count) || count < 0 || count >= 1 << 22) return false;

  ROW[0] = pack(meta, ends[META]!);
  ROW[1] = note;
  ROW[2] = inst === '' ? 0 : pack(starts[instSlot]! + 1, ends[instSlot]! - 1);
  ROW[3] = timeBounds(s, first);
  ROW[4] = timeBounds(s, last);
  ROW[5] = count * 256 + (nameE - nameA);
  return true;
}

const UNKNOWN = goJSON('<unknown>');

// The last age computed: a list is written at one `now`, and its events' times often repeat.
let memoNow = NaN;
let memoT = NaN;
let memoCell = '';

/** The quoted age cell of the packed time bounds `r` in `v` at `nowMs`. */
function age(v: Buffer, r: number, nowMs: number): string {
  if (r === 0) return UNKNOWN;
  const t = timeMsBytes(v, r % LIMIT, Math.trunc(r / LIMIT));
  if (Number.isNaN(t)) return UNKNOWN;
  if (t === memoT && nowMs === memoNow) return memoCell;
  const h = humanDuration(nowMs - t);
  // Ages are digits and unit letters, except `<invalid>`, which Go's escaping turns into \u003c…\u003e.
  memoCell = h.charCodeAt(0) === 60 ? goJSON(h) : `"${h}"`;
  memoT = t;
  memoNow = nowMs;
  return memoCell;
}

const PARTIAL_HEAD = ',"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":';

/** A cached event as the row writer reads it. */
export interface CachedRow extends RowOffsets {
  readonly value: Buffer;
  readonly regardingName: string;
  readonly profile: { readonly cells: ProfileCells };
}

/** Writes the Table row of a cached event with offsets (rowMeta ≠ 0), as writeEventRow does by scanning. */
export function writeCachedRow(e: CachedRow, nowMs: number, include: IncludeObject, object: Buffer | undefined, out: ByteSink): void {
  const v = e.value;
  const cells = e.profile.cells;
  out.bytes('{"cells":[');
  out.bytes(age(v, e.rowLast, nowMs));
  out.bytes(cells.head);
  if (e.regardingName !== '') {
    out.byte(47); // '/'
    out.bytes(e.regardingName);
  }
  out.bytes(cells.mid);
  const inst = e.rowInst;
  if (inst !== 0) {
    out.bytes(', ');
    out.raw(v, inst % LIMIT, Math.trunc(inst / LIMIT));
  }
  out.bytes('",');
  const note = e.rowNote;
  if (note === 0) out.bytes('""');
  else out.raw(v, note % LIMIT, Math.trunc(note / LIMIT));
  out.byte(44);
  out.bytes(age(v, e.rowFirst, nowMs));
  out.byte(44);
  const count = e.rowCount;
  out.bytes(String(count >>> 8));
  out.byte(44);
  const meta = e.rowMeta;
  const metaA = meta % LIMIT;
  out.raw(v, metaA + 8, metaA + 8 + (count & 255));
  out.byte(93); // ']'
  if (include === 'Metadata') {
    out.bytes(PARTIAL_HEAD);
    out.raw(v, metaA, Math.trunc(meta / LIMIT));
    out.bytes('}}');
  } else if (include === 'Object') {
    const o = object ?? v;
    out.bytes(',"object":');
    out.raw(o, 0, o.length);
    out.byte(125);
  } else {
    out.byte(125);
  }
}
