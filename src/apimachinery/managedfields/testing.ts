/** Shared fixtures for this folder's tests: the Event field manager and an example Event (reference §1.8). */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { EVENT } from '../../apis/events/v1/schema.ts';
import { EVENTS_DEFS } from '../../apis/events/v1/definitions.ts';
import { convertValue } from '../codec/index.ts';
import { FieldManager } from './fieldmanager.ts';

export const GV = 'events.cluster.io/v1';

export function eventFieldManager(): FieldManager {
  return new FieldManager({ defs: EVENTS_DEFS, rootDef: EVENT, apiVersion: GV });
}

/** The example manifest: an Event with label `app`, as kubectl sends it. */
export function manifest(extra: { labels?: Record<string, string>; annotations?: Record<string, string>; [k: string]: unknown } = {}): KubeObject {
  const { labels = { app: 'demo' }, annotations, ...rest } = extra;
  const metadata: Record<string, unknown> = { name: 'ev1', namespace: 'x', labels };
  if (annotations) metadata['annotations'] = annotations;
  return {
    apiVersion: GV,
    kind: 'Event',
    metadata,
    eventTime: '2026-11-22T10:00:00.000000Z',
    reportingController: 'example.com/ctl',
    reportingInstance: 'ctl-1',
    action: 'Started',
    reason: 'Started',
    regarding: { kind: 'Pod', namespace: 'x', name: 'p1', apiVersion: 'v1' },
    note: 'started',
    type: 'Normal',
    ...rest,
  } as KubeObject;
}

/** A body decoded into the canonical form, with the system metadata a create sets. */
export function stored(body: KubeObject, rv = '1'): KubeObject {
  const obj = convertValue(structuredClone(body), EVENTS_DEFS, EVENT).object as KubeObject;
  obj.metadata.uid = 'c0ffee00-0000-4000-8000-000000000001';
  obj.metadata.resourceVersion = rv;
  obj.metadata.creationTimestamp = '2026-11-22T10:00:00Z';
  return obj;
}

/** `2026-11-22T10:<m>:00Z` */
export function at(minute: number, second = 0): Date {
  return new Date(Date.UTC(2026, 10, 22, 10, minute, second));
}

/** A create by `manager` at `when`: the object as the store would keep it. */
export function created(fm: FieldManager, body: KubeObject, manager: string, when: Date): KubeObject {
  const next = stored(body);
  fm.update(null, next, manager, when);
  return next;
}

/** The fieldsV1 of `manager`'s entry (Update entries also match on operation when given). */
export function fieldsOf(obj: KubeObject, manager: string, operation?: 'Apply' | 'Update'): unknown {
  const e = (obj.metadata.managedFields ?? []).find((x) => x.manager === manager && (!operation || x.operation === operation));
  return e?.fieldsV1;
}

export const EXAMPLE_FIELDS = {
  'f:action': {},
  'f:eventTime': {},
  'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
  'f:note': {},
  'f:reason': {},
  'f:regarding': {},
  'f:reportingController': {},
  'f:reportingInstance': {},
  'f:type': {},
};
