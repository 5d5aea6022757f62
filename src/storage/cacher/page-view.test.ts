/**
 * WatchCache.pageView: an unfiltered page found from ranks, streamed like a whole list, must be the page `list` collects
 * (items, more, remaining, the key the continue token starts after) and keep the same snapshot for later pages.
 */
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
import { EVERYTHING, type ObjectAttrs } from './types.ts';

const attrs = (o: KubeObject): ObjectAttrs => ({
  namespace: o.metadata.namespace ?? '',
  name: o.metadata.name ?? '',
  labels: undefined,
  uid: '',
  field: () => '',
});
const obj = (ns: string, name: string): KubeObject => ({ metadata: { name, namespace: ns } });

/** Every key of a cursor, taking `run` entries per call to next (as the writer does, one chunk at a time). */
function drain(c: CacheCursor, run = 7): string[] {
  const keys: string[] = [];
  let more = true;
  while (more) {
    let n = 0;
    more = c.next((e) => {
      keys.push(e.key);
      return ++n < run;
    });
  }
  return keys;
}

describe('WatchCache.pageView', () => {
  let dir: string;
  let storage: Storage;
  let cacher: WatchCache;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pageview-'));
    storage = openSqliteStorage({ path: join(dir, 'db'), codec: jsonCodec });
    // ns0: 150, ns1: 75, ns2: 75 objects; '/o/ns10/' sorts between ns1 and ns2 and is empty.
    for (let i = 0; i < 300; i++) {
      const ns = `ns${i % 4 === 3 ? 2 : i % 4 === 2 ? 1 : 0}`;
      await storage.create(`/o/${ns}/o${String(i).padStart(3, '0')}`, obj(ns, `o${i}`));
    }
    cacher = new WatchCache({ storage, prefix: '/o/', codec: jsonCodec, attrs });
    await cacher.start();
  });
  after(async () => {
    cacher.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the page list collects, for every prefix, limit and start key', () => {
    for (const prefix of ['/o/', '/o/ns0/', '/o/ns1/', '/o/ns2/', '/o/ns10/', '/o/nsX/']) {
      const all = cacher.list(prefix, { predicate: EVERYTHING })!.items.map((e) => e.key);
      const starts = [undefined, prefix, all[0], all[1] && all[1] + '\0', all[all.length - 1], all[all.length - 1] && all[all.length - 1] + '\0', prefix + 'o1', '/', '/p/'];
      for (const limit of [1, 2, 7, 74, 75, 76, 149, 150, 151, 500]) {
        for (const startKey of starts) {
          const opts = { predicate: EVERYTHING, limit, ...(startKey ? { startKey } : {}) };
          const want = cacher.list(prefix, opts)!;
          const got = cacher.pageView(prefix, opts)!;
          const what = `${prefix} limit=${limit} start=${JSON.stringify(startKey)}`;
          assert.deepEqual(drain(got.cursor()), want.items.map((e) => e.key), what);
          assert.equal(got.rv, want.rv, what);
          assert.equal(got.more, want.more, what);
          assert.equal(got.remaining, want.remaining ?? 0, what);
          assert.equal(got.lastKey, want.more ? want.items[want.items.length - 1]!.key : undefined, what);
        }
      }
    }
  });

  it('walks a whole prefix page by page to the same keys as one list', () => {
    const all = cacher.list('/o/', { predicate: EVERYTHING })!.items.map((e) => e.key);
    const seen: string[] = [];
    let startKey: string | undefined;
    let rv: number | undefined;
    for (;;) {
      const p = cacher.pageView('/o/', { predicate: EVERYTHING, limit: 40, ...(startKey ? { startKey } : {}), ...(rv !== undefined ? { rv } : {}) })!;
      seen.push(...drain(p.cursor()));
      assert.equal(p.remaining, all.length - seen.length);
      if (!p.more) break;
      startKey = p.lastKey! + '\0';
      rv = p.rv;
    }
    assert.deepEqual(seen, all);
  });

  it('leaves filtered pages to list, and answers nothing for a revision it does not keep', () => {
    const red = { everything: false, matches: () => true };
    assert.equal(cacher.pageView('/o/', { predicate: red, limit: 5 }), undefined);
    assert.equal(cacher.pageView('/o/', { predicate: EVERYTHING, limit: 5, rv: cacher.resourceVersion - 1 }), undefined);
  });

  it('streams a page, and later pages, from the snapshot of its revision while the state moves on', async () => {
    const first = cacher.pageView('/o/ns1/', { predicate: EVERYTHING, limit: 10 })!;
    const cursor = first.cursor();
    const head: string[] = [];
    cursor.next((e) => (head.push(e.key), head.length < 3));
    // Writes between two runs of one page's walk, and between pages: neither shows up.
    await storage.create('/o/ns1/o000a', obj('ns1', 'o000a'));
    await storage.delete('/o/ns1/o010');
    await cacher.waitForConsistentRead();
    assert.notEqual(cacher.resourceVersion, first.rv);
    const page1 = [...head, ...drain(cursor)];
    assert.equal(page1.length, 10);
    assert.ok(!page1.includes('/o/ns1/o000a') && page1.includes('/o/ns1/o010'));
    const second = cacher.pageView('/o/ns1/', { predicate: EVERYTHING, limit: 100, rv: first.rv, startKey: first.lastKey! + '\0' })!;
    assert.equal(second.more, false);
    assert.equal(second.remaining, 0);
    const page2 = drain(second.cursor());
    assert.equal(page1.length + page2.length, 75);
    // The last page of the current state is a snapshot as well.
    const last = cacher.pageView('/o/ns1/', { predicate: EVERYTHING, limit: 100 })!;
    const lastCursor = last.cursor();
    await storage.create('/o/ns1/zzz', obj('ns1', 'zzz'));
    await cacher.waitForConsistentRead();
    const keys = drain(lastCursor);
    assert.equal(keys.length, 75);
    assert.ok(!keys.includes('/o/ns1/zzz'));
  });
});
