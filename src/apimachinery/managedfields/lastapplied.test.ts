import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { StatusError } from '../errors.ts';
import { LAST_APPLIED_ANNOTATION } from './lastapplied.ts';
import { at, created, eventFieldManager, manifest } from './testing.ts';
import { managerFromUserAgent } from './useragent.ts';

const fm = eventFieldManager();

/** An Event as client-side `kubectl apply` leaves it: the annotation holds the applied manifest. */
function clientSideApplied(labels: Record<string, string>): KubeObject {
  const body = manifest({ labels });
  const annotation = JSON.stringify(body) + '\n';
  return created(fm, manifest({ labels, annotations: { [LAST_APPLIED_ANNOTATION]: annotation } }), 'kubectl-client-side-apply', at(0));
}

test('kubectl: conflicts on fields last applied client-side with the live value are forgiven', () => {
  const live = clientSideApplied({ app: 'demo' });
  const config = manifest({ labels: { app: 'new' } });
  const obj = fm.apply(live, structuredClone(config), 'kubectl', false, at(1));
  assert.deepEqual(obj.metadata.labels, { app: 'new' });
  const kubectl = obj.metadata.managedFields!.find((e) => e.manager === 'kubectl')!;
  assert.equal(kubectl.operation, 'Apply');
  assert.deepEqual((kubectl.fieldsV1 as Record<string, unknown>)['f:metadata'], { 'f:labels': { 'f:app': {} } });
  // The annotation now holds the applied config, as Go's encoder writes it (sorted keys, trailing newline).
  const annotation = obj.metadata.annotations![LAST_APPLIED_ANNOTATION]!;
  assert.ok(annotation.endsWith('}\n'));
  assert.deepEqual(JSON.parse(annotation), config);
  assert.ok(annotation.startsWith('{"action":"Started","apiVersion":"events.cluster.io/v1","eventTime":'));
});

test('kubectl: a conflict on a field changed since the client-side apply is not forgiven', () => {
  const live = clientSideApplied({ app: 'demo', tier: 't' });
  const next = structuredClone(live);
  next.metadata.labels = { app: 'demo', tier: 'changed' };
  fm.update(live, next, 'kubectl-label', at(1));
  assert.throws(
    () => fm.apply(next, manifest({ labels: { app: 'new', tier: 'mine' } }), 'kubectl', false, at(2)),
    (e: unknown) =>
      e instanceof StatusError &&
      e.code === 409 &&
      e.message === 'Apply failed with 1 conflict: conflict with "kubectl-label" using events.cluster.io/v1: .metadata.labels.tier',
  );
});

test('other managers get no forgiveness, and their applies leave the annotation alone', () => {
  const live = clientSideApplied({ app: 'demo' });
  assert.throws(
    () => fm.apply(live, manifest({ labels: { app: 'new' } }), 'my-ctl', false, at(1)),
    (e: unknown) => e instanceof StatusError && e.message === 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using events.cluster.io/v1: .metadata.labels.app',
  );
  const obj = fm.apply(live, manifest({ labels: { app: 'new' } }), 'my-ctl', true, at(1));
  assert.equal(obj.metadata.annotations![LAST_APPLIED_ANNOTATION], live.metadata.annotations![LAST_APPLIED_ANNOTATION]);
});

test('kubectl without an annotation on the object: no annotation is added', () => {
  const obj = fm.apply(null, manifest(), 'kubectl', false, at(0));
  assert.equal(obj.metadata.annotations, undefined);
});

test('managerFromUserAgent', () => {
  const table: [string | undefined, string][] = [
    ['kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0', 'kubectl'],
    ['kubectl-client-side-apply', 'kubectl-client-side-apply'],
    ['node-fetch', 'node-fetch'],
    ['', 'unknown'],
    [undefined, 'unknown'],
    ['/v1', 'unknown'],
    ['my\tagent\u0000x/1', 'myagentx'],
    ['a'.repeat(200), 'a'.repeat(128)],
    ['é'.repeat(70), 'é'.repeat(64)],
  ];
  for (const [ua, want] of table) assert.equal(managerFromUserAgent(ua), want, String(ua));
});

test('kubectl: an annotation nested past the limit is no usable annotation: conflicts stay', () => {
  const deep = '{"apiVersion":"events.cluster.io/v1","metadata":{"managedFields":[{"fieldsV1":' + '{"f:a":'.repeat(200_000) + '{}' + '}'.repeat(200_000) + '}]}}';
  const live = created(fm, manifest({ labels: { app: 'demo' }, annotations: { [LAST_APPLIED_ANNOTATION]: deep } }), 'kubectl-client-side-apply', at(0));
  assert.throws(() => fm.apply(live, manifest({ labels: { app: 'new' } }), 'kubectl', false, at(1)), (e: unknown) => e instanceof StatusError && e.code === 409);
});
