/** events.cluster.io/v1 Event, field names and order as the Go struct (the JSON key order clients see). */
import type { ObjectMeta, ListMeta } from '../../meta/v1/types.ts';

export const GROUP = 'events.cluster.io';
export const VERSION = 'v1';
export const GROUP_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'Event';
export const LIST_KIND = 'EventList';
export const RESOURCE = 'events';
export const SINGULAR = 'event';
export const SHORT_NAMES = ['ev'];
/** Every verb the Event resource serves, in both API views. */
export const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface EventSeries {
  count: number;
  lastObservedTime: string | null;
}

export interface EventSource {
  component?: string;
  host?: string;
}

export interface Event {
  kind?: string;
  apiVersion?: string;
  metadata: ObjectMeta;
  /** MicroTime: always exactly 6 fractional digits on output; null when zero. */
  eventTime: string | null;
  series?: EventSeries;
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource: EventSource;
  deprecatedFirstTimestamp: string | null;
  deprecatedLastTimestamp: string | null;
  deprecatedCount?: number;
  [field: string]: unknown;
}

export interface EventList {
  kind: 'EventList';
  apiVersion: string;
  metadata: ListMeta;
  items: Event[];
}
