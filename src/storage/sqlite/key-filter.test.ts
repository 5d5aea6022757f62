import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { StorageError } from '../interface.ts';
import { jsonCodec } from '../testing/json-codec.ts';
import { BloomFilter, LiveKeyFilter } from './key-filter.ts';
import { openSqliteStorage } from './storage.ts';

const key = (i: number) => `/events/ns-${i % 7}/event-${i}.17a1b2c3d4e5f6`;
const tick = () => new Promise((r) => setImmediate(r));

describe('BloomFilter', () => {
  it('never forgets a key and rarely claims an unseen one', () => {
    const f = new BloomFilter(100_000);
    for (let i = 0; i < 100_000; i++) f.add(key(i));
    for (let i = 0; i < 100_000; i++) assert.ok(f.mayHave(key(i)));
    let fp = 0;
    for (let i = 100_000; i < 200_000; i++) if (f.mayHave(key(i))) fp++;
    assert.ok(fp < 1000, `false positives: ${fp} of 100000`);
    assert.equal(f.count, 100_000);
  });
});

describe('LiveKeyFilter', () => {
  it('is filled from the live keys and rebuilt in pages once deleted keys pile up, never losing a live key', async () => {
    const live = new Set<string>();
    for (let i = 0; i < 1000; i++) live.add(key(i));
    let pages = 0;
    const pager = (after: string, limit: number) => {
      pages++;
      return [...live].filter((k) => k > after).sort().slice(0, limit);
    };
    const f = new LiveKeyFilter(pager, live.size, { page: 100, minKeys: 1000 });
    for (const k of live) assert.ok(f.mayHave(k));
    // Churn: add and delete keys until the filter outgrows its size; live keys stay visible throughout.
    let n = 1000;
    while (!f.rebuilding) {
      const k = key(n++);
      live.add(k);
      f.noteAdded(k);
      live.delete(key(n - 500));
      f.noteDeleted();
    }
    pages = 0;
    const during = key(n++);
    live.add(during);
    f.noteAdded(during);
    while (f.rebuilding) {
      await tick();
      for (const k of live) assert.ok(f.mayHave(k), k);
    }
    assert.ok(pages > 1, 'rebuilt a page per turn');
    for (const k of live) assert.ok(f.mayHave(k), k);
    assert.ok(f.mayHave(during));
    let stale = 0;
    for (let i = 0; i < n - 600; i++) if (!live.has(key(i)) && f.mayHave(key(i))) stale++;
    assert.ok(stale < (n - 600) / 100, `deleted keys still reported: ${stale}`);
  });
});

describe('sqlite create with the key filter', () => {
  it('existing keys are refused after a restart, deleted keys can be created again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'key-filter-'));
    try {
      const path = join(dir, 'db.sqlite');
      const obj = (name: string) => ({ apiVersion: 'v1', kind: 'Thing', metadata: { name, namespace: 'ns' } });
      const s = openSqliteStorage({ path, codec: jsonCodec });
      await Promise.all(Array.from({ length: 50 }, (_, i) => s.create(`/t/ns/o${i}`, obj(`o${i}`))));
      await s.close();
      const again = openSqliteStorage({ path, codec: jsonCodec });
      for (let i = 0; i < 50; i++) {
        await assert.rejects(again.create(`/t/ns/o${i}`, obj(`o${i}`)), (e) => e instanceof StorageError && e.code === 'KeyExists');
      }
      await again.delete('/t/ns/o3');
      assert.equal((await again.create('/t/ns/o3', obj('o3'))).rv, 52);
      await assert.rejects(again.create('/t/ns/o3', obj('o3')), (e) => e instanceof StorageError && e.code === 'KeyExists');
      assert.equal((await again.create('/t/ns/new', obj('new'))).rv, 53);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
