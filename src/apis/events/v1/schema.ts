/** events.cluster.io/v1 definitions (descriptions follow the spec, document 1). */
import { type Definition, prop, str, int32, ref } from '../../../apimachinery/schema.ts';
import { MICRO_TIME, OBJECT_META, TIME, typeMeta, listDefinition } from '../../meta/v1/schema.ts';
import { GROUP, KIND, LIST_KIND, VERSION } from './types.ts';

export const EVENT = 'io.cluster.api.events.v1.Event';
export const EVENT_LIST = 'io.cluster.api.events.v1.EventList';
export const EVENT_SERIES = 'io.cluster.api.events.v1.EventSeries';
export const EVENT_SOURCE = 'io.k8s.api.core.v1.EventSource';
export const OBJECT_REFERENCE = 'io.k8s.api.core.v1.ObjectReference';


export const eventDefinitions: Definition[] = [
  {
    name: OBJECT_REFERENCE,
    description: 'A reference to an object.',
    structType: 'atomic',
    properties: [
      prop('kind', str('Kind of the referent.')),
      prop('namespace', str('Namespace of the referent.')),
      prop('name', str('Name of the referent.')),
      prop('uid', str('UID of the referent.')),
      prop('apiVersion', str('API version of the referent.')),
      prop('resourceVersion', str('Specific resourceVersion the reference is made at, if any.')),
      prop('fieldPath', str('A part of the referent rather than all of it, e.g. spec.containers{name}.')),
    ],
  },
  {
    name: EVENT_SOURCE,
    description: 'The component that reported an event (kept for the older core Event type).',
    properties: [prop('component', str('Component the event comes from.')), prop('host', str('Node name the event comes from.'))],
  },
  {
    name: EVENT_SERIES,
    description: 'Something that happened continuously for some time. How often a series is updated is left to the reporter.',
    required: ['count', 'lastObservedTime'],
    properties: [
      prop('count', int32('Number of occurrences in the series up to the last heartbeat time.')),
      prop('lastObservedTime', ref(MICRO_TIME, 'Time when the last Event of the series was seen before the last heartbeat.')),
    ],
  },
  {
    name: EVENT,
    description:
      'A report of something that happened somewhere in the cluster, usually a state change. Events are informative, best-effort and have a limited retention time.',
    required: ['eventTime'],
    gvk: [{ group: GROUP, version: VERSION, kind: KIND }],
    properties: [
      ...typeMeta,
      prop('metadata', ref(OBJECT_META, 'Standard object metadata.'), true),
      prop('eventTime', ref(MICRO_TIME, 'Time when the Event was first observed. Required.'), true),
      prop('series', ref(EVENT_SERIES, 'Data about the series the Event represents; absent for a singleton Event.')),
      prop('reportingController', str('Name of the controller that emitted the Event. Required for new Events.')),
      prop('reportingInstance', str('ID of the controller instance. At most 128 characters. Required for new Events.')),
      prop('action', str('What was done or failed regarding the regarding object. Machine-readable, at most 128 characters. Required for new Events.')),
      prop('reason', str('Why the action was taken. At most 128 characters. Required for new Events.')),
      prop('regarding', ref(OBJECT_REFERENCE, 'The object the Event is about.'), true),
      prop('related', ref(OBJECT_REFERENCE, 'Optional secondary object for more complex actions.')),
      prop('note', str('Human-readable description of the status of the operation. At most 1 kB.')),
      prop('type', str('Machine-readable type: Normal or Warning. Required for new Events.')),
      prop('deprecatedSource', ref(EVENT_SOURCE, 'Deprecated; kept for the older core Event type.'), true),
      prop('deprecatedFirstTimestamp', ref(TIME, 'Deprecated; kept for the older core Event type.'), true),
      prop('deprecatedLastTimestamp', ref(TIME, 'Deprecated; kept for the older core Event type.'), true),
      prop('deprecatedCount', int32('Deprecated; kept for the older core Event type.')),
    ],
  },
  listDefinition(EVENT_LIST, EVENT, { group: GROUP, version: VERSION, kind: LIST_KIND }, 'A list of Events.', 'The Events of the list.'),
];
