/** Conformance: TTL expiry. With `advanceClock` the clock is moved; otherwise the tests wait in real time. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Storage } from '../interface.ts';
import type { ConformanceBackend, ConformanceContext } from './conformance-helpers.ts';
import { Recorder, assertRvInside, decode, obj, sleep, waitUntil, withStorage } from './conformance-helpers.ts';

export function ttlTests(ctx: ConformanceContext): void {
  const grace = ctx.opts.ttlGraceMs ?? 3000;
  const ttl = (b: ConformanceBackend) => (b.advanceClock ? 3600 : (ctx.opts.realTimeTtlSeconds ?? 2));
  /** Lets `ms` pass on the backend's clock. */
  const pass = async (b: ConformanceBackend, ms: number) => (b.advanceClock ? b.advanceClock(ms) : sleep(ms));
  const gone = (s: Storage, key: string) => waitUntil(async () => (await s.get(key)) === null, grace, `${key} to expire`);

  it('an object disappears when its TTL has passed; watchers get DELETED with the last state', () =>
    withStorage(ctx, async (s, p, b) => {
      const t = ttl(b);
      const c = await s.create(p + 'short', obj('short', 'v'), t);
      await s.create(p + 'long', obj('long'), t * 10);
      await s.create(p + 'forever', obj('forever'));
      const w = Recorder.start(s, p, await s.currentRevision());
      await pass(b, t * 1000 + 100);
      await gone(s, p + 'short');
      const evs = await w.waitFor(1);
      assert.equal(evs[0]!.type, 'DELETED');
      assert.equal(evs[0]!.key, p + 'short');
      assert.ok(evs[0]!.rv > c.rv);
      assertRvInside(evs[0]!.value, evs[0]!.rv);
      assert.equal(decode(evs[0]!.value).data, 'v');
      assert.deepEqual(
        (await s.list(p)).items.map((i) => i.key),
        [p + 'forever', p + 'long'],
      );
      assert.equal(await s.count(p), 2);
      w.watch.stop();
    }));

  it('every write restarts the TTL clock', () =>
    withStorage(ctx, async (s, p, b) => {
      const t = ttl(b);
      await s.create(p + 'a', obj('a', 1), t);
      await pass(b, t * 600);
      await s.guaranteedUpdate(p + 'a', { tryUpdate: (c) => ({ object: { ...decode(c!.value), data: 2 }, ttlSeconds: t }) });
      await pass(b, t * 600);
      // 1.2 TTL after the create, 0.6 after the update: still there (with a fake clock, give the sweeper time to err).
      await sleep(b.advanceClock ? Math.min(grace, 300) : 0);
      assert.ok(await s.get(p + 'a'), 'the update restarted the clock');
      await pass(b, t * 600);
      await gone(s, p + 'a');
    }));
}
