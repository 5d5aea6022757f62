/**
 * core/v1 Event definitions: the same stored objects as events.cluster.io/v1 under the older field names
 * (kubernetes/api `core/v1/types.go`). Omitempty follows the Go tags: `involvedObject`, `source`, the three times
 * and `reportingComponent`/`reportingInstance` are always written (structs, or strings without omitempty).
 */
import { type Definition, type Definitions, defineAll, prop, str, int32, ref } from '../../../apimachinery/schema.ts';
import { MICRO_TIME, OBJECT_META, TIME, metaDefinitions, typeMeta, listDefinition } from '../../meta/v1/schema.ts';
import { EVENT_SOURCE, OBJECT_REFERENCE, eventDefinitions } from '../../events/v1/schema.ts';
import { GROUP, KIND, LIST_KIND, VERSION } from './types.ts';

export const CORE_EVENT = 'io.k8s.api.core.v1.Event';
export const CORE_EVENT_LIST = 'io.k8s.api.core.v1.EventList';
export const CORE_EVENT_SERIES = 'io.k8s.api.core.v1.EventSeries';
export { EVENT_SOURCE, OBJECT_REFERENCE };


export const coreEventDefinitions: Definition[] = [
  {
    name: CORE_EVENT_SERIES,
    description: 'Something that happened continuously for some time (the core view of an Event series).',
    properties: [
      prop('count', int32('Number of occurrences in the series up to the last heartbeat time.')),
      prop('lastObservedTime', ref(MICRO_TIME, 'Time of the last occurrence observed.'), true),
    ],
  },
  {
    name: CORE_EVENT,
    description:
      'A report of something that happened somewhere in the cluster, in the older core form. The same objects are served as events.cluster.io/v1 Events.',
    required: ['metadata', 'involvedObject'],
    gvk: [{ group: GROUP, version: VERSION, kind: KIND }],
    properties: [
      ...typeMeta,
      prop('metadata', ref(OBJECT_META, 'Standard object metadata.'), true),
      prop('involvedObject', ref(OBJECT_REFERENCE, 'The object this Event is about.'), true),
      prop('reason', str('Short, machine-readable reason for the transition into the object\'s current status.')),
      prop('message', str('Human-readable description of the status of this operation.')),
      prop('source', ref(EVENT_SOURCE, 'The component reporting this Event. Prefer reportingComponent for new Events.'), true),
      prop('firstTimestamp', ref(TIME, 'Time at which the Event was first recorded.'), true),
      prop('lastTimestamp', ref(TIME, 'Time at which the most recent occurrence of this Event was recorded.'), true),
      prop('count', int32('Number of times this Event has occurred.')),
      prop('type', str('Type of this Event: Normal or Warning.')),
      prop('eventTime', ref(MICRO_TIME, 'Time when this Event was first observed; empty for old-style Events.'), true),
      prop('series', ref(CORE_EVENT_SERIES, 'Data about the series this Event represents; absent for a singleton Event.')),
      prop('action', str('What action was taken or failed regarding the involved object.')),
      prop('related', ref(OBJECT_REFERENCE, 'Optional secondary object for more complex actions.')),
      prop('reportingComponent', str('Name of the controller that emitted this Event (reportingController in events.cluster.io/v1).'), true),
      prop('reportingInstance', str('ID of the controller instance.'), true),
    ],
  },
  listDefinition(CORE_EVENT_LIST, CORE_EVENT, { group: GROUP, version: VERSION, kind: LIST_KIND }, 'A list of Events.', 'The Events of the list.'),
];

/** Everything the core Event definitions reach (meta/v1, the shared ObjectReference and EventSource), built once. */
export const CORE_EVENTS_DEFS: Definitions = defineAll([
  ...metaDefinitions,
  ...eventDefinitions.filter((d) => d.name === OBJECT_REFERENCE || d.name === EVENT_SOURCE),
  ...coreEventDefinitions,
]);
