import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../metrics/registry.ts';
import { writeText } from '../metrics/text.ts';
import { EVENT_CAPACITY, GenericPLEG, lifecycleEvents, registerPlegMetrics, type LifecycleEvent, type RelistPod } from './pleg.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('PLEG', () => {
  it("turns a container's move between two relists into kubelet's lifecycle events", () => {
    const types = (b?: 'running' | 'exited', a?: 'running' | 'exited') => lifecycleEvents('u', 'c', b, a).map((e) => e.type);
    assert.deepEqual(types(undefined, 'running'), ['ContainerStarted']);
    assert.deepEqual(types('running', 'exited'), ['ContainerDied']);
    assert.deepEqual(types(undefined, 'exited'), ['ContainerDied']);
    assert.deepEqual(types('running', undefined), ['ContainerDied', 'ContainerRemoved']);
    assert.deepEqual(types('exited', undefined), ['ContainerRemoved']);
    assert.deepEqual(types('running', 'running'), []);
  });

  it('relists, reports the differences, keeps the last list as the pod cache and times each relist', async () => {
    let pods: RelistPod[] = [{ uid: 'p1', namespace: 'default', name: 'a', containers: [{ id: 'c1', name: 'main', state: 'running' }] }];
    const events: LifecycleEvent[] = [];
    const r = new Registry({ version: 'v1.36.0' });
    let now = 1_000_000;
    const pleg = new GenericPLEG({ list: () => pods, onEvent: (e) => events.push(e), metrics: registerPlegMetrics(r), now: () => now });
    pleg.relist();
    await tick();
    assert.deepEqual(events, [{ podUid: 'p1', type: 'ContainerStarted', data: 'c1' }]);
    // The container died and its restart is a new instance.
    pods = [{ uid: 'p1', namespace: 'default', name: 'a', containers: [{ id: 'c2', name: 'main', state: 'running' }] }];
    now += 1000;
    pleg.relist();
    await tick();
    assert.deepEqual(events.slice(1).map((e) => `${e.type} ${e.data}`), ['ContainerDied c1', 'ContainerRemoved c1', 'ContainerStarted c2']);
    assert.deepEqual([...pleg.pods()], pods);
    const text = writeText(r.collect());
    assert.match(text, /^corelet_pleg_relist_duration_seconds_count 2$/m);
    assert.match(text, /^corelet_pleg_relist_interval_seconds_count 1$/m);
    assert.match(text, /^corelet_pleg_relist_interval_seconds_sum 1$/m);
    assert.match(text, /^corelet_pleg_last_seen_seconds 1001$/m);
    assert.match(text, /^corelet_pleg_discard_events 0$/m);
  });

  it('discards (and counts) what does not fit its channel; the relist never waits', async () => {
    const many: RelistPod[] = [{ uid: 'p', namespace: 'default', name: 'p', containers: Array.from({ length: EVENT_CAPACITY + 5 }, (_, i) => ({ id: `c${i}`, name: `c${i}`, state: 'running' as const })) }];
    const r = new Registry({ version: 'v1.36.0' });
    let got = 0;
    const pleg = new GenericPLEG({ list: () => many, onEvent: () => got++, metrics: registerPlegMetrics(r) });
    pleg.relist();
    await tick();
    assert.equal(got, EVENT_CAPACITY);
    assert.match(writeText(r.collect()), /^corelet_pleg_discard_events 5$/m);
  });

  it("is unhealthy once no relist finished within the threshold, in kubelet's words", () => {
    let now = 0;
    const pleg = new GenericPLEG({ list: () => [], onEvent: () => {}, now: () => now });
    pleg.relist();
    now = 3 * 60_000;
    assert.equal(pleg.unhealthy(), undefined);
    now = 3 * 60_000 + 500;
    assert.equal(pleg.unhealthy(), 'pleg was last seen active 3m0.5s ago; threshold is 3m0s');
  });
});
