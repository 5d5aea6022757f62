/**
 * core/v1 Events (`/api/v1/.../events`): a second view of the events.cluster.io/v1 objects, as the Kubernetes API
 * server serves core and events.k8s.io Events from one storage. It shares the Event resource's storage, key root
 * and watch cache — so objects, resourceVersions and watches are shared — with the core group's names in errors
 * (`events "x" not found`), the legacy validation of core requests, and a conversion on the way in and out.
 */
import { CORE_EVENT, CORE_EVENT_LIST, CORE_EVENTS_DEFS } from '../../apis/core/v1/schema.ts';
import { coreToEvent, eventToCore } from '../../apis/core/v1/conversion.ts';
import type { CoreEvent } from '../../apis/core/v1/types.ts';
import { GROUP, KIND, LIST_KIND, RESOURCE, SHORT_NAMES, SINGULAR, VERSION } from '../../apis/core/v1/types.ts';
import { EVENTS_DEFS } from '../../apis/events/v1/definitions.ts';
import { EVENT } from '../../apis/events/v1/schema.ts';
import type { Event } from '../../apis/events/v1/types.ts';
import * as eventsV1 from '../../apis/events/v1/types.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { canonicalize, encode } from '../../apimachinery/codec/encode.ts';
import { type Registered, type ResourceDefinition, registerView } from '../generic/registration.ts';
import { storageVersionHash } from '../rest/resource-info.ts';
import type { ViewConversion } from '../rest/scope.ts';
import { type EventResource, eventAttrs, eventCodec } from '../events/storage.ts';
import { eventStrategyFor } from '../events/strategy.ts';
import { EVENT_COLUMNS, eventTableCells } from '../events/table.ts';
import { writeEventRow } from '../events/table-bytes.ts';
import { CORE_EVENT_FIELD_LABEL_MAP, CORE_EVENT_FIELD_LABELS } from './fields.ts';

/** core/v1 ⇄ stored events.cluster.io/v1, for requests (decoded core objects) and responses (stored bytes). */
export const coreEventConversion: ViewConversion = {
  toStored: (obj: KubeObject) => canonicalize(coreToEvent(obj as unknown as CoreEvent), EVENTS_DEFS, EVENT) as KubeObject,
  fromStored: (value: Buffer) => encode(eventToCore(JSON.parse(value.toString('utf8')) as Event), CORE_EVENTS_DEFS, CORE_EVENT),
};

/** core/v1 Event, whose objects are stored (and decoded by the store) as events.cluster.io/v1 Events. */
export function coreEventDefinition(ttlSeconds: number): ResourceDefinition<Event> {
  return {
    group: GROUP,
    version: VERSION,
    kind: KIND,
    listKind: LIST_KIND,
    resource: RESOURCE,
    singular: SINGULAR,
    shortNames: SHORT_NAMES,
    verbs: eventsV1.VERBS,
    // Writes through core/v1 get upstream's legacy-only validation, with core field names in the causes.
    strategy: eventStrategyFor('core'),
    codec: eventCodec,
    defs: CORE_EVENTS_DEFS,
    definition: CORE_EVENT,
    listDefinition: CORE_EVENT_LIST,
    // The view's labels; selectors are relabeled to the stored Events' and filter their attributes.
    selectableFields: { labels: CORE_EVENT_FIELD_LABELS, attrs: eventAttrs },
    // Tables, metadata-only answers and bookmarks are computed from stored objects.
    table: { columns: EVENT_COLUMNS, cells: eventTableCells, rowWriter: writeEventRow },
    ttlSeconds: () => ttlSeconds,
    qualifiedKind: { group: '', kind: KIND },
    // Both views share one storage version, events.cluster.io/v1 (upstream both hash core v1's).
    storageVersionHash: storageVersionHash(eventsV1.GROUP, eventsV1.VERSION, eventsV1.KIND),
  };
}

export function registerCoreEvents(events: EventResource, opts: { ttlSeconds: number }): Registered<Event> {
  return registerView(coreEventDefinition(opts.ttlSeconds), { of: events as Registered<KubeObject>, convert: coreEventConversion, fieldLabelMap: CORE_EVENT_FIELD_LABEL_MAP });
}
