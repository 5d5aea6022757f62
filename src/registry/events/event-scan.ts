/**
 * Finding the values an Event's Table row needs in its stored JSON (a latin1 string of the UTF-8 bytes), without
 * parsing it: the slots of json-fields.ts filled by scanEvent, and small readers over them.
 */
import { BACKSLASH, type Field, QUOTE, ends, scanMembers, scanObject, skipString, skipValue, starts } from '../../apimachinery/codec/json-fields.ts';

// Slots (json-scan.ts starts/ends) of the values a row needs.
export const META = 0;
export const META_NAME = 1;
export const EVENT_TIME = 2;
export const SERIES = 3;
export const SERIES_COUNT = 4;
export const SERIES_LAST = 5;
export const CONTROLLER = 6;
export const INSTANCE = 7;
export const REASON = 8;
export const KIND = 9;
export const NAME = 10;
export const FIELD_PATH = 11;
export const NOTE = 12;
export const TYPE = 13;
export const SRC_COMPONENT = 14;
export const SRC_HOST = 15;
export const FIRST_TS = 16;
export const LAST_TS = 17;
export const COUNT = 18;

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
export function scanEvent(s: string): boolean {
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
    firstEscape = s.indexOf('\\');
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
  firstEscape = s.indexOf('\\');
  return true;
}

/** True when the slot holds a value other than null (and, for strings, other than ""). */
export function present(s: string, slot: number): boolean {
  const a = starts[slot]!;
  if (a < 0) return false;
  const len = ends[slot]! - a;
  if (len === 4 && s.startsWith('null', a)) return false;
  return !(len === 2 && s.charCodeAt(a) === QUOTE);
}

// Where the row's first backslash is (-1: none): most values have none, so escape checks are then free.
let firstEscape = -1;

export function hasEscape(s: string, a: number, e: number): boolean {
  if (firstEscape < 0 || firstEscape >= e) return false;
  const k = s.indexOf('\\', a);
  return k >= 0 && k < e;
}

/** The latin1 text between a string slot's quotes when it holds no escapes ('' when absent); undefined otherwise. */
export function plain(s: string, slot: number): string | undefined {
  if (!present(s, slot)) return '';
  const a = starts[slot]!;
  const e = ends[slot]!;
  if (s.charCodeAt(a) !== QUOTE) return '';
  return hasEscape(s, a, e) ? undefined : s.slice(a + 1, e - 1);
}

/** A number slot's value (0 when absent or null). */
export function num(s: string, slot: number): number {
  if (!present(s, slot)) return 0;
  const n = Number(s.slice(starts[slot]!, ends[slot]!));
  return Number.isNaN(n) ? 0 : n;
}

/** Whether text whose first and last bytes are at `a` and `z` could change under String#trim (not printable ASCII). */
export function trimmable(s: string, a: number, z: number): boolean {
  const first = s.charCodeAt(a);
  const last = s.charCodeAt(z);
  return !(first > 32 && first < 127 && last > 32 && last < 127);
}
