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
import { FieldManager } from '../../apimachinery/managedfields/index.ts';
import { Cacher } from '../../storage/cacher/cacher.ts';
import type { ObjectAttrs } from '../../storage/cacher/types.ts';
import type { Codec, Storage } from '../../storage/interface.ts';
import type { ResourceScope } from '../../server/handlers/context.ts';
import { Store } from '../generic/store.ts';
import { StringPool } from '../../util/intern.ts';
import { EVENT_FIELD_LABELS, eventSelectableFields } from './fields.ts';
import { eventStrategy } from './strategy.ts';
import { EVENT_COLUMNS, eventTableCells } from './table.ts';

export const EVENTS_KEY_ROOT = '/events';

/** Stored bytes are canonical JSON, so decoding is a plain parse; encoding orders keys as Go does. */
export const eventCodec: Codec = {
  encode: (obj: KubeObject) => encode(obj, EVENTS_DEFS, EVENT),
  decode: (value: Buffer) => JSON.parse(value.toString('utf8')) as KubeObject,
};

/** Selectable fields whose values repeat across many events: cached once per distinct value. */
const POOLED_FIELDS = ['metadata.namespace', 'reason', 'type', 'regarding.kind', 'regarding.namespace', 'regarding.name', 'regarding.apiVersion', 'regarding.fieldPath', 'reportingController', 'source'];
const pool = new StringPool(200_000);

export function eventAttrs(obj: KubeObject): ObjectAttrs {
  const m = obj.metadata;
  const fields = eventSelectableFields(obj as unknown as Event);
  for (const f of POOLED_FIELDS) fields[f] = pool.intern(fields[f]!);
  return {
    namespace: fields['metadata.namespace']!,
    name: m.name ?? '',
    labels: m.labels,
    fields,
    uid: m.uid ?? '',
  };
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
    // The selective lookups users make: events about one object, of one reason or type.
    indexedFields: ['regarding.name', 'regarding.uid', 'reason', 'type'],
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
  };
  return { store, cacher, scope };
}
