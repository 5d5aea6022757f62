/**
 * The Table view of Events (kubernetes `pkg/printers/internalversion/printers.go`, the core Event printer that
 * events.k8s.io shares). The wide set is always produced; kubectl hides priority-1 columns unless `-o wide`.
 */
import type { TableColumnDefinition } from '../../apis/meta/v1/types.ts';
import type { Event } from '../../apis/events/v1/types.ts';
import { humanDuration } from '../../apimachinery/duration-human.ts';

export type { TableColumnDefinition };

const col = (name: string, priority: number, description: string, format = ''): TableColumnDefinition => ({
  name,
  type: 'string',
  format,
  description,
  priority,
});

export const EVENT_COLUMNS: TableColumnDefinition[] = [
  col('Last Seen', 0, 'Time the Event was last seen.'),
  col('Type', 0, 'Type of the Event (Normal or Warning).'),
  col('Reason', 0, 'Why the action was taken, machine-readable.'),
  col('Object', 0, 'The object the Event is about.'),
  col('Subobject', 1, 'The part of the object the Event is about, if any.'),
  col('Source', 1, 'The component (and instance) that reported the Event.'),
  col('Message', 0, 'Human-readable description of the Event.'),
  col('First Seen', 1, 'Time the Event was first seen.'),
  col('Count', 1, 'Number of times the Event has occurred.'),
  col('Name', 1, 'Name of the Event object.', 'name'),
];

const UNKNOWN_AGE = '<unknown>';

/** The age of a time string at `nowMs`, or `<unknown>` for the zero time (upstream translateTimestampSince). */
function age(time: string | null | undefined, nowMs: number): string {
  if (!time) return UNKNOWN_AGE;
  const t = Date.parse(time);
  return Number.isNaN(t) ? UNKNOWN_AGE : humanDuration(nowMs - t);
}

/** `component, instance`, each taken from the deprecated source first, then the reporting fields. */
function formatSource(ev: Event): string {
  const component = ev.deprecatedSource?.component || ev.reportingController || '';
  const instance = ev.deprecatedSource?.host || ev.reportingInstance || '';
  return instance ? `${component}, ${instance}` : component;
}

/** The row cells in EVENT_COLUMNS order; Count is a number. */
export function eventTableCells(ev: Event, nowMs: number): unknown[] {
  const firstSeen = ev.deprecatedFirstTimestamp ? age(ev.deprecatedFirstTimestamp, nowMs) : age(ev.eventTime, nowMs);
  let lastSeen = ev.deprecatedLastTimestamp ? age(ev.deprecatedLastTimestamp, nowMs) : firstSeen;
  let count = ev.deprecatedCount ?? 0;
  if (ev.series != null) {
    lastSeen = age(ev.series.lastObservedTime, nowMs);
    count = ev.series.count ?? 0;
  } else if (count === 0) {
    count = 1; // singleton events of the new API carry no count
  }
  const kind = (ev.regarding?.kind ?? '').toLowerCase();
  const name = ev.regarding?.name ?? '';
  const object = name ? `${kind}/${name}` : kind;
  return [
    lastSeen,
    ev.type ?? '',
    ev.reason ?? '',
    object,
    ev.regarding?.fieldPath ?? '',
    formatSource(ev),
    (ev.note ?? '').trim(),
    firstSeen,
    count,
    ev.metadata.name ?? '',
  ];
}
