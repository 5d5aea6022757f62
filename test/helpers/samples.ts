/** Valid Events of both views, the starting point of the end-to-end tests and of the fuzz run's mutations. */

/** A valid events.cluster.io/v1 Event. */
export function sampleEvent(name: string, ns = 'default', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'events.cluster.io/v1',
    kind: 'Event',
    metadata: { name, namespace: ns, labels: { app: 'demo' } },
    eventTime: '2026-11-22T10:00:00.000000Z',
    reportingController: 'example.com/controller',
    reportingInstance: 'controller-1',
    action: 'Started',
    reason: 'Started',
    type: 'Normal',
    regarding: { kind: 'Pod', namespace: ns, name: 'web-1', apiVersion: 'v1' },
    note: 'Started container web',
    ...extra,
  };
}

/** An old-style core/v1 Event, as kubelet records them (no eventTime; source, count and timestamps instead). */
export function sampleCoreEvent(name: string, ns = 'default', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: ns, labels: { via: 'core' } },
    involvedObject: { kind: 'Pod', namespace: ns, name: 'web-1', apiVersion: 'v1', fieldPath: 'spec.containers{web}' },
    reason: 'Pulled',
    message: 'Container image pulled',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2026-11-22T10:00:00Z',
    lastTimestamp: '2026-11-22T10:00:05Z',
    count: 1,
    type: 'Normal',
    ...extra,
  };
}
