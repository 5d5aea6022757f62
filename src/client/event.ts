/**
 * The Event object a recorder sends (client-go tools/events makeEvent), and the pieces of it upstream derives:
 * the name (`<regarding name>.<unix nanoseconds in hex>`, a UUID when that is no valid name), MicroTime with
 * exactly six fractional digits, the note cut to the API's 1024-byte limit (kube-scheduler's truncateMessage),
 * and the key under which isomorphic events form one series (getKey).
 */
import { randomUUID } from 'node:crypto';
import { isDNS1123Subdomain } from '../apimachinery/validation/content.ts';
import { GROUP_VERSION, type Event, type ObjectReference } from '../apis/events/v1/types.ts';

export type { ObjectReference };
export type EventType = 'Normal' | 'Warning';

/** validation.NoteLengthLimit: a longer note makes the server refuse the Event. */
export const NOTE_LENGTH_LIMIT = 1024;

/** Cuts a note over the limit to fit it with ` ...` at its end, never inside a UTF-8 character. */
export function truncateNote(note: string): string {
  if (Buffer.byteLength(note) <= NOTE_LENGTH_LIMIT) return note;
  const suffix = ' ...';
  const bytes = Buffer.from(note);
  let end = NOTE_LENGTH_LIMIT - suffix.length;
  // A continuation byte (10xxxxxx) is no place to cut.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8') + suffix;
}

/** Wall-clock time in microseconds since the epoch (MicroTime's resolution). */
export function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/** MicroTime's wire form: RFC 3339 in UTC with exactly six fractional digits. */
export function formatMicroTime(us: number): string {
  const ms = Math.floor(us / 1000);
  const iso = new Date(ms).toISOString(); // 2006-01-02T15:04:05.000Z
  return `${iso.slice(0, 19)}.${String(((us % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0')}Z`;
}

let lastNanos = 0n;

/** util.GenerateEventName: unique within this process even for events in the same nanosecond. */
export function eventName(refName: string): string {
  let n = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
  if (n <= lastNanos) n = lastNanos + 1n;
  lastNanos = n;
  const name = `${refName}.${n.toString(16)}`;
  return isDNS1123Subdomain(name).length ? randomUUID() : name;
}

export interface EventFields {
  reportingController: string;
  reportingInstance: string;
  regarding: ObjectReference;
  related?: ObjectReference;
  type: EventType;
  reason: string;
  action: string;
  note: string;
  eventTimeUs: number;
}

/** A new singleton Event: in the regarding object's namespace, `default` for cluster-scoped objects. */
export function makeEvent(f: EventFields): Event {
  return {
    apiVersion: GROUP_VERSION,
    kind: 'Event',
    metadata: { name: eventName(f.regarding.name ?? ''), namespace: f.regarding.namespace || 'default' },
    eventTime: formatMicroTime(f.eventTimeUs),
    reportingController: f.reportingController,
    reportingInstance: f.reportingInstance,
    action: f.action,
    reason: f.reason,
    regarding: { ...f.regarding },
    ...(f.related ? { related: { ...f.related } } : {}),
    note: truncateNote(f.note),
    type: f.type,
  } as Event;
}

const refKey = (r: ObjectReference | undefined) => [r?.kind, r?.namespace, r?.name, r?.uid, r?.apiVersion, r?.resourceVersion, r?.fieldPath].map((s) => s ?? '');

/** getKey: events equal in all of these are isomorphic (the note is not part of it). */
export function seriesKey(e: Event): string {
  return JSON.stringify([e.type, e.action, e.reason, e.reportingController, e.reportingInstance, refKey(e.regarding), refKey(e.related)]);
}
