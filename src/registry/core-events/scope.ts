/**
 * core/v1 Events (`/api/v1/.../events`): a second view of the events.cluster.io/v1 objects, as the Kubernetes API
 * server serves core and events.k8s.io Events from one storage. A second generic Store over the same storage,
 * watch cache and key root — so objects, resourceVersions and watches are shared — with the core group's
 * names in errors (`events "x" not found`), the legacy validation of core requests, and a conversion on the way in
 * and out.
 */
import { CORE_EVENT, CORE_EVENTS_DEFS } from '../../apis/core/v1/schema.ts';
import { coreToEvent, eventToCore } from '../../apis/core/v1/conversion.ts';
import type { CoreEvent } from '../../apis/core/v1/types.ts';
import { GROUP, GROUP_RESOURCE, GROUP_VERSION, KIND, LIST_KIND, RESOURCE, VERSION } from '../../apis/core/v1/types.ts';
import { EVENT } from '../../apis/events/v1/schema.ts';
import type { Event } from '../../apis/events/v1/types.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { canonicalize, encode } from '../../apimachinery/codec/encode.ts';
import { EVENTS_DEFS } from '../../apimachinery/codec/definitions.ts';
import type { ResourceScope, ViewConversion } from '../../server/handlers/context.ts';
import type { Storage } from '../../storage/interface.ts';
import { type Strategy, Store } from '../generic/store.ts';
import { EVENTS_KEY_ROOT, eventAttrs, eventCodec, type EventResource } from '../events/storage.ts';
import { EVENT_COLUMNS, eventTableCells } from '../events/table.ts';
import { writeEventRow } from '../events/table-bytes.ts';
import { validateEventCreate, validateEventUpdate } from '../events/validation.ts';
import { CORE_EVENT_FIELD_LABEL_MAP, CORE_EVENT_FIELD_LABELS } from './fields.ts';

/** Writes through core/v1 get upstream's legacy-only validation, with core field names in the causes. */
export const coreEventStrategy: Strategy = {
  prepareForCreate(): void {},
  validate: (obj: KubeObject) => validateEventCreate(obj as unknown as Event, 'core'),
  prepareForUpdate(): void {},
  validateUpdate: (obj: KubeObject, old: KubeObject) => validateEventUpdate(obj as unknown as Event, old as unknown as Event, 'core'),
};

/** core/v1 ⇄ stored events.cluster.io/v1, for requests (decoded core objects) and responses (stored bytes). */
export const coreEventConversion: ViewConversion = {
  toStored: (obj: KubeObject) => canonicalize(coreToEvent(obj as unknown as CoreEvent), EVENTS_DEFS, EVENT) as unknown as KubeObject,
  fromStored: (value: Buffer) => encode(eventToCore(JSON.parse(value.toString('utf8')) as Event), CORE_EVENTS_DEFS, CORE_EVENT),
};

export interface CoreEventView {
  store: Store;
  scope: ResourceScope;
}

/**
 * The core/v1 view over `events` (built by newEventResource on `storage`). `ttlSeconds` is the event TTL applied
 * on writes, as for the events API.
 */
export function newCoreEventScope(events: EventResource, storage: Storage, opts: { ttlSeconds: number }): CoreEventView {
  const store = new Store({
    groupResource: GROUP_RESOURCE,
    qualifiedKind: { group: '', kind: KIND },
    keyRoot: EVENTS_KEY_ROOT,
    storage,
    cacher: events.cacher,
    codec: eventCodec,
    strategy: coreEventStrategy,
    ttlSeconds: () => opts.ttlSeconds,
    attrs: eventAttrs,
  });
  const scope: ResourceScope = {
    group: GROUP,
    version: VERSION,
    groupVersion: GROUP_VERSION,
    kind: KIND,
    listKind: LIST_KIND,
    resource: RESOURCE,
    store,
    // The stored form: tables, metadata-only answers and bookmarks are computed from stored objects.
    codec: eventCodec,
    defs: CORE_EVENTS_DEFS,
    definition: CORE_EVENT,
    supportedFieldLabels: CORE_EVENT_FIELD_LABELS,
    fieldLabelMap: CORE_EVENT_FIELD_LABEL_MAP,
    tableColumns: EVENT_COLUMNS,
    tableCells: (obj, now) => eventTableCells(obj as unknown as Event, now),
    tableRow: writeEventRow,
    convert: coreEventConversion,
  };
  return { store, scope };
}
