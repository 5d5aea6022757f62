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
import { Cacher } from './cacher.ts';
import { EVERYTHING, type ObjectAttrs, type Predicate } from './types.ts';

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

describe('Cacher', () => {
  let dir: string;
  let storage: Storage;
  let cacher: Cacher;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cacher-'));
    storage = openSqliteStorage({ path: join(dir, 'db'), codec: jsonCodec });
    for (let i = 0; i < 300; i++) await storage.create(`/o/ns${i % 3}/o${String(i).padStart(3, '0')}`, obj(`ns${i % 3}`, `o${i}`, i % 50 === 0 ? 'red' : 'blue'));
    cacher = new Cacher({ storage, prefix: '/o/', codec: jsonCodec, attrs, indexedFields: ['color'] });
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
});
