/** Conformance: watch (history replay, live delivery, deletes, compaction, stop). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { StorageError } from '../interface.ts';
import type { ConformanceContext } from './conformance-helpers.ts';
import { Recorder, assertRvInside, decode, obj, sleep, waitUntil, withStorage } from './conformance-helpers.ts';

export function watchTests(ctx: ConformanceContext): void {
  it('a watch from the current revision delivers live changes under its prefix, in order', () =>
    withStorage(ctx, async (s, p) => {
      const w = Recorder.start(s, p + 'x/', await s.currentRevision());
      const a = await s.create(p + 'x/a', obj('a', 1));
      await s.create(p + 'y/a', obj('other prefix'));
      const u = await s.guaranteedUpdate(p + 'x/a', { tryUpdate: (c) => ({ object: { ...decode(c!.value), data: 2 } }) });
      const d = await s.delete(p + 'x/a');
      const evs = await w.waitFor(3);
      assert.deepEqual(w.summary(), [
        ['ADDED', p + 'x/a', a.rv],
        ['MODIFIED', p + 'x/a', u.stored.rv],
        ['DELETED', p + 'x/a', d.rv],
      ]);
      assert.deepEqual(evs[0]!.value, a.value);
      assert.deepEqual(evs[1]!.value, u.stored.value);
      if (evs[1]!.prevValue) assert.deepEqual(evs[1]!.prevValue, a.value);
      // DELETED carries the last state, stamped with the deletion revision.
      assertRvInside(evs[2]!.value, d.rv);
      assert.equal(decode(evs[2]!.value).data, 2);
      if (evs[2]!.prevValue) assert.deepEqual(evs[2]!.prevValue, u.stored.value);
      await sleep(50);
      assert.equal(w.events.length, 3, 'nothing else arrives');
      w.watch.stop();
    }));

  it('a watch hears of revisions written under other prefixes (progress), after every change of its own', () =>
    withStorage(ctx, async (s, p) => {
      const progress: number[] = [];
      const seen: number[] = [];
      const w = s.watch(p + 'x/', await s.currentRevision(), { onEvent: (ev) => seen.push(ev.rv), onProgress: (rv) => progress.push(rv), onError: () => {} });
      await sleep(20);
      const a = await s.create(p + 'x/a', obj('a'));
      const b = await s.create(p + 'y/b', obj('b'));
      await waitUntil(() => progress.includes(b.rv), 3000, 'progress to the other prefix\'s revision');
      assert.deepEqual(seen, [a.rv]);
      assert.ok(progress.every((rv) => rv > a.rv || rv < a.rv), 'progress never repeats an event revision');
      w.stop();
    }));

  it('a watch from 0 replays the whole history, then continues live', () =>
    withStorage(ctx, async (s, p) => {
      const a = await s.create(p + 'a', obj('a', 1));
      const b = await s.create(p + 'b', obj('b'));
      const u = await s.guaranteedUpdate(p + 'a', { tryUpdate: (c) => ({ object: { ...decode(c!.value), data: 2 } }) });
      const d = await s.delete(p + 'b');
      const w = Recorder.start(s, p, 0);
      await w.waitFor(4);
      const c = await s.create(p + 'c', obj('c'));
      await w.waitFor(5);
      assert.deepEqual(w.summary(), [
        ['ADDED', p + 'a', a.rv],
        ['ADDED', p + 'b', b.rv],
        ['MODIFIED', p + 'a', u.stored.rv],
        ['DELETED', p + 'b', d.rv],
        ['ADDED', p + 'c', c.rv],
      ]);
      assertRvInside(w.events[3]!.value, d.rv);
      assert.deepEqual(w.events[2]!.value, u.stored.value);
      w.watch.stop();
    }));

  it('a watch from a middle revision delivers only the later changes', () =>
    withStorage(ctx, async (s, p) => {
      await s.create(p + 'a', obj('a'));
      const mid = (await s.create(p + 'b', obj('b'))).rv;
      const c = await s.create(p + 'c', obj('c'));
      const w = Recorder.start(s, p, mid);
      await w.waitFor(1);
      const d = await s.delete(p + 'a');
      await w.waitFor(2);
      assert.deepEqual(w.summary(), [
        ['ADDED', p + 'c', c.rv],
        ['DELETED', p + 'a', d.rv],
      ]);
      w.watch.stop();
    }));

  it('a watch that starts while writes are in flight sees every change exactly once, in order', () =>
    withStorage(ctx, async (s, p) => {
      const total = 1500;
      const rvs: number[] = [];
      let started: Recorder | undefined;
      // 16 writers; the watch starts from 0 after a third of the writes, so replay and live overlap.
      let next = 0;
      const writer = async () => {
        while (next < total) {
          const i = next++;
          rvs.push((await s.create(`${p}k${String(i).padStart(5, '0')}`, obj(`k${i}`))).rv);
          if (rvs.length === Math.floor(total / 3)) started = Recorder.start(s, p, 0);
        }
      };
      await Promise.all(Array.from({ length: 16 }, writer));
      const w = started!;
      await w.waitFor(total, 15000);
      await sleep(50);
      const got = w.events.map((e) => e.rv);
      assert.equal(got.length, total, 'no duplicates');
      for (let i = 1; i < got.length; i++) assert.ok(got[i]! > got[i - 1]!, `revision order at ${i}`);
      assert.deepEqual([...got].sort((x, y) => x - y), [...rvs].sort((x, y) => x - y), 'no gaps');
      w.watch.stop();
    }));

  it('a watch from below the compacted revision ends with Expired and no events', () =>
    withStorage(ctx, async (s, p) => {
      const first = await s.create(p + 'a', obj('a'));
      await s.guaranteedUpdate(p + 'a', { tryUpdate: (c) => ({ object: { ...decode(c!.value), data: 2 } }) });
      const head = (await s.create(p + 'b', obj('b'))).rv;
      await s.compact(head);
      const w = Recorder.start(s, p, first.rv);
      const err = await w.waitForError();
      assert.ok(err instanceof StorageError);
      assert.equal(err.code, 'Expired');
      assert.equal(w.events.length, 0);
      // From the compacted revision itself nothing is missing.
      const ok = Recorder.start(s, p, head);
      const c = await s.create(p + 'c', obj('c'));
      await ok.waitFor(1);
      assert.deepEqual(ok.summary(), [['ADDED', p + 'c', c.rv]]);
      assert.equal(ok.error, undefined);
      ok.watch.stop();
    }));

  it('stop ends delivery', () =>
    withStorage(ctx, async (s, p) => {
      const w = Recorder.start(s, p, await s.currentRevision());
      await s.create(p + 'a', obj('a'));
      await w.waitFor(1);
      w.watch.stop();
      await s.create(p + 'b', obj('b'));
      await sleep(50);
      assert.equal(w.events.length, 1);
      const early = Recorder.start(s, p, 0);
      early.watch.stop();
      await sleep(50);
      assert.equal(early.events.length, 0, 'a watch stopped before its replay started gets nothing');
      assert.equal(early.error, undefined);
    }));
}
