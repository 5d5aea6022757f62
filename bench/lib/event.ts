/**
 * The Event bodies the bench creates: about 700 bytes of JSON each, like a kubelet "Pulling" event. The index `i`
 * decides what selective lists find: `regarding.name` is `pod-<i/10>` (10 events per pod) and every tenth event
 * is a Warning, so `fieldSelector=regarding.name=pod-K` matches exactly 10 and `type=Warning` one in ten.
 */

export interface EventSpec {
  /** Namespace, or the namespace prefix when `nsMod` spreads events over `<namespace>-<i % nsMod>`. */
  namespace: string;
  nsMod?: number;
  /** metadata.name is `<namePrefix><i>`. */
  namePrefix: string;
  /** Target body size in bytes (the note is padded); default 700. */
  size?: number;
  /** Puts `#seq=<i>#` in the note so that watchers can tell events apart without parsing JSON. */
  seqMarker?: boolean;
}

export const API_PREFIX = '/apis/events.cluster.io/v1';

export function eventNamespace(spec: EventSpec, i: number): string {
  return spec.nsMod ? `${spec.namespace}-${i % spec.nsMod}` : spec.namespace;
}

/** The create path of event `i` on the real server. */
export function createPath(spec: EventSpec, i: number): string {
  return `${API_PREFIX}/namespaces/${eventNamespace(spec, i)}/events`;
}

/** The JSON body of event `i`. */
export function eventBody(spec: EventSpec, i: number): string {
  const ns = eventNamespace(spec, i);
  const warning = i % 10 === 0;
  const pod = `pod-${Math.floor(i / 10)}`;
  const marker = spec.seqMarker ? `#seq=${i}# ` : '';
  const head =
    `{"apiVersion":"events.cluster.io/v1","kind":"Event","metadata":{"name":"${spec.namePrefix}${i}","namespace":"${ns}"},` +
    `"eventTime":"2024-05-01T12:00:00.123456Z","reportingController":"kubelet","reportingInstance":"kubelet-node-17",` +
    `"action":"${warning ? 'Backoff' : 'Pulling'}","reason":"${warning ? 'BackOff' : 'Pulling'}","type":"${warning ? 'Warning' : 'Normal'}",` +
    `"regarding":{"kind":"Pod","namespace":"${ns}","name":"${pod}","uid":"8a7b6c5d-1e2f-4a3b-9c8d-7e6f5a4b3c2d","apiVersion":"v1",` +
    `"resourceVersion":"4567","fieldPath":"spec.containers{nginx}"},"note":"${marker}Pulling image registry.example.com/library/nginx:1.25.3`;
  const tail = '"}';
  const pad = (spec.size ?? 700) - head.length - tail.length;
  return pad > 1 ? head + ' ' + 'x'.repeat(pad - 1) + tail : head + tail;
}
