/**
 * The EventRecorder against the real API server (its events API over a real socket): series written by patch,
 * the heartbeat, finished series, the spam filter, the bounded queue, retries and refusals, shutdown's flush.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { TestServer } from '../../test/helpers/server.ts';
import { EventRecorder, MAX_TRIES_PER_EVENT } from './event-recorder.ts';
import { RestClient } from './rest.ts';
import type { ObjectReference } from './event.ts';

const s = new TestServer();
before(async () => {
  await s.start();
});
after(async () => {
  await s.cleanup();
});

const recorder = (o: Partial<ConstructorParameters<typeof EventRecorder>[0]> = {}) =>
  new EventRecorder({ client: RestClient.fromKubeconfig(s.kubeconfig, { userAgent: 'recorder-test/v0' }), reportingController: 'recorder-test', reportingInstance: 'recorder-test-host', ...o });

const pod = (name: string, ns = 'rec'): ObjectReference => ({ apiVersion: 'v1', kind: 'Pod', name, namespace: ns, uid: `uid-${name}` });

async function eventsAbout(name: string, ns = 'rec'): Promise<any[]> {
  const r = await s.request('GET', `/apis/events.cluster.io/v1/namespaces/${ns}/events?fieldSelector=regarding.name=${name}`);
  assert.equal(r.status, 200, r.body);
  return r.json().items;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('EventRecorder', () => {
  it('writes an Event as client-go does: name, namespace, MicroTime, reporting fields, regarding and related', async () => {
    const r = recorder();
    const related: ObjectReference = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'n1' };
    r.eventf({ ...pod('web'), fieldPath: 'spec.containers{main}' }, related, 'Normal', 'Started', 'StartContainer', 'Started container main');
    const [e] = await until('the event', async () => (await eventsAbout('web')).length === 1 && eventsAbout('web'));
    assert.match(e.metadata.name, /^web\.[0-9a-f]+$/);
    assert.equal(e.metadata.namespace, 'rec');
    assert.match(e.eventTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(Math.abs(Date.parse(e.eventTime) - Date.now()) < 60_000);
    assert.deepEqual(
      { rc: e.reportingController, ri: e.reportingInstance, action: e.action, reason: e.reason, note: e.note, type: e.type, series: e.series },
      { rc: 'recorder-test', ri: 'recorder-test-host', action: 'StartContainer', reason: 'Started', note: 'Started container main', type: 'Normal', series: undefined },
    );
    assert.deepEqual(e.regarding, { kind: 'Pod', namespace: 'rec', name: 'web', uid: 'uid-web', apiVersion: 'v1', fieldPath: 'spec.containers{main}' });
    assert.deepEqual(e.related, { kind: 'Node', name: 'n1', uid: 'n1', apiVersion: 'v1' });
    assert.equal(e.metadata.managedFields[0].manager, 'recorder-test');
    assert.equal(await r.shutdown(), true);
  });

  it('puts Events about cluster-scoped objects in default, and cuts a long note to 1024 bytes as upstream', async () => {
    const r = recorder();
    r.eventf({ apiVersion: 'v1', kind: 'Node', name: 'big-node', uid: 'big-node' }, undefined, 'Warning', 'FailedValidation', 'ValidatePod', `x${'é'.repeat(1500)}`);
    const e = await until('the event', async () => (await eventsAbout('big-node', 'default'))[0]);
    assert.equal(e.metadata.namespace, 'default');
    assert.ok(Buffer.byteLength(e.note) <= 1024 && Buffer.byteLength(e.note) >= 1020, String(Buffer.byteLength(e.note)));
    assert.match(e.note, /^xé+ \.\.\.$/);
    await r.shutdown();
  });

  it('turns isomorphic events into a series: count 2 by patch, later ones counted, the count written at shutdown', async () => {
    const r = recorder();
    const ref = pod('crash');
    // The note is no part of the key: back-off messages that differ still form one series.
    r.eventf(ref, undefined, 'Warning', 'BackOff', 'RestartContainer', 'Back-off 10s');
    const first = await until('the first event', async () => (await eventsAbout('crash'))[0]);
    r.eventf(ref, undefined, 'Warning', 'BackOff', 'RestartContainer', 'Back-off 20s');
    const second = await until('count 2', async () => (await eventsAbout('crash')).find((e) => e.series?.count === 2));
    assert.equal(second.metadata.name, first.metadata.name, 'the first Event is patched, no new one');
    assert.equal(second.note, 'Back-off 10s');
    assert.match(second.series.lastObservedTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(second.eventTime, first.eventTime);
    assert.equal(second.metadata.managedFields.at(-1).operation, 'Update');
    r.eventf(ref, undefined, 'Warning', 'BackOff', 'RestartContainer', 'Back-off 40s');
    r.eventf(ref, undefined, 'Warning', 'BackOff', 'RestartContainer', 'Back-off 80s');
    assert.equal(r.queued, 0, 'a running series is only counted, not written');
    // A different reason (or action, or object) is another event.
    r.eventf(ref, undefined, 'Normal', 'Started', 'StartContainer', 'Started container main');
    await until('the other event', async () => (await eventsAbout('crash')).length === 2);
    assert.equal((await eventsAbout('crash')).find((e) => e.reason === 'BackOff').series.count, 2);
    assert.equal(await r.shutdown(), true);
    const last = (await eventsAbout('crash')).find((e) => e.reason === 'BackOff');
    assert.equal(last.series.count, 4);
    assert.ok(last.series.lastObservedTime > second.series.lastObservedTime);
  });

  it('the heartbeat writes ongoing series again with their current count', async () => {
    const r = recorder({ heartbeatMs: 300 });
    const ref = pod('beat');
    for (let i = 0; i < 5; i++) r.eventf(ref, undefined, 'Warning', 'Unhealthy', 'Probe', 'Liveness probe failed');
    const e = await until('count 5 from the heartbeat', async () => (await eventsAbout('beat')).find((x) => x.series?.count === 5));
    assert.equal((await eventsAbout('beat')).length, 1);
    assert.equal(e.reason, 'Unhealthy');
    await r.shutdown();
  });

  it('a series quiet for the finish time is written a last time and forgotten: the next occurrence is a new Event', async () => {
    const r = recorder({ finishMs: 200 });
    const ref = pod('quiet');
    r.eventf(ref, undefined, 'Normal', 'Killing', 'KillContainer', 'Stopping container main');
    r.eventf(ref, undefined, 'Normal', 'Killing', 'KillContainer', 'Stopping container main');
    r.eventf(ref, undefined, 'Normal', 'Killing', 'KillContainer', 'Stopping container main');
    await until('the final count 3', async () => (await eventsAbout('quiet')).find((x) => x.series?.count === 3));
    // Forgotten once written: wait for a finish pass after the write, then record again.
    await new Promise((res) => setTimeout(res, 600));
    r.eventf(ref, undefined, 'Normal', 'Killing', 'KillContainer', 'Stopping container main');
    const all = await until('a second Event', async () => {
      const l = await eventsAbout('quiet');
      return l.length === 2 && l;
    });
    assert.deepEqual(all.map((x) => x.series?.count ?? 1).sort(), [1, 3]);
    await r.shutdown();
  });

  it('drops and counts what is over the spam filter (25 per source and object, then 1 per 5 minutes)', async () => {
    const r = recorder();
    const ref = pod('spam');
    for (let i = 0; i < 30; i++) r.eventf(ref, undefined, 'Warning', `Reason${i}`, 'Test', `event ${i}`);
    assert.equal(r.dropped.rateLimited, 5);
    // Another object, or another type about the same object, has its own bucket.
    r.eventf(ref, undefined, 'Normal', 'Other', 'Test', 'a Normal event');
    r.eventf(pod('spam-2'), undefined, 'Warning', 'Reason0', 'Test', 'another object');
    assert.equal(r.dropped.rateLimited, 5);
    assert.equal(await r.shutdown(), true);
    const written = await eventsAbout('spam');
    assert.equal(written.length, 26);
    assert.deepEqual(written.filter((e) => e.type === 'Warning').map((e) => e.reason).sort(), Array.from({ length: 25 }, (_, i) => `Reason${i}`).sort());
  });

  it('a full queue drops and counts without making the caller wait; what was queued is written', async () => {
    const r = recorder({ queueSize: 50 });
    // One synchronous loop: no writer runs before it ends, so the queue fills and eventf returns regardless.
    for (let i = 0; i < 80; i++) r.eventf(pod(`q-${i}`, 'rec-queue'), undefined, 'Normal', 'Queued', 'Test', `event ${i}`);
    assert.equal(r.dropped.queueFull, 30);
    assert.equal(r.queued, 50);
    assert.equal(await r.shutdown(20_000), true);
    const list = (await s.request('GET', '/apis/events.cluster.io/v1/namespaces/rec-queue/events')).json().items;
    assert.equal(list.length, 50);
    assert.deepEqual(list.map((e: any) => e.regarding.name).sort(), Array.from({ length: 50 }, (_, i) => `q-${i}`).sort());
  });

  it('a refused event is not retried and counts as failed; events after shutdown are counted', async () => {
    const r = recorder();
    r.eventf(pod('refused'), undefined, 'Normal', 'R'.repeat(129), 'Test', 'reason too long for the API');
    assert.equal(await r.shutdown(), true);
    assert.equal(r.dropped.failed, 1);
    assert.deepEqual(await eventsAbout('refused'), []);
    r.eventf(pod('late'), undefined, 'Normal', 'Late', 'Test', 'after shutdown');
    assert.equal(r.dropped.shutdown, 1);
  });

  it('retries a transport failure up to 12 tries, then counts the event as failed', async () => {
    // A listener that closes every connection at once: what the recorder sees of an API server going away.
    const sockets: Socket[] = [];
    const broken = createServer((c) => {
      sockets.push(c);
      c.destroy();
    });
    await new Promise<void>((res) => broken.listen(0, '127.0.0.1', res));
    try {
      const client = new RestClient({ server: new URL(`https://127.0.0.1:${(broken.address() as AddressInfo).port}`) });
      const r = new EventRecorder({ client, reportingController: 'recorder-test', reportingInstance: 'h', retrySleepMs: 5 });
      r.eventf(pod('lost'), undefined, 'Normal', 'Lost', 'Test', 'never arrives');
      await until('the last try', async () => r.dropped.failed === 1);
      assert.equal(sockets.length, MAX_TRIES_PER_EVENT);
      await r.shutdown();
    } finally {
      broken.close();
    }
  });

  it('shutdown gives up after its timeout and counts what was left', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res));
    try {
      const client = new RestClient({ server: new URL(`https://127.0.0.1:${(silent.address() as AddressInfo).port}`) });
      const r = new EventRecorder({ client, reportingController: 'recorder-test', reportingInstance: 'h', workers: 1 });
      r.eventf(pod('stuck-1'), undefined, 'Normal', 'Stuck', 'Test', 'never answered');
      r.eventf(pod('stuck-2'), undefined, 'Normal', 'Stuck', 'Test', 'never sent');
      assert.equal(await r.shutdown(300), false);
      assert.equal(r.dropped.shutdown, 1);
    } finally {
      silent.close();
    }
  });
});
