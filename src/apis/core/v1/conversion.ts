/**
 * Conversion between events.cluster.io/v1 and core/v1 Events, as upstream's (kubernetes
 * `pkg/apis/events/v1/conversion.go` via the internal type): a renaming of fields, nothing dropped or defaulted.
 *
 *   regarding ⇄ involvedObject          note ⇄ message             deprecatedSource ⇄ source
 *   deprecatedFirstTimestamp ⇄ firstTimestamp   deprecatedLastTimestamp ⇄ lastTimestamp
 *   deprecatedCount ⇄ count              reportingController ⇄ reportingComponent
 *   metadata, eventTime, series, reportingInstance, action, reason, related, type: unchanged
 *
 * Both functions take canonical (decoded) objects and return plain objects that the target codec canonicalizes:
 * empty values may be present or absent, the encoder applies the target's omitempty rules.
 */
import type { Event } from '../../events/v1/types.ts';
import { GROUP_VERSION as EVENTS_GROUP_VERSION } from '../../events/v1/types.ts';
import { GROUP_VERSION, KIND, type CoreEvent } from './types.ts';

/** Copies `from[a]` to `to[b]` when set, so absent fields stay absent. */
function move(to: Record<string, unknown>, b: string, from: Record<string, unknown>, a: string): void {
  const v = from[a];
  if (v !== undefined) to[b] = v;
}

/** A stored events.cluster.io/v1 Event as core/v1 shows it. */
export function eventToCore(ev: Event): CoreEvent {
  const src = ev as Record<string, unknown>;
  const out: Record<string, unknown> = { kind: KIND, apiVersion: GROUP_VERSION, metadata: ev.metadata };
  move(out, 'involvedObject', src, 'regarding');
  move(out, 'reason', src, 'reason');
  move(out, 'message', src, 'note');
  move(out, 'source', src, 'deprecatedSource');
  move(out, 'firstTimestamp', src, 'deprecatedFirstTimestamp');
  move(out, 'lastTimestamp', src, 'deprecatedLastTimestamp');
  move(out, 'count', src, 'deprecatedCount');
  move(out, 'type', src, 'type');
  move(out, 'eventTime', src, 'eventTime');
  if (ev.series != null) out.series = { count: ev.series.count, lastObservedTime: ev.series.lastObservedTime };
  move(out, 'action', src, 'action');
  move(out, 'related', src, 'related');
  move(out, 'reportingComponent', src, 'reportingController');
  move(out, 'reportingInstance', src, 'reportingInstance');
  return out as CoreEvent;
}

/** A core/v1 Event (decoded from a request) in the stored events.cluster.io/v1 form. */
export function coreToEvent(ce: CoreEvent): Event {
  const src = ce as Record<string, unknown>;
  const out: Record<string, unknown> = { kind: KIND, apiVersion: EVENTS_GROUP_VERSION, metadata: ce.metadata };
  move(out, 'eventTime', src, 'eventTime');
  // events/v1 writes series.count even when zero; core omits it, so an absent count is 0.
  if (ce.series != null) out.series = { count: ce.series.count ?? 0, lastObservedTime: ce.series.lastObservedTime ?? null };
  move(out, 'reportingController', src, 'reportingComponent');
  move(out, 'reportingInstance', src, 'reportingInstance');
  move(out, 'action', src, 'action');
  move(out, 'reason', src, 'reason');
  move(out, 'regarding', src, 'involvedObject');
  move(out, 'related', src, 'related');
  move(out, 'note', src, 'message');
  move(out, 'type', src, 'type');
  move(out, 'deprecatedSource', src, 'source');
  move(out, 'deprecatedFirstTimestamp', src, 'firstTimestamp');
  move(out, 'deprecatedLastTimestamp', src, 'lastTimestamp');
  move(out, 'deprecatedCount', src, 'count');
  return out as Event;
}
