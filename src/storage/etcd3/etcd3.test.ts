/**
 * The etcd3 backend against a real etcd (Debian's etcd-server, started here on loopback): the shared storage
 * conformance suite, with and without a transformer, then what is particular to etcd (leases, other writers, errors).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensurePki } from '../../cmd/certs.ts';
import { runStorageConformance } from '../conformance.ts';
import { StorageError, type StorageEvent } from '../interface.ts';
import { jsonCodec } from '../testing/json-codec.ts';
import { AsyncFirstTransformer, ScramblingTransformer } from '../testing/scrambling-transformer.ts';
import type { Transformer } from '../value/transformer.ts';
import { EtcdClient, parseEndpoint } from './client.ts';
import { COMPACT_REV_KEY, compactStep, type CompactState } from './compact.ts';
import { DbSizeMonitor, etcdProbe } from './monitor.ts';
import { EtcdStorage, prefixEnd } from './storage.ts';
import { etcdAvailable, startEtcd, type EtcdProcess } from './testing/etcd-process.ts';

const obj = (name: string, data: unknown = 'x') => ({ apiVersion: 'v1', kind: 'Thing', metadata: { name, namespace: 'ns' } as { name: string; namespace: string; resourceVersion?: string }, data });

/**
 * One etcd shared by the tests of a suite, each test under its own --etcd-prefix (the conformance contract allows
 * that: revisions are global, never assumed contiguous). A test that compacted it leaves it behind: the next test gets
 * a fresh etcd, since "a watch from 0 replays the whole history" needs history from revision 1.
 */
class SharedEtcd {
  #etcd: Promise<EtcdProcess> | undefined;
  #seq = 0;

  async get(): Promise<EtcdProcess> {
    return (this.#etcd ??= startEtcd());
  }

  async retire(): Promise<void> {
    const e = this.#etcd;
    this.#etcd = undefined;
    if (e) await (await e).stop();
  }

  nextPrefix(): string {
    return `/registry-${process.pid}-${++this.#seq}`;
  }
}

const shared = new SharedEtcd();
after(() => shared.retire());

if (!etcdAvailable()) {
  it('etcd3 backend: skipped, no etcd binary (apt-get install etcd-server)', { skip: true }, () => {});
} else {
  // The default (progress answers not trusted as ordered: etcd before 3.4.31 / 3.5.13, or unknown), and the path of
  // fixed versions, where answers are passed on as they come (the etcd here may be older: the suite still checks
  // what that path delivers).
  for (const [name, transformer, ordered] of [
    ['etcd3', undefined, false],
    ['etcd3, scrambling transformer', () => new ScramblingTransformer(), false],
    ['etcd3, transformer answering asynchronously first', () => new AsyncFirstTransformer(new ScramblingTransformer()), false],
    ['etcd3, progress answers taken as ordered (etcd 3.4.31+ / 3.5.13+)', undefined, true],
  ] as [string, (() => Transformer) | undefined, boolean][]) {
    runStorageConformance(
      name,
      async () => {
        const etcd = await shared.get();
        const prefix = shared.nextPrefix();
        const storage = new EtcdStorage({ endpoints: [etcd.endpoint], codec: jsonCodec, prefix, progressAnswersOrdered: ordered, ...(transformer ? { transformer: transformer() } : {}) });
        return {
          storage,
          cleanup: async () => {
            const compacted = storage.compactedRevision() > 0;
            await storage.close();
            if (compacted) return shared.retire();
            // Leave nothing behind whose lease could expire during the next test and move the revision it checks.
            const c = new EtcdClient({ endpoints: [etcd.endpoint] });
            const key = Buffer.from(prefix);
            await c.call('deleteRange', { key, range_end: prefixEnd(key) });
            c.close();
          },
        };
      },
      // etcd's leases count whole seconds and its leader checks them every 500 ms: expiry lands up to ~1 s late.
      { ttlGraceMs: 4000, realTimeTtlSeconds: 2 },
    );
  }

  describe('etcd3 backend', () => {
    let etcd: EtcdProcess;
    before(async () => {
      etcd = await startEtcd();
    });
    after(() => etcd.stop());
    let n = 0;
    const open = (extra: Partial<ConstructorParameters<typeof EtcdStorage>[0]> = {}) =>
      new EtcdStorage({ endpoints: [etcd.endpoint], codec: jsonCodec, prefix: `/t${++n}`, ...extra });

    it('keys live under the prefix, values stored without resourceVersion; the revision is etcd\'s mod_revision', async () => {
      const s = open({ prefix: '/registry/' });
      const c = await s.create('/events/ns/a', obj('a'));
      const raw = new EtcdClient({ endpoints: [etcd.endpoint] });
      const res = await raw.call('range', { key: Buffer.from('/registry/events/ns/a') });
      assert.equal(res.kvs.length, 1);
      assert.equal(Number(res.kvs[0]!.mod_revision), c.rv);
      const stored = JSON.parse(Buffer.from(res.kvs[0]!.value).toString());
      assert.equal(stored.metadata.resourceVersion, undefined);
      assert.equal(JSON.parse(c.value.toString()).metadata.resourceVersion, String(c.rv));
      raw.close();
      await s.close();
    });

    it('a value bound to its etcd key by the transformer does not read back under another key: Corrupt, naming the key', async () => {
      const s = open({ prefix: '/enc', transformer: new ScramblingTransformer() });
      await s.create('/k/ns/a', obj('a'));
      const raw = new EtcdClient({ endpoints: [etcd.endpoint] });
      const value = Buffer.from((await raw.call('range', { key: Buffer.from('/enc/k/ns/a') })).kvs[0]!.value);
      assert.ok(!value.toString().includes('"name":"a"'), 'stored bytes went through the transformer');
      await raw.call('put', { key: Buffer.from('/enc/k/ns/b'), value });
      raw.close();
      // The error names the interface's key, as on SQLite (the watch cache and the API's Status name it so).
      await assert.rejects(s.get('/k/ns/b'), (e) => e instanceof StorageError && e.code === 'Corrupt' && e.key === '/k/ns/b');
      await assert.rejects(s.list('/k/'), (e) => e instanceof StorageError && e.code === 'Corrupt');
      assert.equal(jsonCodec.decode((await s.get('/k/ns/a'))!.value).metadata.name, 'a');
      await s.close();
    });

    it('the transformer is picked by the interface key and binds the value to the etcd key', async () => {
      const seen: { key: string | undefined; aad: string }[] = [];
      const inner = new ScramblingTransformer();
      const t: Transformer = {
        transformToStorage: (d, ctx) => (seen.push({ key: ctx.key, aad: ctx.authenticatedData().toString() }), inner.transformToStorage(d, ctx)),
        transformFromStorage: (d, ctx) => inner.transformFromStorage(d, ctx),
      };
      const s = open({ prefix: '/registry', transformer: t });
      await s.create('/roles/ns/a', obj('a'));
      assert.deepEqual(seen, [{ key: '/roles/ns/a', aad: '/registry/roles/ns/a' }]);
      await s.close();
    });

    for (const [name, make] of [
      ['scrambling transformer', () => new ScramblingTransformer()],
      ['transformer answering asynchronously first', () => new AsyncFirstTransformer(new ScramblingTransformer())],
    ] as [string, () => Transformer][]) {
      it(`${name}: collectCorrupt lists the rest and names the unreadable; ignoreStoreReadError deletes it unread; the watch goes on`, async () => {
        const prefix = `/cc${++n}`;
        const s = open({ prefix, transformer: make() });
        await s.create('/t/ns/a', obj('a'));
        const b = await s.create('/t/ns/b', obj('b'));
        await s.create('/t/ns/c', obj('c'));
        // Before the damage: a watcher holding "a", which it will see deleted (without a value).
        const events: { type: string; key: string; value: Buffer; prevValue?: Buffer }[] = [];
        const errors: Error[] = [];
        const w = s.watch('/t/', b.rv, { onEvent: (ev) => events.push(ev), onError: (e) => errors.push(e) });
        // "a" gets the stored bytes of "b": bound to another key, it no longer reads back.
        const raw = new EtcdClient({ endpoints: [etcd.endpoint] });
        const bBytes = Buffer.from((await raw.call('range', { key: Buffer.from(`${prefix}/t/ns/b`) })).kvs[0]!.value);
        await raw.call('put', { key: Buffer.from(`${prefix}/t/ns/a`), value: bBytes });
        raw.close();
        await assert.rejects(s.get('/t/ns/a'), (e) => e instanceof StorageError && e.code === 'Corrupt' && e.key === '/t/ns/a');
        await assert.rejects(s.list('/t/'), (e) => e instanceof StorageError && e.code === 'Corrupt' && e.key === '/t/ns/a');
        const l = await s.list('/t/', { collectCorrupt: true });
        assert.deepEqual(l.items.map((i) => i.key), ['/t/ns/b', '/t/ns/c']);
        assert.deepEqual(l.corrupt?.map((e) => e.key), ['/t/ns/a']);
        assert.equal(l.more, false);
        // The corrupt value does not count towards a limit: the page is made up from the next keys.
        const p1 = await s.list('/t/', { collectCorrupt: true, limit: 1 });
        assert.deepEqual(p1.items.map((i) => i.key), ['/t/ns/b']);
        assert.deepEqual(p1.corrupt?.map((e) => e.key), ['/t/ns/a']);
        assert.equal(p1.more, true);
        assert.equal(p1.remaining, 1);
        const p2 = await s.list('/t/', { collectCorrupt: true, limit: 2, predicate: (o) => o.key !== '/t/ns/b' });
        assert.deepEqual(p2.items.map((i) => i.key), ['/t/ns/c']);
        assert.equal(p2.more, false);
        // A plain delete fails; a readable value is validated as usual with the option.
        await assert.rejects(s.delete('/t/ns/a'), (e) => e instanceof StorageError && e.code === 'Corrupt');
        await assert.rejects(s.delete('/t/ns/b', { ignoreStoreReadError: true, validateDeletion: () => Promise.reject(new Error('refused')) }), /refused/);
        const seen: number[] = [];
        const damagedRv = await s.currentRevision();
        const gone = await s.delete('/t/ns/a', { ignoreStoreReadError: true, validateDeletion: (cur) => void seen.push(cur.rv, cur.value.length) });
        assert.deepEqual(seen, [damagedRv, 0], 'the validator sees the revision, no value');
        assert.equal(gone.value.length, 0);
        assert.equal(gone.object, undefined);
        assert.equal(await s.get('/t/ns/a'), null);
        await assert.rejects(s.delete('/t/ns/a', { ignoreStoreReadError: true }), (e) => e instanceof StorageError && e.code === 'KeyNotFound');
        // The watch: the damaging put ends nothing (MODIFIED of a value that does not read ends the watch, so the
        // watch is opened again after it), the DELETED has no value.
        const deadline = Date.now() + 5000;
        while (!events.some((e) => e.type === 'DELETED') && errors.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        const after = await s.create('/t/ns/d', obj('d'));
        const w2events: { type: string; key: string; rv: number; value: Buffer }[] = [];
        const w2errors: Error[] = [];
        const w2 = s.watch('/t/', damagedRv, { onEvent: (ev) => w2events.push(ev), onError: (e) => w2errors.push(e) });
        while (!w2events.some((e) => e.key === '/t/ns/d') && w2errors.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assert.deepEqual(w2errors, []);
        assert.deepEqual(w2events.map((e) => [e.type, e.key, e.value.length === 0]), [['DELETED', '/t/ns/a', true], ['ADDED', '/t/ns/d', false]]);
        assert.equal(w2events[1]!.rv, after.rv);
        w2.stop();
        // The first watcher met the damaging put (a new value that does not read back): Corrupt, naming the key.
        assert.equal(errors.length, 1, String(errors));
        assert.ok(errors[0] instanceof StorageError && errors[0].code === 'Corrupt' && errors[0].key === '/t/ns/a', String(errors[0]));
        w.stop();
        await s.close();
      });
    }

    it('leases are reused within the reuse window and capped at 1000 objects', async () => {
      const retired: number[] = [];
      const s = open({ onLeaseRetired: (k) => retired.push(k) });
      for (let i = 0; i < 5; i++) await s.create(`/e/ns/o${i}`, obj(`o${i}`), 3600);
      assert.equal(s.leases.granted, 1, 'one lease for five writes with the same TTL');
      // 5 % of 3600 s is 180 s, capped at 60 s: the lease was granted for 3660 s.
      assert.equal(s.leases.reuseSeconds(3600), 60);
      assert.equal(s.leases.reuseSeconds(2), 0);
      await s.create('/e/ns/short', obj('short'), 120);
      assert.equal(s.leases.granted, 2, 'a much shorter TTL needs its own lease');
      assert.deepEqual(retired, [5]);
      const capped = open({});
      await Promise.all(Array.from({ length: 1001 }, (_, i) => capped.create(`/c/ns/o${i}`, obj(`o${i}`), 600)));
      assert.equal(capped.leases.granted, 2, '1000 objects per lease, then a new one');
      await s.close();
      await capped.close();
    });

    it('a lease revoked behind the manager\'s back: the write gets a new lease instead of failing', async () => {
      const s = open();
      await s.create('/r/ns/a', obj('a'), 600);
      const raw = new EtcdClient({ endpoints: [etcd.endpoint] });
      const lease = String((await raw.call('range', { key: Buffer.from(s.prefix + '/r/ns/a') })).kvs[0]!.lease);
      await raw.call('leaseRevoke', { ID: lease });
      assert.equal(await s.get('/r/ns/a'), null, 'revoking the lease deleted its key');
      const b = await s.create('/r/ns/b', obj('b'), 600);
      assert.ok(b.rv > 0);
      assert.equal(s.leases.granted, 2);
      raw.close();
      await s.close();
    });

    it('an update re-attaches the key to a lease; an update without TTL detaches it', async () => {
      const s = open();
      const raw = new EtcdClient({ endpoints: [etcd.endpoint] });
      const leaseOf = async (k: string) => String((await raw.call('range', { key: Buffer.from(s.prefix + k) })).kvs[0]!.lease);
      await s.create('/x/ns/a', obj('a', 1), 60);
      const l1 = await leaseOf('/x/ns/a');
      assert.notEqual(l1, '0');
      await s.guaranteedUpdate('/x/ns/a', { tryUpdate: (c) => ({ object: { ...jsonCodec.decode(c!.value), data: 2 }, ttlSeconds: 60 }) });
      assert.equal(await leaseOf('/x/ns/a'), l1, 'the reused lease again');
      await s.guaranteedUpdate('/x/ns/a', { tryUpdate: (c) => ({ object: { ...jsonCodec.decode(c!.value), data: 3 } }) });
      assert.equal(await leaseOf('/x/ns/a'), '0');
      raw.close();
      await s.close();
    });

    it("own writes reach this storage's watch as the written object and bytes themselves, whether etcd's event or the answer came first; another client's write with other bytes is decoded", async () => {
      const a = open({ prefix: '/own' });
      const b = open({ prefix: '/own' });
      const events: StorageEvent[] = [];
      const w = a.watch('/o/', await a.currentRevision(), { onEvent: (ev) => events.push(ev), onError: (e) => assert.fail(e) });
      // Concurrent creates on one connection: etcd sends some events before their answers and some after.
      const created = await Promise.all(Array.from({ length: 200 }, (_, i) => a.create(`/o/ns/k${i}`, obj(`k${i}`, i))));
      const updated = await a.guaranteedUpdate('/o/ns/k0', { tryUpdate: (c) => ({ object: { ...jsonCodec.decode(c!.value), data: 'u' } }) });
      await b.create('/o/ns/other', obj('other'));
      const deadline = Date.now() + 10_000;
      while (events.length < 202 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const byRv = new Map(events.map((e) => [e.rv, e]));
      for (const c of [...created, updated.stored]) {
        const ev = byRv.get(c.rv)!;
        assert.ok(ev.object === c.object, `the event at ${c.rv} carries the object written`);
        // One resourceVersion splice per write, whichever came first: the answer and the event serve one buffer.
        assert.ok(ev.value === c.value, `the event at ${c.rv} and the answer serve the same bytes`);
        assert.equal(c.object?.metadata.resourceVersion, String(c.rv));
      }
      const other = events.find((e) => e.key === '/o/ns/other')!;
      assert.equal(other.object, undefined, "another client's write: decoded by the watch cache, not carried");
      assert.equal(JSON.parse(other.value.toString()).metadata.resourceVersion, String(other.rv));
      w.stop();
      await a.close();
      await b.close();
    });

    it('a write by another client between read and write makes guaranteedUpdate decide again', async () => {
      const a = open({ prefix: '/shared' });
      const b = open({ prefix: '/shared' });
      await a.create('/k/ns/x', obj('x', 0));
      let calls = 0;
      const res = await a.guaranteedUpdate('/k/ns/x', {
        tryUpdate: async (cur) => {
          calls++;
          if (calls === 1) await b.guaranteedUpdate('/k/ns/x', { tryUpdate: (c) => ({ object: { ...jsonCodec.decode(c!.value), data: 'b' } }) });
          return { object: { ...jsonCodec.decode(cur!.value), data: `${String(jsonCodec.decode(cur!.value).data)}+a` } };
        },
      });
      assert.equal(calls, 2);
      assert.equal(jsonCodec.decode(res.stored.value).data, 'b+a');
      await assert.rejects(b.create('/k/ns/x', obj('x')), (e) => e instanceof StorageError && e.code === 'KeyExists');
      await a.close();
      await b.close();
    });

    it('a new watch with history behind it learns of a later revision written elsewhere, with no write after it (an informer at start)', async () => {
      const s = open({ prefix: '/p' });
      const rv0 = await s.currentRevision();
      const other = await s.create('/other/ns/a', obj('a'));
      // From before that write: etcd must first replay (nothing), so the watcher counts as synced only after a grace.
      let progress = 0;
      const w = s.watch('/empty/', rv0, { onEvent: () => assert.fail('no event expected'), onError: (e) => assert.fail(e), onProgress: (rv) => (progress = Math.max(progress, rv)) });
      const deadline = Date.now() + 5000;
      while (progress < other.rv && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok(progress >= other.rv, `progress ${progress}, written at ${other.rv}`);
      w.stop();
      await s.close();
    });

    it('a watch on one storage sees the writes of another with the same resourceVersions', async () => {
      const a = open({ prefix: '/w' });
      const b = open({ prefix: '/w' });
      const seen: [string, number][] = [];
      const w = a.watch('/k/', await a.currentRevision(), { onEvent: (ev) => seen.push([ev.type, ev.rv]), onError: (e) => assert.fail(e) });
      const c = await b.create('/k/ns/y', obj('y'));
      const d = await b.delete('/k/ns/y');
      const deadline = Date.now() + 3000;
      while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(seen, [['ADDED', c.rv], ['DELETED', d.rv]]);
      w.stop();
      await a.close();
      await b.close();
    });

    it('compaction as upstream: the first tick records, the next compacts the previous tick\'s revision; two replicas compact once per interval', async () => {
      const s = open({ prefix: '/cmp' });
      const c1 = new EtcdClient({ endpoints: [etcd.endpoint] });
      const c2 = new EtcdClient({ endpoints: [etcd.endpoint] });
      let a: CompactState = { version: 0, rev: 0 };
      let b: CompactState = { version: 0, rev: 0 };
      await s.create('/k/ns/a', obj('a'));
      // Tick 1 on both replicas: replica 1 wins the compact_rev_key transaction and records the revision, replica 2
      // loses and learns the version.
      let r = await compactStep(c1, a);
      a = r.state;
      assert.equal(r.compacted, 0, 'nothing is compacted at start-up');
      r = await compactStep(c2, b);
      b = r.state;
      assert.equal(b.version, a.version);
      const recorded = a.rev;
      await s.create('/k/ns/b', obj('b'));
      // Tick 2: replica 1 compacts to what it saw at tick 1; replica 2 then loses again and is told that revision.
      r = await compactStep(c1, a);
      a = r.state;
      assert.equal(r.compacted, recorded);
      r = await compactStep(c2, b);
      b = r.state;
      assert.equal(r.compacted, recorded, 'the loser learns the revision the winner compacted to');
      const raw = await c1.call('range', { key: Buffer.from(COMPACT_REV_KEY) });
      assert.equal(Buffer.from(raw.kvs[0]!.value).toString(), String(recorded));
      assert.equal(Number(raw.kvs[0]!.version), 2);
      s.noteCompacted(recorded);
      await assert.rejects(s.list('/k/', { rv: recorded }), (e) => e instanceof StorageError && e.code === 'Expired');
      await assert.rejects(s.list('/k/', { rv: recorded - 1 }), (e) => e instanceof StorageError && e.code === 'Expired');
      c1.close();
      c2.close();
      await s.close();
    });

    it('health probe and database size: answers from etcd; a dead etcd fails the probe with upstream\'s text', async () => {
      const c = new EtcdClient({ endpoints: [etcd.endpoint] });
      await etcdProbe(c, '/registry', 2000)();
      const size = new DbSizeMonitor(c, 0);
      await size.poll();
      assert.ok(size.sizeBytes() > 0);
      c.close();
      const dead = new EtcdClient({ endpoints: ['http://127.0.0.1:1'] });
      const probe = etcdProbe(dead, '/registry', 500);
      await assert.rejects(probe(), /^Error: error getting data from etcd: /);
      assert.throws(() => new DbSizeMonitor(dead, 0).sizeBytes(), /not known yet/);
      dead.close();
    });

    it('history compacted by someone else: lists and watches from before it get Expired from etcd itself', async () => {
      const s = open({ prefix: '/other' });
      const first = await s.create('/k/ns/a', obj('a', 1));
      await s.guaranteedUpdate('/k/ns/a', { tryUpdate: (c) => ({ object: { ...jsonCodec.decode(c!.value), data: 2 } }) });
      const head = (await s.create('/k/ns/b', obj('b'))).rv;
      // Another replica compacts; this storage has not heard of it (its own bound stays 0).
      const raw = new EtcdClient({ endpoints: [etcd.endpoint] });
      await raw.call('compact', { revision: head });
      raw.close();
      assert.equal(s.compactedRevision(), 0);
      await assert.rejects(s.list('/k/', { rv: first.rv }), (e) => e instanceof StorageError && e.code === 'Expired');
      const err = await new Promise<Error>((resolve) => {
        s.watch('/k/', first.rv, { onEvent: () => assert.fail('no event expected'), onError: resolve });
      });
      assert.ok(err instanceof StorageError && err.code === 'Expired', String(err));
      await s.close();
    });

    it('several endpoints: reads go on to the next when one is down, and writes then avoid the failed one', async () => {
      const s = new EtcdStorage({ endpoints: ['http://127.0.0.1:1', etcd.endpoint], codec: jsonCodec, prefix: '/multi' });
      assert.equal(await s.get('/k/ns/a'), null);
      const c = await s.create('/k/ns/a', obj('a'));
      assert.equal((await s.get('/k/ns/a'))!.rv, c.rv);
      assert.equal(s.client.currentEndpoint.url, etcd.endpoint);
      await s.close();
    });

    it('watch streams failing one after another on a dead member do not rotate calls back onto it', async () => {
      const c = new EtcdClient({ endpoints: ['http://127.0.0.1:1', etcd.endpoint, 'http://127.0.0.1:2'] });
      // Two resources' streams, opened while the dead member was still the current endpoint.
      const streams = [c.openWatchStream(), c.openWatchStream()];
      for (const st of streams) st.on('error', () => {});
      await c.call('range', { key: Buffer.from('/x') }, 5000);
      assert.equal(c.currentEndpoint.url, etcd.endpoint);
      const unavailable = Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14, details: 'No connection established' });
      for (const st of streams) c.noteStreamFailure(unavailable, st);
      assert.equal(c.currentEndpoint.url, etcd.endpoint, 'a failure of the dead member\'s streams moved calls off the live one');
      // A write (not retried on another member) goes to the live member.
      await c.call('put', { key: Buffer.from('/multi-stream/k'), value: Buffer.from('v') }, 5000);
      for (const st of streams) st.cancel();
      c.close();
    });

    it('bad endpoints are refused with the URL named', () => {
      assert.throws(() => parseEndpoint('127.0.0.1:2379'), /"127.0.0.1:2379"/);
      assert.throws(() => parseEndpoint('ftp://x:1'), /scheme must be http or https/);
      assert.deepEqual(parseEndpoint('https://etcd.example:2379'), { url: 'https://etcd.example:2379', target: 'etcd.example:2379', tls: true });
    });

    it('an unreachable etcd fails calls with an Internal error naming etcd', async () => {
      const s = new EtcdStorage({ endpoints: ['http://127.0.0.1:1'], codec: jsonCodec });
      await assert.rejects(s.get('/a'), (e) => e instanceof StorageError && e.code === 'Internal' && /etcd/.test(e.message));
      await s.close();
    });

    it('the watch event of a write of this storage carries the written object (no second decode); another storage decodes its own copy', async () => {
      const a = open({ prefix: '/own' });
      const b = open({ prefix: '/own' });
      const got = (s: EtcdStorage, from: number) => new Promise<StorageEvent>((resolve, reject) => s.watch('/k/', from, { onEvent: resolve, onError: reject }));
      // A watcher of `a` on another prefix is open while it writes; the watches of the key replay the write after it
      // was answered (from the revision before it), so the event cannot come before the write's answer. (Revisions
      // from the etcd's current one: other tests compact the history.)
      const head = (await a.create('/other/x', obj('x'))).rv;
      const other = a.watch('/other/', head, { onEvent: () => {}, onError: () => {} });
      const c = await a.create('/k/ns/a', obj('a'));
      const [ea, eb] = [got(a, c.rv - 1), got(b, c.rv - 1)];
      const [x, y] = await Promise.all([ea, eb]);
      assert.equal(x.rv, c.rv);
      assert.equal(x.object, c.object);
      assert.ok(x.value.equals(c.value));
      assert.equal(y.object, undefined);
      assert.ok(y.value.equals(c.value));
      assert.deepEqual(y.value.toString(), x.value.toString());
      other.stop();
      await a.close();
      await b.close();
    });

    it('https with client certificates (--etcd-cafile, --etcd-certfile, --etcd-keyfile): calls and watches; a client without a certificate is refused', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'etcd-tls-'));
      const { paths } = await ensurePki(dir, { hosts: [] });
      const tls = { caFile: paths.caCert, certFile: paths.adminCert, keyFile: paths.adminKey };
      const e = await startEtcd({ tls: { certFile: paths.serverCert, keyFile: paths.serverKey, caFile: paths.caCert, clientCertFile: paths.adminCert, clientKeyFile: paths.adminKey } });
      try {
        const s = new EtcdStorage({ endpoints: [e.endpoint], ...tls, codec: jsonCodec, prefix: '/tls' });
        const seen = new Promise<number>((resolve, reject) => s.watch('/k/', 0, { onEvent: (ev) => resolve(ev.rv), onError: reject }));
        const c = await s.create('/k/ns/a', obj('a'));
        assert.equal((await s.get('/k/ns/a'))!.rv, c.rv);
        assert.equal(await seen, c.rv);
        await s.close();
        const anonymous = new EtcdStorage({ endpoints: [e.endpoint], caFile: paths.caCert, codec: jsonCodec, prefix: '/tls' });
        await assert.rejects(anonymous.get('/k/ns/a'), (err) => err instanceof StorageError && err.code === 'Internal' && /etcd/.test(err.message));
        await anonymous.close();
      } finally {
        await e.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
