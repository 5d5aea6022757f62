/** Conformance: list (prefix, order, paging, predicate, revisions) and compaction. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ListResult } from '../interface.ts';
import type { ConformanceContext } from './conformance-helpers.ts';
import { assertRvInside, decode, obj, rejectsWith, withStorage } from './conformance-helpers.ts';

const names = (p: string, r: ListResult) => r.items.map((i) => i.key.slice(p.length));

export function listTests(ctx: ConformanceContext): void {
  it('list returns exactly the keys under the prefix, in byte order, at the current revision', () =>
    withStorage(ctx, async (s, p) => {
      const keys = ['b', 'a.b', 'B', 'a-b', 'aa', 'a', 'a/x', 'Z9', '0'];
      for (const k of keys) await s.create(p + 'x/' + k, obj(k));
      await s.create(p + 'xy', obj('sibling'));
      await s.create(p + 'w/a', obj('other'));
      const r = await s.list(p + 'x/');
      const sorted = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      assert.deepEqual(names(p + 'x/', r), sorted);
      assert.equal(r.rv, await s.currentRevision());
      assert.equal(r.more, false);
      for (const i of r.items) assertRvInside(i.value, i.rv);
      assert.equal((await s.list(p)).items.length, keys.length + 2);
      assert.deepEqual((await s.list(p + 'nothing/')).items, []);
    }));

  it('limit, startKey, more and remaining page through a list', () =>
    withStorage(ctx, async (s, p) => {
      for (const k of ['e', 'c', 'a', 'd', 'b']) await s.create(p + k, obj(k));
      const r1 = await s.list(p, { limit: 2 });
      assert.deepEqual(names(p, r1), ['a', 'b']);
      assert.equal(r1.more, true);
      assert.equal(r1.remaining, 3);
      const r2 = await s.list(p, { limit: 2, startKey: r1.items[1]!.key + '\0', rv: r1.rv });
      assert.deepEqual(names(p, r2), ['c', 'd']);
      assert.equal(r2.more, true);
      assert.equal(r2.remaining, 1);
      assert.equal(r2.rv, r1.rv);
      const r3 = await s.list(p, { limit: 2, startKey: r2.items[1]!.key + '\0', rv: r1.rv });
      assert.deepEqual(names(p, r3), ['e']);
      assert.equal(r3.more, false);
      assert.equal(r3.remaining, 0);
      const exact = await s.list(p, { limit: 5 });
      assert.equal(exact.items.length, 5);
      assert.equal(exact.more, false);
      assert.deepEqual(names(p, await s.list(p, { startKey: p + 'c' })), ['c', 'd', 'e']);
      assert.equal((await s.list(p, { limit: 0 })).items.length, 5);
    }));

  it('a predicate filters before the limit; more says whether more matches follow', () =>
    withStorage(ctx, async (s, p) => {
      for (let i = 0; i < 10; i++) await s.create(`${p}k${i}`, obj(`k${i}`, i));
      const even = (o: { value: Buffer }) => (decode(o.value).data as number) % 2 === 0;
      const r1 = await s.list(p, { predicate: even, limit: 3 });
      assert.deepEqual(names(p, r1), ['k0', 'k2', 'k4']);
      assert.equal(r1.more, true);
      assert.equal(r1.remaining, undefined);
      const r2 = await s.list(p, { predicate: even, limit: 3, startKey: r1.items[2]!.key + '\0' });
      assert.deepEqual(names(p, r2), ['k6', 'k8']);
      assert.equal(r2.more, false);
      const big = (o: { value: Buffer }) => (decode(o.value).data as number) >= 8;
      const r3 = await s.list(p, { predicate: big, limit: 2 });
      assert.deepEqual(names(p, r3), ['k8', 'k9']);
      assert.equal(r3.more, false, 'nothing matching follows');
    }));

  it('list at an older revision shows the state of that revision', () =>
    withStorage(ctx, async (s, p) => {
      await s.create(p + 'a', obj('a', 'a1'));
      await s.create(p + 'b', obj('b', 'b1'));
      const r1 = await s.currentRevision();
      await s.guaranteedUpdate(p + 'a', { tryUpdate: (c) => ({ object: { ...decode(c!.value), data: 'a2' } }) });
      await s.delete(p + 'b');
      await s.create(p + 'c', obj('c', 'c1'));
      const old = await s.list(p, { rv: r1 });
      assert.equal(old.rv, r1);
      assert.deepEqual(names(p, old), ['a', 'b']);
      assert.deepEqual(old.items.map((i) => decode(i.value).data), ['a1', 'b1']);
      for (const i of old.items) assertRvInside(i.value, i.rv);
      const page = await s.list(p, { rv: r1, limit: 1 });
      assert.deepEqual(names(p, page), ['a']);
      assert.equal(page.more, true);
      assert.equal(page.remaining, 1);
      const now = await s.list(p);
      assert.deepEqual(names(p, now), ['a', 'c']);
      assert.deepEqual(now.items.map((i) => decode(i.value).data), ['a2', 'c1']);
      assert.deepEqual(names(p, await s.list(p, { rv: now.rv })), ['a', 'c']);
    }));

  it('list at a future revision fails with TooLargeResourceVersion', () =>
    withStorage(ctx, async (s, p) => {
      await s.create(p + 'a', obj('a'));
      const head = await s.currentRevision();
      const err = await rejectsWith(s.list(p, { rv: head + 1 }), 'TooLargeResourceVersion');
      assert.equal(err.rv, head + 1);
    }));

  it('compaction: reads at or below the compacted revision fail with Expired, later ones stay exact', () =>
    withStorage(ctx, async (s, p) => {
      await s.create(p + 'a', obj('a', 'a1'));
      await s.create(p + 'b', obj('b', 'b1'));
      await s.create(p + 'gone', obj('gone'));
      await s.guaranteedUpdate(p + 'a', { tryUpdate: (c) => ({ object: { ...decode(c!.value), data: 'a2' } }) });
      await s.delete(p + 'gone');
      const r1 = await s.currentRevision();
      await s.guaranteedUpdate(p + 'b', { tryUpdate: (c) => ({ object: { ...decode(c!.value), data: 'b2' } }) });
      await s.create(p + 'c', obj('c', 'c1'));
      const r2 = await s.currentRevision();
      await s.guaranteedUpdate(p + 'a', { tryUpdate: (c) => ({ object: { ...decode(c!.value), data: 'a3' } }) });

      await s.compact(r1);
      assert.equal(s.compactedRevision(), r1);
      await rejectsWith(s.list(p, { rv: r1 }), 'Expired');
      await rejectsWith(s.list(p, { rv: r1 - 1 }), 'Expired');
      const mid = await s.list(p, { rv: r2 });
      assert.deepEqual(names(p, mid), ['a', 'b', 'c']);
      assert.deepEqual(mid.items.map((i) => decode(i.value).data), ['a2', 'b2', 'c1']);
      const now = await s.list(p);
      assert.deepEqual(now.items.map((i) => decode(i.value).data), ['a3', 'b2', 'c1']);
      assert.equal(decode((await s.get(p + 'a'))!.value).data, 'a3');
      assert.equal(await s.currentRevision(), now.rv, 'compaction does not move the revision');
      await s.compact(r1 - 1);
      assert.equal(s.compactedRevision(), r1, 'an older compaction is a no-op');
      await s.compact(await s.currentRevision());
      assert.deepEqual(names(p, await s.list(p)), ['a', 'b', 'c']);
      await rejectsWith(s.compact((await s.currentRevision()) + 1), 'TooLargeResourceVersion');
    }));
}
