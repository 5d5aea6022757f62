/**
 * What the corelet's parts record Events through (client-go `tools/events` EventRecorder's Eventf). The pod
 * runner and the prober take one; the agent's entry point gives them the real recorder, tests may give a list.
 */
export interface ObjectReference {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  /** For a container: `spec.containers{name}`, as kubelet sets it. */
  fieldPath?: string;
}

export type EventType = 'Normal' | 'Warning';

export interface EventSink {
  eventf(regarding: ObjectReference, related: ObjectReference | undefined, type: EventType, reason: string, action: string, note: string): void;
}

/** Records nothing: where no API server is configured (standalone mode). */
export const discardEvents: EventSink = { eventf() {} };
