/** WatchCache.listView: a whole list walked in runs from one snapshot, by scan or through an index. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { openSqliteStorage } from '../sqlite/index.ts';
import type { Storage } from '../interface.ts';
import { jsonCodec } from '../testing/json-codec.ts';
import { WatchCache } from './watch-cache.ts';
import type { CacheCursor } from './list-cursor.ts';
import { EVERYTHING, type CacheEntry, type ObjectAttrs, type Predicate } from './types.ts';

// Selector attributes offered both as a map and as a lookup, so the test does not depend on which one the cache reads.
const attrs = (o: KubeObject): ObjectAttrs => {
  const fields: Record<string, string> = { color: String(o.color ?? '') };
  return { namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '', labels: undefined, uid: '', fields, field: (l: string) => fields[l] ?? '' } as unknown as ObjectAttrs;
};
const colorOf = (e: CacheEntry): string => (JSON.parse(e.value.toString('utf8')) as { color: string }).color;
const byColor = (value: string, indexed: boolean): Predicate => ({
  everything: false,
  matches: (a) => (a as unknown as { name: string }).name.endsWith(value === 'red' ? '0' : 'never'),
  ...(indexed ? { exact: [{ field: 'color', value }] } : {}),
});
const obj = (ns: string, name: string, color: string): KubeObject => ({ metadata: { name, namespace: ns }, color });

/** Every key of a cursor, taking `run` entries per call to next. */
function drain(c: CacheCursor, run: number): string[] {
  const keys: string[] = [];
  let n = 0;
  let more = true;
  while (more) {
    n = 0;
    more = c.next((e) => {
      keys.push(e.key);
      return ++n < run;
    });
  }
  return keys;
}

describe('WatchCache.listView', () => {
  let dir: string;
  let storage: Storage;
  let cacher: WatchCache;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listview-'));
    storage = openSqliteStorage({ path: join(dir, 'db'), codec: jsonCodec });
    // Names ending in 0 are red (one in ten); the rest blue.
    for (let i = 0; i < 200; i++) await storage.create(`/o/ns${i % 2}/o${String(i).padStart(3, '0')}`, obj(`ns${i % 2}`, `o${i}`, i % 10 === 0 ? 'red' : 'blue'));
    cacher = new WatchCache({ storage, prefix: '/o/', codec: jsonCodec, attrs, indexedFields: ['color'] });
    await cacher.start();
  });
  after(async () => {
    cacher.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('walks the same keys as list(), whatever the run length', () => {
    const want = cacher.list('/o/ns1/', { predicate: EVERYTHING })!.items.map((e) => e.key);
    const view = cacher.listView('/o/ns1/', { predicate: EVERYTHING })!;
    assert.equal(view.rv, cacher.resourceVersion);
    for (const run of [1, 7, 1000]) assert.deepEqual(drain(view.cursor(), run), want, `run ${run}`);
    assert.equal(want.length, 100);
  });

  it('stays on its snapshot while the cache changes between runs', async () => {
    const view = cacher.listView('/o/ns0/', { predicate: EVERYTHING })!;
    const cursor = view.cursor();
    const first: string[] = [];
    cursor.next((e) => (first.push(e.key), first.length < 10));
    await storage.create('/o/ns0/o000a', obj('ns0', 'o000a', 'blue')); // sorts right after the first key: not seen
    await storage.delete('/o/ns0/o198');
    await storage.create('/o/ns0/zzz', obj('ns0', 'zzz', 'blue'));
    await cacher.waitUntilFresh(await storage.currentRevision());
    const rest = drain(cursor, 3);
    const keys = [...first, ...rest];
    assert.equal(keys.length, 100);
    assert.ok(keys.includes('/o/ns0/o198'));
    assert.ok(!keys.includes('/o/ns0/o000a') && !keys.includes('/o/ns0/zzz'));
    assert.equal(cacher.listView('/o/ns0/', { predicate: EVERYTHING })!.cursor().next(() => true), false);
  });

  it('filters by predicate, by scan and through the index alike, from a start key', () => {
    const scan = drain(cacher.listView('/o/', { predicate: byColor('red', false) })!.cursor(), 4);
    const indexed = drain(cacher.listView('/o/', { predicate: byColor('red', true) })!.cursor(), 4);
    assert.deepEqual(indexed, scan);
    assert.ok(scan.length >= 10 && scan.every((k) => k.endsWith('0')));
    const from = scan[3]! + '\0';
    assert.deepEqual(drain(cacher.listView('/o/', { predicate: byColor('red', true), startKey: from })!.cursor(), 2), scan.slice(4));
    const entries: CacheEntry[] = [];
    cacher.listView('/o/', { predicate: byColor('red', true) })!.cursor().next((e) => (entries.push(e), true));
    assert.ok(entries.every((e) => colorOf(e) === 'red'));
  });

  it('serves a kept snapshot revision and answers undefined for one it does not keep', () => {
    const page = cacher.list('/o/', { predicate: EVERYTHING, limit: 5 })!; // keeps a snapshot at this revision
    assert.ok(page.more);
    const view = cacher.listView('/o/', { predicate: EVERYTHING, rv: page.rv, startKey: page.items[4]!.key + '\0' })!;
    assert.equal(view.rv, page.rv);
    assert.deepEqual(drain(view.cursor(), 50).slice(0, 3), cacher.list('/o/', { predicate: EVERYTHING, rv: page.rv, startKey: page.items[4]!.key + '\0', limit: 3 })!.items.map((e) => e.key));
    assert.equal(cacher.listView('/o/', { predicate: EVERYTHING, rv: 1 }), undefined);
  });
});
