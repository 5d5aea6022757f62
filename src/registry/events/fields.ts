/**
 * Field-selector support for events.cluster.io/v1 (kubernetes `pkg/apis/events/v1/conversion.go` label list and
 * `pkg/registry/core/event/strategy.go` ToSelectableFields, keyed by the events/v1 names clients send).
 */
import type { Event } from '../../apis/events/v1/types.ts';

/** The field labels a fieldSelector may use on Events; any other label is a 400 `field label not supported: <l>`. */
export const EVENT_FIELD_LABELS: ReadonlySet<string> = new Set([
  'metadata.name',
  'metadata.namespace',
  'reason',
  'type',
  'regarding.kind',
  'regarding.namespace',
  'regarding.name',
  'regarding.uid',
  'regarding.apiVersion',
  'regarding.resourceVersion',
  'regarding.fieldPath',
  'reportingController',
  'source',
]);

/** Every supported label → the Event's value ('' when unset, which is what an unset field matches). */
export function eventSelectableFields(ev: Event): Record<string, string> {
  const r = ev.regarding ?? {};
  return {
    'metadata.name': ev.metadata.name ?? '',
    'metadata.namespace': ev.metadata.namespace ?? '',
    reason: ev.reason ?? '',
    type: ev.type ?? '',
    'regarding.kind': r.kind ?? '',
    'regarding.namespace': r.namespace ?? '',
    'regarding.name': r.name ?? '',
    'regarding.uid': r.uid ?? '',
    'regarding.apiVersion': r.apiVersion ?? '',
    'regarding.resourceVersion': r.resourceVersion ?? '',
    'regarding.fieldPath': r.fieldPath ?? '',
    reportingController: ev.reportingController ?? '',
    // New-style Events have no source; upstream selects them by their reporting controller instead.
    source: ev.deprecatedSource?.component || ev.reportingController || '',
  };
}

