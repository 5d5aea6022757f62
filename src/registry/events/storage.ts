/**
 * The Event resource (kubernetes `pkg/registry/core/event/storage/storage.go`): its definition — names, the Event
 * strategy, the event TTL, selectable fields, the compact cache entry and the Table — and its registration.
 */
import { EVENTS_DEFS } from '../../apis/events/v1/definitions.ts';
import { EVENT, EVENT_LIST } from '../../apis/events/v1/schema.ts';
import type { Event } from '../../apis/events/v1/types.ts';
import { GROUP, KIND, LIST_KIND, RESOURCE, SHORT_NAMES, SINGULAR, VERBS, VERSION } from '../../apis/events/v1/types.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { encode } from '../../apimachinery/codec/encode.ts';
import { spliceResourceVersion } from '../../apimachinery/codec/resource-version-splice.ts';
import type { CacheEntry, ObjectAttrs } from '../../storage/cacher/types.ts';
import type { Codec, Storage } from '../../storage/interface.ts';
import { StringPool, ValuePool } from '../../util/intern.ts';
import { type Registered, type RegisterOptions, type ResourceDefinition, registerResource } from '../generic/registration.ts';
import { newEventAttrs, newEventEntry, type EventAttrsPools, type EventProfile } from './attrs.ts';
import { EVENT_FIELD_LABELS } from './fields.ts';
import { eventStrategy } from './strategy.ts';
import { EVENT_COLUMNS, eventTableCells } from './table.ts';
import { writeEventRow } from './table-bytes.ts';

export const EVENTS_KEY_ROOT = '/events';

/**
 * Stored bytes are canonical JSON, so decoding is a plain parse; encoding orders keys as Go does, and the
 * resourceVersion goes in at its place in that order.
 */
export const eventCodec: Codec & { decode(value: Buffer): Event } = {
  encode: (obj: KubeObject) => encode(obj, EVENTS_DEFS, EVENT),
  decode: (value: Buffer) => JSON.parse(value.toString('utf8')) as Event,
  setResourceVersion: spliceResourceVersion,
};

// Bounded pools shared by every cached event: repeated strings (namespaces, the names, uids and versions of the
// objects events are about) and the combinations of low-cardinality fields (EventProfile).
const strings = new StringPool(200_000);
const versions = new StringPool(20_000);
const profiles = new ValuePool<EventProfile>(100_000);
const pools: EventAttrsPools = {
  string: (s) => strings.intern(s),
  version: (s) => versions.intern(s),
  profile: (key, make) => profiles.intern(key, make),
};

/** The selector attributes of an event (for lists read from storage). */
export function eventAttrs(obj: KubeObject): ObjectAttrs {
  return newEventAttrs(obj as Event, pools);
}

/** The watch cache's entry for an event: entry and attributes in one compact object. */
function eventEntry(key: string, rv: number, value: Buffer, obj: Event): CacheEntry {
  return newEventEntry(key, rv, value, obj, pools);
}

/** events.cluster.io/v1 Event; `ttlSeconds` is --event-ttl, set on every write. */
export function eventDefinition(ttlSeconds: number): ResourceDefinition<Event> {
  return {
    group: GROUP,
    version: VERSION,
    kind: KIND,
    listKind: LIST_KIND,
    resource: RESOURCE,
    singular: SINGULAR,
    shortNames: SHORT_NAMES,
    verbs: VERBS,
    strategy: eventStrategy,
    codec: eventCodec,
    defs: EVENTS_DEFS,
    definition: EVENT,
    listDefinition: EVENT_LIST,
    selectableFields: {
      labels: EVENT_FIELD_LABELS,
      attrs: eventAttrs,
      entry: eventEntry,
      // Events about one object (kubectl describe). type and reason are left to scans: few values each, so a scan
      // with a limit soon fills a page, while an index costs ~35 bytes per cached event and field.
      indexed: ['regarding.name'],
    },
    table: { columns: EVENT_COLUMNS, cells: eventTableCells, rowWriter: writeEventRow },
    keyRoot: EVENTS_KEY_ROOT,
    ttlSeconds: () => ttlSeconds,
    // Upstream validates the internal (core) Event: errors name the kind without a group.
    qualifiedKind: { group: '', kind: KIND },
  };
}

export type EventResource = Registered<Event>;

export function registerEvents(storage: Storage, opts: { ttlSeconds: number } & Omit<RegisterOptions, 'storage'>): Promise<EventResource> {
  const { ttlSeconds, ...rest } = opts;
  return registerResource(eventDefinition(ttlSeconds), { ...rest, storage });
}
