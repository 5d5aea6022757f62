/**
 * core/v1 Event (`/api/v1`, group ""): the older view of the same stored Events, field names and order as the Go
 * struct of kubernetes/api `core/v1/types.go` (the JSON key order clients see).
 */
import type { ObjectMeta, ListMeta } from '../../meta/v1/types.ts';
import type { EventSource, ObjectReference } from '../../events/v1/types.ts';

export const GROUP = '';
export const VERSION = 'v1';
/** The core group's groupVersion is the bare version. */
export const GROUP_VERSION = VERSION;
export const KIND = 'Event';
export const LIST_KIND = 'EventList';
export const RESOURCE = 'events';
export const SINGULAR = 'event';
export const SHORT_NAMES = ['ev'];

export type { EventSource, ObjectReference };

/** core/v1 EventSeries: unlike events/v1, `count` is omitted when zero. */
export interface CoreEventSeries {
  count?: number;
  lastObservedTime: string | null;
}

export interface CoreEvent {
  kind?: string;
  apiVersion?: string;
  metadata: ObjectMeta;
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  source: EventSource;
  /** Time (whole seconds); null when zero. */
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  count?: number;
  type?: string;
  /** MicroTime (6 fractional digits); null when zero: old-style core Events have none. */
  eventTime: string | null;
  series?: CoreEventSeries;
  action?: string;
  related?: ObjectReference;
  /** The events/v1 `reportingController` (Go field ReportingController, JSON name reportingComponent). */
  reportingComponent: string;
  reportingInstance: string;
  [field: string]: unknown;
}

export interface CoreEventList {
  kind: 'EventList';
  apiVersion: 'v1';
  metadata: ListMeta;
  items: CoreEvent[];
}
