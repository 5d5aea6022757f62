/**
 * The Event resource: a generic Store configured with the Event strategy, the event TTL, selectable fields and the
 * table columns (kubernetes `pkg/registry/core/event/storage/storage.go`), plus its REST scope.
 */
import type { Event } from '../../apis/events/v1/types.ts';
import { GROUP, GROUP_RESOURCE, GROUP_VERSION, KIND, LIST_KIND, RESOURCE, VERSION } from '../../apis/events/v1/types.ts';
import { EVENT } from '../../apis/events/v1/schema.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { EVENTS_DEFS } from '../../apimachinery/codec/definitions.ts';
import { encode } from '../../apimachinery/codec/encode.ts';
import { spliceResourceVersion } from '../../apimachinery/codec/resource-version-splice.ts';
import { FieldManager } from '../../apimachinery/managedfields/index.ts';
import { Cacher } from '../../storage/cacher/cacher.ts';
import type { CacheEntry, ObjectAttrs } from '../../storage/cacher/types.ts';
import type { Codec, Storage } from '../../storage/interface.ts';
import type { ResourceScope } from '../../server/handlers/context.ts';
import { Store } from '../generic/store.ts';
import { StringPool, ValuePool } from '../../util/intern.ts';
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
export const eventCodec: Codec = {
  encode: (obj: KubeObject) => encode(obj, EVENTS_DEFS, EVENT),
  decode: (value: Buffer) => JSON.parse(value.toString('utf8')) as KubeObject,
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
  return newEventAttrs(obj as unknown as Event, pools);
}

/** The watch cache's entry for an event: entry and attributes in one compact object. */
export function eventEntry(key: string, rv: number, value: Buffer, obj: KubeObject): CacheEntry {
  return newEventEntry(key, rv, value, obj as unknown as Event, pools);
}

export interface EventResource {
  store: Store;
  cacher: Cacher;
  scope: ResourceScope;
}

export async function newEventResource(storage: Storage, opts: { ttlSeconds: number; onError?(err: Error): void }): Promise<EventResource> {
  const cacher = new Cacher({
    storage,
    prefix: `${EVENTS_KEY_ROOT}/`,
    codec: eventCodec,
    attrs: eventAttrs,
    entry: eventEntry,
    // Events about one object (kubectl describe). type and reason are left to scans: few values each, so a scan
    // with a limit soon fills a page, while an index costs ~35 bytes per cached event and field.
    indexedFields: ['regarding.name'],
    ...(opts.onError ? { onError: opts.onError } : {}),
  });
  await cacher.start();
  const store = new Store({
    groupResource: GROUP_RESOURCE,
    qualifiedKind: { group: '', kind: KIND },
    keyRoot: EVENTS_KEY_ROOT,
    storage,
    cacher,
    codec: eventCodec,
    strategy: eventStrategy,
    ttlSeconds: () => opts.ttlSeconds,
    attrs: eventAttrs,
    fieldManager: new FieldManager({ defs: EVENTS_DEFS, rootDef: EVENT, apiVersion: GROUP_VERSION }),
  });
  const scope: ResourceScope = {
    group: GROUP,
    version: VERSION,
    groupVersion: GROUP_VERSION,
    kind: KIND,
    listKind: LIST_KIND,
    resource: RESOURCE,
    store,
    codec: eventCodec,
    defs: EVENTS_DEFS,
    definition: EVENT,
    supportedFieldLabels: EVENT_FIELD_LABELS,
    tableColumns: EVENT_COLUMNS,
    tableCells: (obj, now) => eventTableCells(obj as unknown as Event, now),
    tableRow: writeEventRow,
  };
  return { store, cacher, scope };
}
