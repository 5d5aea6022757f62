/**
 * What the watch cache keeps per event besides its bytes: the selector attributes, in objects with fixed slots
 * (at a million cached events every slot, object header and duplicated string counts). Values follow
 * eventSelectableFields (fields.ts) exactly.
 */
import type { Event } from '../../apis/events/v1/types.ts';
import type { CacheEntry, ObjectAttrs } from '../../storage/cacher/types.ts';
import { ROW, eventRowOffsets, profileCells, type CachedRow, type ProfileCells } from './row-offsets.ts';

/**
 * The selectable values many events share (what reported them, why, about which kind of object): one object per
 * distinct combination instead of these eight strings per event.
 */
export interface EventProfile {
  readonly reason: string;
  readonly type: string;
  readonly regardingKind: string;
  readonly regardingNamespace: string;
  readonly regardingApiVersion: string;
  readonly regardingFieldPath: string;
  readonly reportingController: string;
  readonly source: string;
  /** The Table row text these values decide (row-offsets.ts), rendered once per profile. */
  readonly cells: ProfileCells;
}

/** Shares equal profiles and repeated strings between cached events. */
export interface EventAttrsPools {
  profile(key: string, make: () => EventProfile): EventProfile;
  /** Values that repeat across events (namespaces, names and uids of the objects events are about). */
  string(s: string): string;
  /** regarding.resourceVersion: repeats less, so kept apart from `string` to not crowd out the values above. */
  version(s: string): string;
}

/** The per-event slots both attribute classes have. */
interface EventSlots {
  readonly name: string;
  readonly namespace: string;
  readonly profile: EventProfile;
  readonly regardingName: string;
  readonly regardingUid: string;
  readonly regardingResourceVersion: string;
}

// Label → getter: one hash lookup per match instead of a chain of string comparisons.
const FIELD_GETTERS: ReadonlyMap<string, (a: EventSlots) => string> = new Map<string, (a: EventSlots) => string>([
  ['metadata.name', (a) => a.name],
  ['metadata.namespace', (a) => a.namespace],
  ['reason', (a) => a.profile.reason],
  ['type', (a) => a.profile.type],
  ['regarding.kind', (a) => a.profile.regardingKind],
  ['regarding.namespace', (a) => a.profile.regardingNamespace],
  ['regarding.name', (a) => a.regardingName],
  ['regarding.uid', (a) => a.regardingUid],
  ['regarding.apiVersion', (a) => a.profile.regardingApiVersion],
  ['regarding.resourceVersion', (a) => a.regardingResourceVersion],
  ['regarding.fieldPath', (a) => a.profile.regardingFieldPath],
  ['reportingController', (a) => a.profile.reportingController],
  ['source', (a) => a.profile.source],
]);

function fieldOf(a: EventSlots, label: string): string {
  const get = FIELD_GETTERS.get(label);
  return get === undefined ? '' : get(a);
}

/** The selector attributes of an event read from storage (lists the cache cannot serve). */
export class EventAttrs implements ObjectAttrs, EventSlots {
  constructor(
    readonly namespace: string,
    readonly name: string,
    readonly labels: Readonly<Record<string, string>> | undefined,
    readonly uid: string,
    readonly profile: EventProfile,
    readonly regardingName: string,
    readonly regardingUid: string,
    readonly regardingResourceVersion: string,
  ) {}

  field(label: string): string {
    return fieldOf(this, label);
  }
}

/** rowMeta before the offsets were looked for (0 is "none: scan the bytes"). */
const UNSCANNED = -1;

/**
 * A cached event: the cache entry and its attributes in one object (`attrs` is the entry itself). Strings unique
 * to the event are not kept twice: the name is read from the key (`/events/<namespace>/<name>`; names cannot
 * contain '/') and the uid from the stored bytes (see uidRef). The row* fields locate its Table cells in `value`
 * (row-offsets.ts): six small integers, 48 bytes, so a Table list copies bytes instead of scanning each event.
 */
export class EventEntry implements CacheEntry, ObjectAttrs, EventSlots, CachedRow {
  constructor(
    readonly key: string,
    readonly rv: number,
    readonly value: Buffer,
    readonly namespace: string,
    readonly labels: Readonly<Record<string, string>> | undefined,
    /** The uid, or where it sits in `value` (uidRef). */
    readonly uidRef: string | number,
    readonly profile: EventProfile,
    readonly regardingName: string,
    readonly regardingUid: string,
    readonly regardingResourceVersion: string,
  ) {}

  // RowOffsets, found by hasRowOffsets on the first Table row of this version: a write costs no scan for them, and
  // most versions are written more often than listed as a Table.
  rowMeta = UNSCANNED;
  rowNote = 0;
  rowInst = 0;
  rowFirst = 0;
  rowLast = 0;
  rowCount = 0;

  /** Whether its Table row can be written from offsets (writeCachedRow); finds them the first time it is asked. */
  hasRowOffsets(): boolean {
    if (this.rowMeta === UNSCANNED) {
      eventRowOffsets(this.value, this.regardingName);
      this.rowNote = ROW[1]!;
      this.rowInst = ROW[2]!;
      this.rowFirst = ROW[3]!;
      this.rowLast = ROW[4]!;
      this.rowCount = ROW[5]!;
      this.rowMeta = ROW[0]!;
    }
    return this.rowMeta !== 0;
  }

  get attrs(): ObjectAttrs {
    return this;
  }

  get name(): string {
    return this.key.slice(this.key.lastIndexOf('/') + 1);
  }

  get uid(): string {
    const r = this.uidRef;
    if (typeof r === 'string') return r;
    const start = r >>> 8;
    return this.value.toString('latin1', start, start + (r & 255));
  }

  field(label: string): string {
    return fieldOf(this, label);
  }
}

/** The shared profile of `ev`. */
function profileOf(ev: Event, pools: EventAttrsPools): EventProfile {
  const r = ev.regarding ?? {};
  const p: Omit<EventProfile, 'cells'> = {
    reason: ev.reason ?? '',
    type: ev.type ?? '',
    regardingKind: r.kind ?? '',
    regardingNamespace: r.namespace ?? '',
    regardingApiVersion: r.apiVersion ?? '',
    regardingFieldPath: r.fieldPath ?? '',
    reportingController: ev.reportingController ?? '',
    // New-style Events have no source; upstream selects them by their reporting controller instead.
    source: ev.deprecatedSource?.component || ev.reportingController || '',
  };
  // Length-prefixed parts: no two different profiles can make the same key, whatever characters the values hold.
  let key = '';
  for (const v of [p.reason, p.type, p.regardingKind, p.regardingNamespace, p.regardingApiVersion, p.regardingFieldPath, p.reportingController, p.source]) {
    key += `${v.length}:${v}`;
  }
  return pools.profile(key, () => ({ ...p, cells: profileCells(p) }));
}

/** The attributes of `ev`, with the values of eventSelectableFields, shared through `pools`. */
export function newEventAttrs(ev: Event, pools: EventAttrsPools): EventAttrs {
  const m = ev.metadata;
  const r = ev.regarding ?? {};
  return new EventAttrs(
    pools.string(m.namespace ?? ''),
    m.name ?? '',
    m.labels,
    m.uid ?? '',
    profileOf(ev, pools),
    pools.string(r.name ?? ''),
    pools.string(r.uid ?? ''),
    pools.version(r.resourceVersion ?? ''),
  );
}

// Characters that JSON (with Go's HTML-safe escaping) writes as themselves, one byte each: UUIDs and the like.
const PLAIN = /^[A-Za-z0-9._:-]+$/;

/**
 * Where `uid` sits in `value` as offset × 256 + length (a small integer: no string per cached event), or the uid
 * itself when it cannot be found as plain bytes. Any `"uid":"<uid>"` in the bytes holds the same characters.
 */
export function uidRef(value: Buffer, uid: string): string | number {
  if (uid.length === 0 || uid.length > 255 || !PLAIN.test(uid)) return uid;
  const at = value.indexOf(`"uid":"${uid}"`);
  if (at < 0 || at >= 1 << 22) return uid;
  return (at + 7) * 256 + uid.length;
}

/** The cache entry of `ev` stored under `key` at `rv` with bytes `value`. */
export function newEventEntry(key: string, rv: number, value: Buffer, ev: Event, pools: EventAttrsPools): EventEntry {
  const m = ev.metadata;
  const r = ev.regarding ?? {};
  const regardingName = pools.string(r.name ?? '');
  return new EventEntry(
    key,
    rv,
    value,
    pools.string(m.namespace ?? ''),
    m.labels,
    uidRef(value, m.uid ?? ''),
    profileOf(ev, pools),
    regardingName,
    pools.string(r.uid ?? ''),
    pools.version(r.resourceVersion ?? ''),
  );
}
