/**
 * Several API server replicas on one three-member etcd cluster (issue 14): what one replica writes, the other lists
 * and watches at the same resourceVersion; continue tokens travel between replicas; and the faults an operator meets
 * — an etcd member crashing under load, a replica crashing under a watch — lose no acknowledged write and leave no
 * gap for a client that resumes elsewhere. Both replicas share one CA (the second starts with a copy of the first's
 * pki/), so one client certificate works on both.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer, sampleEvent } from './helpers/server.ts';
import { EtcdClient } from '../src/storage/etcd3/client.ts';
import { EtcdCluster } from '../src/storage/etcd3/testing/etcd-cluster.ts';
import { etcdAvailable } from '../src/storage/etcd3/testing/etcd-process.ts';

const BASE = '/apis/events.cluster.io/v1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('two replicas on a three-member etcd', { skip: !etcdAvailable() && 'no etcd binary (apt-get install etcd-server)' }, () => {
  let etcd: EtcdCluster;
  let a: TestServer;
  let b: TestServer;
  const args = () => ['--storage-backend=etcd3', `--etcd-servers=${etcd.servers}`];

  before(async () => {
    etcd = await EtcdCluster.start(3);
    a = new TestServer();
    await a.start(args());
    b = new TestServer();
    // The same CA, serving and admin certificates: the second replica reuses what it finds in pki/.
    cpSync(join(a.dataDir, 'pki'), join(b.dataDir, 'pki'), { recursive: true });
    await b.start(args());
  });
  after(async () => {
    await Promise.all([a?.cleanup(), b?.cleanup()]);
    await etcd?.stop();
  });

  const create = async (s: TestServer, ns: string, name: string) => {
    const r = await s.request('POST', `${BASE}/namespaces/${ns}/events`, sampleEvent(name, ns));
    assert.equal(r.status, 201, r.body);
    return r.json();
  };
  const names = (list: any) => list.items.map((i: any) => i.metadata.name).sort();

  it('one CA: the admin certificate of replica A is accepted by replica B', async () => {
    const r = await b.request('GET', `${BASE}/namespaces/default/events`);
    assert.equal(r.status, 200, r.body);
  });

  it('a write on A is seen by a watch on B with the same resourceVersion', async () => {
    const start = (await b.request('GET', `${BASE}/namespaces/rep-watch/events`)).json().metadata.resourceVersion;
    const w = b.watch(`${BASE}/namespaces/rep-watch/events?watch=1&resourceVersion=${start}`);
    assert.equal(await w.status, 200);
    const created = await create(a, 'rep-watch', 'from-a');
    await until('the event on B', () => w.frames.some((f) => f.object?.metadata?.name === 'from-a'));
    const f = w.frames.find((x) => x.object?.metadata?.name === 'from-a');
    assert.equal(f.type, 'ADDED');
    assert.equal(f.object.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(f.object.metadata.uid, created.metadata.uid);
    w.stop();
  });

  it('a list with limit from A continues on B with A\'s continue token', async () => {
    for (let i = 0; i < 5; i++) await create(a, 'rep-page', `e${i}`);
    const p1 = (await a.request('GET', `${BASE}/namespaces/rep-page/events?limit=2`)).json();
    assert.ok(p1.metadata.continue);
    // A write after the first page: the continued list is a snapshot at the first page's revision, on B as on A.
    await create(b, 'rep-page', 'late');
    const p2 = (await b.request('GET', `${BASE}/namespaces/rep-page/events?limit=2&continue=${encodeURIComponent(p1.metadata.continue)}`)).json();
    const p3 = (await b.request('GET', `${BASE}/namespaces/rep-page/events?limit=2&continue=${encodeURIComponent(p2.metadata.continue)}`)).json();
    assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
    assert.equal(p3.metadata.continue ?? '', '');
    assert.deepEqual([...names(p1), ...names(p2), ...names(p3)], ['e0', 'e1', 'e2', 'e3', 'e4']);
  });

  it('NotOlderThan and a consistent read on B right after a write on A see the write', async () => {
    for (let i = 0; i < 10; i++) {
      const c = await create(a, 'rep-read', `r${i}`);
      const rv = c.metadata.resourceVersion;
      const nt = await b.request('GET', `${BASE}/namespaces/rep-read/events?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
      assert.equal(nt.status, 200, nt.body);
      assert.ok(names(nt.json()).includes(`r${i}`), `NotOlderThan ${rv} on B misses r${i}`);
      assert.ok(Number(nt.json().metadata.resourceVersion) >= Number(rv));
      const cr = (await b.request('GET', `${BASE}/namespaces/rep-read/events`)).json();
      assert.ok(names(cr).includes(`r${i}`), `a consistent list on B misses r${i}`);
      assert.ok(Number(cr.metadata.resourceVersion) >= Number(rv));
      const get = await b.request('GET', `${BASE}/namespaces/rep-read/events/r${i}`);
      assert.equal(get.status, 200);
    }
  });

  it('an etcd member killed under create load on both replicas: no acknowledged write lost, no duplicate, writes go on; the member rejoins', async () => {
    const acked: string[] = [];
    let ackedAfterKill = 0;
    let killed = false;
    let failed = 0;
    let stop = false;
    const creator = async (s: TestServer, id: string) => {
      for (let i = 0; !stop; i++) {
        const name = `${id}-${i}`;
        try {
          const r = await s.request('POST', `${BASE}/namespaces/rep-load/events`, sampleEvent(name, 'rep-load'));
          if (r.status === 201) {
            acked.push(name);
            if (killed) ackedAfterKill++;
          } else {
            failed++;
            if (process.env.DEBUG_REPLICAS) console.error('create failed', Date.now(), r.status, r.body.slice(0, 300));
          }
        } catch (e) {
          if (process.env.DEBUG_REPLICAS) console.error('create threw', Date.now(), String(e));
          failed++; // not acknowledged: may or may not be stored, either is right
        }
      }
    };
    const loops = [0, 1, 2, 3].flatMap((i) => [creator(a, `a${i}`), creator(b, `b${i}`)]);
    await sleep(1000);
    await etcd.kill(0);
    killed = true;
    if (process.env.DEBUG_REPLICAS) console.error('killed', Date.now(), acked.length);
    // Writes in flight at a leader's death wait for etcd's request timeout (about 7 s) before failing; new writes
    // go through once the remaining two members have elected a leader.
    const deadline = Date.now() + 30_000;
    while (ackedAfterKill < 20 && Date.now() < deadline) await sleep(100);
    stop = true;
    await Promise.all(loops);
    assert.ok(acked.length > 50, `only ${acked.length} creates acknowledged`);
    assert.ok(ackedAfterKill >= 20, `only ${ackedAfterKill} creates acknowledged after the member died (${failed} failed)`);

    for (const s of [a, b]) {
      const r = await s.request('GET', `${BASE}/namespaces/rep-load/events`);
      assert.equal(r.status, 200, r.body);
      const got: string[] = names(r.json());
      assert.equal(new Set(got).size, got.length, 'duplicate names in the list');
      const present = new Set(got);
      const lost = acked.filter((n) => !present.has(n));
      assert.deepEqual(lost, [], `acknowledged but missing on ${s === a ? 'A' : 'B'}`);
    }
    // Still writable on the remaining quorum.
    await create(a, 'rep-load', 'after-a');
    await create(b, 'rep-load', 'after-b');

    // The member comes back on its data directory and catches up: a linearizable read through it alone sees every
    // object the replicas list (acknowledged ones, and any committed whose answer was lost).
    await etcd.restart(0);
    const listed = (await a.request('GET', `${BASE}/namespaces/rep-load/events`)).json().items.length;
    assert.ok(listed >= acked.length + 2);
    const c = new EtcdClient({ endpoints: [etcd.members[0]!.endpoint] });
    try {
      const res = await c.call('range', { key: Buffer.from('/registry/events/rep-load/'), range_end: Buffer.from('/registry/events/rep-load0'), count_only: true }, 5000);
      assert.equal(Number(res.count), listed);
    } finally {
      c.close();
    }
  });

  it('replica A killed under an open watch: the watch ends; resuming on B from the last seen resourceVersion misses nothing', async () => {
    const start = (await a.request('GET', `${BASE}/namespaces/rep-crash/events`)).json().metadata.resourceVersion;
    const w = a.watch(`${BASE}/namespaces/rep-crash/events?watch=1&resourceVersion=${start}`);
    assert.equal(await w.status, 200);
    for (let i = 0; i < 3; i++) await create(a, 'rep-crash', `before-${i}`);
    await until('A\'s watch to see the first writes', () => w.frames.length >= 3);
    // Writes keep coming through B while A dies: some may reach A's watch, some not.
    let stop = false;
    const written: string[] = [];
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        await create(b, 'rep-crash', `during-${i}`);
        written.push(`during-${i}`);
        await sleep(5);
      }
    })();
    await sleep(100);
    await a.kill();
    const ended = await Promise.race([w.closed.then(() => true), sleep(5000).then(() => false)]);
    assert.ok(ended, 'the watch on the killed replica did not end');
    await sleep(100);
    stop = true;
    await writer;
    const seen = w.frames.filter((f) => f.type === 'ADDED').map((f) => f.object.metadata.name);
    const last = w.frames[w.frames.length - 1].object.metadata.resourceVersion;

    const w2 = b.watch(`${BASE}/namespaces/rep-crash/events?watch=1&resourceVersion=${last}`);
    assert.equal(await w2.status, 200);
    const all = ['before-0', 'before-1', 'before-2', ...written];
    const missing = () => all.filter((n) => !seen.includes(n) && !w2.frames.some((f) => f.object?.metadata?.name === n));
    await until('every event after the last seen one on B', () => missing().length === 0).catch((err: Error) => {
      // Say what B answered (a 410 ERROR frame would mean B's cache no longer reached back to `last`).
      const frames = w2.frames.map((f) => `${f.type} ${f.object?.metadata?.resourceVersion ?? f.object?.code ?? ''}`).join(', ');
      throw new Error(`${err.message}: from ${last}, missing ${missing().join(', ')}; B sent ${frames}`);
    });
    w2.stop();
    const resumed = w2.frames.filter((f) => f.type === 'ADDED').map((f) => f.object.metadata.name);
    // Exactly the rest, in order, none twice.
    assert.deepEqual([...seen, ...resumed], all);
  });
});
