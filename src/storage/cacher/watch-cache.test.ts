/** The watch cache over real SQLite: lists (scan and index give the same answers), snapshots, watches. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { openSqliteStorage } from '../sqlite/index.ts';
import type { Storage } from '../interface.ts';
import { jsonCodec } from '../testing/json-codec.ts';
import { WatchCache, type CacheWatch } from './watch-cache.ts';
import { EVERYTHING, type CacheEvent, type ObjectAttrs, type Predicate } from './types.ts';

const attrs = (o: KubeObject): ObjectAttrs => {
  const fields: Record<string, string> = { color: String(o.color ?? ''), 'metadata.name': o.metadata.name ?? '' };
  return {
    namespace: o.metadata.namespace ?? '',
    name: o.metadata.name ?? '',
    labels: o.metadata.labels,
    uid: o.metadata.uid ?? '',
    field: (label) => fields[label] ?? '',
  };
};
const byColor = (value: string, useIndexHint: boolean): Predicate => ({
  everything: false,
  matches: (a) => a.field('color') === value,
  ...(useIndexHint ? { exact: [{ field: 'color', value }] } : {}),
});
const obj = (ns: string, name: string, color: string): KubeObject => ({ metadata: { name, namespace: ns, uid: `${ns}-${name}` }, color });

describe('WatchCache', () => {
  let dir: string;
  let storage: Storage;
  let cacher: WatchCache;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cacher-'));
    storage = openSqliteStorage({ path: join(dir, 'db'), codec: jsonCodec });
    for (let i = 0; i < 300; i++) await storage.create(`/o/ns${i % 3}/o${String(i).padStart(3, '0')}`, obj(`ns${i % 3}`, `o${i}`, i % 50 === 0 ? 'red' : 'blue'));
    cacher = new WatchCache({ storage, prefix: '/o/', codec: jsonCodec, attrs, indexedFields: ['color'] });
    await cacher.start();
  });
  after(async () => {
    cacher.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the same through the index as by scanning, with limits and start keys', () => {
    for (const prefix of ['/o/', '/o/ns0/', '/o/ns1/']) {
      for (const limit of [0, 1, 2, 5]) {
        const a = cacher.list(prefix, { predicate: byColor('red', true), limit })!;
        const b = cacher.list(prefix, { predicate: byColor('red', false), limit })!;
        assert.deepEqual(a.items.map((e) => e.key), b.items.map((e) => e.key), `${prefix} ${limit}`);
        assert.equal(a.more, b.more);
      }
    }
    const all = cacher.list('/o/', { predicate: byColor('red', true) })!;
    assert.equal(all.items.length, 6);
    const after2 = cacher.list('/o/', { predicate: byColor('red', true), startKey: all.items[1]!.key + '\0' })!;
    assert.deepEqual(after2.items.map((e) => e.key), all.items.slice(2).map((e) => e.key));
    assert.deepEqual(cacher.list('/o/', { predicate: byColor('green', true) })!.items, []);
  });

  it('keeps the index current through updates and deletes', async () => {
    await storage.guaranteedUpdate('/o/ns1/o001', { tryUpdate: () => ({ object: obj('ns1', 'o1', 'red') }) });
    await storage.delete('/o/ns0/o000');
    await cacher.waitForConsistentRead();
    const reds = cacher.list('/o/', { predicate: byColor('red', true) })!.items.map((e) => e.key);
    assert.ok(reds.includes('/o/ns1/o001'));
    assert.ok(!reds.includes('/o/ns0/o000'));
    assert.equal(cacher.list("/o/", { predicate: byColor("blue", true) })!.items.length, 300 - 6 - 1);
  });

  it('serves later pages of a list from its snapshot while the state moves on', async () => {
    const p1 = cacher.list('/o/ns2/', { predicate: EVERYTHING, limit: 10 })!;
    assert.equal(p1.remaining, 90);
    await storage.create('/o/ns2/o000a', obj('ns2', 'o000a', 'blue'));
    await cacher.waitForConsistentRead();
    const p2 = cacher.list('/o/ns2/', { rv: p1.rv, predicate: EVERYTHING, startKey: p1.items[9]!.key + '\0', limit: 200 })!;
    assert.equal(p1.items.length + p2.items.length, 100);
    assert.ok(!p2.items.some((e) => e.key === '/o/ns2/o000a'));
  });

  it('replays history to a watch resumed from a recent revision', async () => {
    const from = cacher.resourceVersion;
    await storage.create('/o/ns0/w1', obj('ns0', 'w1', 'red'));
    await storage.guaranteedUpdate('/o/ns0/w1', { tryUpdate: () => ({ object: obj('ns0', 'w1', 'blue') }) });
    await cacher.waitForConsistentRead();
    const seen: string[] = [];
    const w = cacher.watch('/o/ns0/', { fromRV: from, sendInitialEvents: false, predicate: byColor('red', true) }, { onEvent: (ev, t) => seen.push(`live ${t} ${ev.entry.key}`), onError: () => {} });
    for (const { ev, type } of w.replay ?? []) seen.push(`${type} ${ev.entry.key}`);
    await storage.create('/o/ns0/w2', obj('ns0', 'w2', 'red'));
    await cacher.waitForConsistentRead();
    w.stop();
    assert.deepEqual(seen, ['ADDED /o/ns0/w1', 'DELETED /o/ns0/w1', 'live ADDED /o/ns0/w2']);
  });

  it('keeps history within its byte budget; a resume older than that replays the storage log with the same events', async () => {
    const small = new WatchCache({ storage, prefix: '/o/', codec: jsonCodec, attrs, historyBytes: 8192 });
    await small.start();
    try {
      const from = small.resourceVersion;
      // Ten ~1 KB objects, each counted with its frame: only the last three fit in 8 KiB of history.
      for (let i = 0; i < 10; i++) await storage.create(`/o/ns2/big${i}`, { ...obj('ns2', `big${i}`, 'red'), pad: 'x'.repeat(1000) });
      await small.waitForConsistentRead();
      const collect = async (fromRV: number) => {
        const seen: string[] = [];
        const w = small.watch('/o/ns2/', { fromRV, sendInitialEvents: false, predicate: EVERYTHING }, { onEvent: (ev, t) => seen.push(`${t} ${ev.entry.key}`), onError: () => {} });
        for (const { ev, type } of w.replay ?? []) seen.push(`${type} ${ev.entry.key}`);
        await new Promise((r) => setTimeout(r, 200));
        w.stop();
        return { seen, fromHistory: w.replay !== undefined };
      };
      const old = await collect(from);
      assert.equal(old.fromHistory, false);
      assert.deepEqual(old.seen, Array.from({ length: 10 }, (_, i) => `ADDED /o/ns2/big${i}`));
      const recent = await collect(small.resourceVersion - 2);
      assert.equal(recent.fromHistory, true);
      assert.deepEqual(recent.seen, ['ADDED /o/ns2/big8', 'ADDED /o/ns2/big9']);
    } finally {
      small.stop();
    }
  });

  it('delivers live changes to grouped and selective watchers alike, and a stopped watcher gets no more', async () => {
    const seen = new Map<string, string[]>();
    const consumer = (name: string, onEv?: () => void) => {
      seen.set(name, []);
      return { onEvent: (ev: CacheEvent, t: string) => (seen.get(name)!.push(`${t} ${ev.entry.key}`), onEv?.()), onError: () => {} };
    };
    const start = { fromRV: cacher.resourceVersion, sendInitialEvents: false };
    const all = cacher.watch('/o/', { ...start, predicate: EVERYTHING }, consumer('all'));
    const ns1 = cacher.watch('/o/ns1/', { ...start, predicate: EVERYTHING }, consumer('ns1'));
    const red = cacher.watch('/o/ns1/', { ...start, predicate: byColor('red', false) }, consumer('red'));
    // Stops itself and the next member of the same group during its first event: neither hears of later changes.
    let once: CacheWatch | undefined;
    let second: CacheWatch | undefined;
    once = cacher.watch('/o/ns1/', { ...start, predicate: EVERYTHING }, consumer('once', () => (once!.stop(), second!.stop())));
    second = cacher.watch('/o/ns1/', { ...start, predicate: EVERYTHING }, consumer('second'));
    await storage.create('/o/ns1/g1', obj('ns1', 'g1', 'blue'));
    await storage.guaranteedUpdate('/o/ns1/g1', { tryUpdate: () => ({ object: obj('ns1', 'g1', 'red') }) });
    await storage.create('/o/ns2/g2', obj('ns2', 'g2', 'red'));
    await storage.delete('/o/ns1/g1');
    await cacher.waitForConsistentRead();
    for (const w of [all, ns1, red]) w.stop();
    await storage.create('/o/ns1/g3', obj('ns1', 'g3', 'red'));
    await cacher.waitForConsistentRead();
    assert.deepEqual(seen.get('all'), ['ADDED /o/ns1/g1', 'MODIFIED /o/ns1/g1', 'ADDED /o/ns2/g2', 'DELETED /o/ns1/g1']);
    assert.deepEqual(seen.get('ns1'), ['ADDED /o/ns1/g1', 'MODIFIED /o/ns1/g1', 'DELETED /o/ns1/g1']);
    assert.deepEqual(seen.get('red'), ['ADDED /o/ns1/g1', 'DELETED /o/ns1/g1']);
    assert.deepEqual(seen.get('once'), ['ADDED /o/ns1/g1']);
    assert.deepEqual(seen.get('second'), []);
  });

  it('starts a watch from a revision ahead of the cache only after that revision', async () => {
    const ahead = cacher.resourceVersion + 1;
    const seen: string[] = [];
    const w = cacher.watch('/o/', { fromRV: ahead, sendInitialEvents: false, predicate: EVERYTHING }, { onEvent: (ev) => seen.push(ev.entry.key), onError: () => {} });
    await storage.create('/o/ns0/f1', obj('ns0', 'f1', 'blue'));
    await storage.create('/o/ns0/f2', obj('ns0', 'f2', 'blue'));
    await cacher.waitForConsistentRead();
    w.stop();
    assert.deepEqual(seen, ['/o/ns0/f2']);
  });
});

/** An empty storage at revision 5 whose watches are driven by hand: each watch's handler, in order. */
function handWatchedStorage(): { fake: Storage; handlers: { onEvent(ev: unknown): void; onError(err: Error): void }[] } {
  const handlers: { onEvent(ev: unknown): void; onError(err: Error): void }[] = [];
  const fake = {
    list: async () => ({ items: [], rv: 5, more: false }),
    watch: (_p: string, _rv: number, h: (typeof handlers)[number]) => (handlers.push(h), { stop() {} }),
    compactedRevision: () => 0,
  } as unknown as Storage;
  return { fake, handlers };
}

describe('WatchCache storage watch failure', () => {
  it('ends every watcher, grouped or selective, once, and delivers nothing more to them', async () => {
    // A storage whose one watch we fail by hand (SQLite's watch does not fail on demand).
    const { fake, handlers } = handWatchedStorage();
    const c = new WatchCache({ storage: fake, prefix: '/o/', codec: jsonCodec, attrs });
    await c.start();
    const errors: string[] = [];
    const events: string[] = [];
    const consumer = (name: string) => ({ onEvent: () => events.push(name), onError: (e: Error) => errors.push(`${name} ${e.message}`) });
    const start = { fromRV: 5, sendInitialEvents: false };
    c.watch('/o/', { ...start, predicate: EVERYTHING }, consumer('a'));
    c.watch('/o/ns0/', { ...start, predicate: EVERYTHING }, consumer('b'));
    c.watch('/o/', { ...start, predicate: byColor('red', false) }, consumer('c'));
    handlers[0]!.onError(new Error('boom'));
    await c.start();
    handlers[1]!.onEvent({ type: 'ADDED', key: '/o/ns0/x', rv: 6, value: Buffer.from(JSON.stringify(obj('ns0', 'x', 'red'))) });
    assert.deepEqual(errors.sort(), ['a boom', 'b boom', 'c boom']);
    assert.deepEqual(events, []);
    c.stop();
  });
});

describe('WatchCache ADDED for a key it holds', () => {
  it('replaces the entry and reports the one it held, as for any other change', async () => {
    // Storages never send this (an ADDED follows the key's DELETED), but the one-descent insert must not be trusted blindly.
    const { fake, handlers } = handWatchedStorage();
    const c = new WatchCache({ storage: fake, prefix: '/o/', codec: jsonCodec, attrs, indexedFields: ['color'] });
    await c.start();
    const seen: { type: string; prev: string | undefined }[] = [];
    c.watch('/o/', { fromRV: 5, sendInitialEvents: false, predicate: EVERYTHING }, { onEvent: (ev: CacheEvent) => seen.push({ type: ev.type, prev: ev.prev?.attrs.field('color') }), onError: () => {} });
    const value = (color: string) => Buffer.from(JSON.stringify(obj('ns0', 'x', color)));
    handlers[0]!.onEvent({ type: 'ADDED', key: '/o/ns0/x', rv: 6, value: value('red') });
    handlers[0]!.onEvent({ type: 'ADDED', key: '/o/ns0/x', rv: 7, value: value('blue') });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(seen, [{ type: 'ADDED', prev: undefined }, { type: 'ADDED', prev: 'red' }]);
    assert.equal(c.size, 1);
    assert.deepEqual(c.list('/o/', { predicate: byColor('red', true) })!.items, []);
    assert.deepEqual(c.list('/o/', { predicate: byColor('blue', true) })!.items.map((e) => e.key), ['/o/ns0/x']);
    c.stop();
  });
});
