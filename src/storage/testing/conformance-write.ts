/** Conformance: get, create, guaranteedUpdate, delete, count, revisions, close. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { StoredObject } from '../interface.ts';
import type { ConformanceContext } from './conformance-helpers.ts';
import { Recorder, assertRvInside, decode, obj, rejectsWith, withStorage } from './conformance-helpers.ts';

export function writeTests(ctx: ConformanceContext): void {
  it('create stores the object at a new revision that is also inside the value; get returns the same bytes', () =>
    withStorage(ctx, async (s, p) => {
      const r0 = await s.currentRevision();
      const o = obj('a');
      const created = await s.create(p + 'a', o);
      assert.ok(created.rv > r0);
      assert.equal(created.key, p + 'a');
      assert.equal(o.metadata.resourceVersion, String(created.rv), 'create stamps the caller object');
      assertRvInside(created.value, created.rv);
      const got = await s.get(p + 'a');
      assert.ok(got);
      assert.equal(got.rv, created.rv);
      assert.deepEqual(got.value, created.value);
      assert.equal(await s.get(p + 'missing'), null);
      assert.equal(await s.currentRevision(), created.rv);
    }));

  it('create on an existing key fails with KeyExists and writes nothing', () =>
    withStorage(ctx, async (s, p) => {
      await s.create(p + 'a', obj('a', 1));
      const rv = await s.currentRevision();
      await rejectsWith(s.create(p + 'a', obj('a', 2)), 'KeyExists');
      assert.equal(await s.currentRevision(), rv);
      assert.equal(decode((await s.get(p + 'a'))!.value).data, 1);
    }));

  it('revisions are global and strictly increasing, also for concurrent writes', () =>
    withStorage(ctx, async (s, p) => {
      const a = await s.create(p + 'a', obj('a'));
      const b = await s.create(p + 'b', obj('b'));
      const u = await s.guaranteedUpdate(p + 'a', { tryUpdate: () => ({ object: obj('a', 'new') }) });
      assert.ok(a.rv < b.rv && b.rv < u.stored.rv);
      const many = await Promise.all(Array.from({ length: 50 }, (_, i) => s.create(`${p}c${i}`, obj(`c${i}`))));
      const rvs = many.map((m) => m.rv);
      assert.equal(new Set(rvs).size, 50, 'every write has its own revision');
      assert.ok(Math.min(...rvs) > u.stored.rv);
      assert.equal(await s.currentRevision(), Math.max(...rvs));
      for (const m of many) assertRvInside(m.value, m.rv);
    }));

  it('guaranteedUpdate writes the new state and hands tryUpdate the current one', () =>
    withStorage(ctx, async (s, p) => {
      const c = await s.create(p + 'a', obj('a', 1), 60);
      let seen: StoredObject | null = null;
      const res = await s.guaranteedUpdate(p + 'a', {
        tryUpdate: (cur) => {
          seen = cur;
          const o = decode(cur!.value);
          o.data = 2;
          return { object: o, ttlSeconds: 60 };
        },
      });
      assert.ok(seen);
      assert.equal((seen as StoredObject).rv, c.rv);
      assert.deepEqual((seen as StoredObject).value, c.value);
      assert.equal(res.created, false);
      assert.equal(res.noop, false);
      assert.ok(res.stored.rv > c.rv);
      assertRvInside(res.stored.value, res.stored.rv);
      const got = await s.get(p + 'a');
      assert.equal(got!.rv, res.stored.rv);
      assert.equal(decode(got!.value).data, 2);
    }));

  it('guaranteedUpdate on a missing key: KeyNotFound, or a create with ignoreNotFound', () =>
    withStorage(ctx, async (s, p) => {
      let calls = 0;
      await rejectsWith(s.guaranteedUpdate(p + 'a', { tryUpdate: () => (calls++, { object: obj('a') }) }), 'KeyNotFound');
      assert.equal(calls, 0);
      const res = await s.guaranteedUpdate(p + 'a', {
        ignoreNotFound: true,
        tryUpdate: (cur) => {
          assert.equal(cur, null);
          return { object: obj('a', 'made') };
        },
      });
      assert.equal(res.created, true);
      assert.equal(res.noop, false);
      assertRvInside(res.stored.value, res.stored.rv);
      assert.equal(decode((await s.get(p + 'a'))!.value).data, 'made');
    }));

  it('guaranteedUpdate with identical bytes is a no-op: same revision, nothing written, no watch event', () =>
    withStorage(ctx, async (s, p) => {
      const c = await s.create(p + 'a', obj('a', 1));
      const w = Recorder.start(s, p, await s.currentRevision());
      const res = await s.guaranteedUpdate(p + 'a', { tryUpdate: (cur) => ({ object: decode(cur!.value) }) });
      assert.equal(res.noop, true);
      assert.equal(res.created, false);
      assert.equal(res.stored.rv, c.rv);
      assert.deepEqual(res.stored.value, c.value);
      assert.equal(await s.currentRevision(), c.rv);
      const b = await s.create(p + 'b', obj('b'));
      await w.waitFor(1);
      assert.deepEqual(w.summary(), [['ADDED', p + 'b', b.rv]]);
      w.watch.stop();
    }));

  it('guaranteedUpdate retries when the object changes while an async tryUpdate runs', () =>
    withStorage(ctx, async (s, p) => {
      await s.create(p + 'a', obj('a', 0));
      const seen: unknown[] = [];
      const res = await s.guaranteedUpdate(p + 'a', {
        tryUpdate: async (cur) => {
          const o = decode(cur!.value);
          seen.push(o.data);
          if (seen.length === 1) {
            // A competing writer gets in while this callback is "thinking".
            await s.guaranteedUpdate(p + 'a', { tryUpdate: (c) => ({ object: { ...decode(c!.value), data: 'other' } }) });
          }
          o.data = `${String(o.data)}+mine`;
          return { object: o };
        },
      });
      assert.deepEqual(seen, [0, 'other']);
      assert.equal(decode(res.stored.value).data, 'other+mine');
      assert.equal(decode((await s.get(p + 'a'))!.value).data, 'other+mine');
    }));

  it('an error thrown by tryUpdate passes through unchanged and nothing is written', () =>
    withStorage(ctx, async (s, p) => {
      await s.create(p + 'a', obj('a'));
      const rv = await s.currentRevision();
      const boom = new Error('precondition failed');
      await assert.rejects(s.guaranteedUpdate(p + 'a', { tryUpdate: () => { throw boom; } }), (e) => e === boom);
      const asyncBoom = new TypeError('async refusal');
      await assert.rejects(s.guaranteedUpdate(p + 'a', { tryUpdate: async () => { throw asyncBoom; } }), (e) => e === asyncBoom);
      assert.equal(await s.currentRevision(), rv);
    }));

  it('delete returns the last state at the deletion revision; then the key is gone', () =>
    withStorage(ctx, async (s, p) => {
      const c = await s.create(p + 'a', obj('a', 'last'));
      const d = await s.delete(p + 'a');
      assert.ok(d.rv > c.rv);
      assert.equal(d.key, p + 'a');
      assertRvInside(d.value, d.rv);
      assert.equal(decode(d.value).data, 'last');
      assert.equal(await s.currentRevision(), d.rv);
      assert.equal(await s.get(p + 'a'), null);
      await rejectsWith(s.delete(p + 'a'), 'KeyNotFound');
      await rejectsWith(s.delete(p + 'never'), 'KeyNotFound');
      const again = await s.create(p + 'a', obj('a', 'reborn'));
      assert.ok(again.rv > d.rv);
    }));

  it('validateDeletion sees the current object and can abort; it is re-run after a concurrent change', () =>
    withStorage(ctx, async (s, p) => {
      const c = await s.create(p + 'a', obj('a', 1));
      const veto = new Error('uid mismatch');
      await assert.rejects(s.delete(p + 'a', { validateDeletion: (cur) => { assert.equal(cur.rv, c.rv); throw veto; } }), (e) => e === veto);
      assert.ok(await s.get(p + 'a'), 'still there after a vetoed delete');
      const seen: number[] = [];
      const d = await s.delete(p + 'a', {
        validateDeletion: async (cur) => {
          seen.push(cur.rv);
          if (seen.length === 1) await s.guaranteedUpdate(p + 'a', { tryUpdate: (x) => ({ object: { ...decode(x!.value), data: 2 } }) });
        },
      });
      assert.equal(seen.length, 2);
      assert.ok(seen[1]! > seen[0]!);
      assert.equal(decode(d.value).data, 2, 'the deleted state is the one validated last');
      assert.equal(await s.get(p + 'a'), null);
    }));

  it('count counts the objects under a prefix', () =>
    withStorage(ctx, async (s, p) => {
      assert.equal(await s.count(p), 0);
      for (const n of ['a', 'b', 'c']) await s.create(p + 'x/' + n, obj(n));
      await s.create(p + 'y/a', obj('a'));
      await s.delete(p + 'x/b');
      assert.equal(await s.count(p + 'x/'), 2);
      assert.equal(await s.count(p), 3);
    }));

  it('close flushes writes already issued; later calls fail', () =>
    withStorage(ctx, async (s, p) => {
      await s.readinessCheck();
      const pending = s.create(p + 'a', obj('a'));
      await s.close();
      const done = await pending;
      assert.ok(done.rv > 0);
      await assert.rejects(s.get(p + 'a'));
      await assert.rejects(s.readinessCheck());
      await assert.rejects(s.create(p + 'b', obj('b')));
    }));
}
