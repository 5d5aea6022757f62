/** Storage and watch cache metrics move on real operations of a Cacher over a backend (memory and SQLite). */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { KubeObject } from '../apis/meta/v1/types.ts';
import { Registry } from '../metrics/registry.ts';
import { writeText } from '../metrics/text.ts';
import { Cacher } from './cacher/cacher.ts';
import { CacherMetrics } from './cacher/metrics.ts';
import { EVERYTHING, type ObjectAttrs, type Predicate } from './cacher/types.ts';
import { StorageError, type Storage } from './interface.ts';
import { MemoryStorage } from './memory/storage.ts';
import { StorageMetrics, registerStorageSize } from './metrics.ts';
import { openSqliteStorage } from './sqlite/index.ts';
import { jsonCodec } from './testing/json-codec.ts';

const G = 'group="events.cluster.io"';
const R = 'resource="events"';

function attrs(obj: KubeObject): ObjectAttrs {
  const m = obj.metadata;
  const reason = (obj as { reason?: string }).reason ?? '';
  return { namespace: m.namespace ?? '', name: m.name ?? '', labels: m.labels, uid: m.uid ?? '', field: (f) => (f === 'reason' ? reason : '') };
}

const ev = (name: string, reason = 'Started'): KubeObject => ({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'ns' }, reason }) as KubeObject;

async function setup(backend: Storage, indexedFields: string[] = []) {
  const registry = new Registry({ version: '1.36.0' });
  const cacher = new Cacher({
    storage: backend,
    prefix: '/events/',
    codec: jsonCodec,
    attrs,
    indexedFields,
    historyCapacity: 50,
    metrics: { group: 'events.cluster.io', resource: 'events', cache: new CacherMetrics(registry), storage: new StorageMetrics(registry) },
  });
  await cacher.start();
  const scrape = () => writeText(registry.collect());
  const value = (series: string): number => {
    const line = scrape()
      .split('\n')
      .find((l) => l.startsWith(series + ' '));
    return line === undefined ? NaN : Number(line.slice(series.length + 1));
  };
  return { registry, cacher, scrape, value };
}

const settle = () => new Promise((r) => setTimeout(r, 10));
const byReason = (reason: string): Predicate => ({ matches: (a) => a.field('reason') === reason, everything: false, exact: [{ field: 'reason', value: reason }] });

describe('storage metrics (kvstore_*, apiserver_storage_*)', () => {
  it('times and counts each backend call with upstream\'s operation, and only backend failures as errors', async () => {
    const { cacher, value } = await setup(new MemoryStorage({ codec: jsonCodec }));
    await cacher.create('/events/ns/a', ev('a'));
    await assert.rejects(cacher.create('/events/ns/a', ev('a')), (e: unknown) => e instanceof StorageError && e.code === 'KeyExists');
    await cacher.guaranteedUpdate('/events/ns/a', { tryUpdate: (cur) => ({ object: { ...(cur!.object ?? jsonCodec.decode(cur!.value)), reason: 'Changed' } as KubeObject }) });
    // Unchanged: a read and no write, as upstream sends no transaction.
    await cacher.guaranteedUpdate('/events/ns/a', { tryUpdate: (cur) => ({ object: jsonCodec.decode(cur!.value) }) });
    // The callback refusing is no storage request failing.
    await assert.rejects(cacher.guaranteedUpdate('/events/ns/a', { tryUpdate: () => Promise.reject(new Error('invalid')) }), /invalid/);
    await cacher.getObject('/events/ns/a', undefined);
    await cacher.count('/events/');
    await cacher.delete('/events/ns/a');
    await assert.rejects(cacher.delete('/events/ns/a'), (e: unknown) => e instanceof StorageError && e.code === 'KeyNotFound');
    const n = (op: string) => value(`kvstore_requests_total{${G},operation="${op}",${R}}`);
    assert.equal(n('create'), 2);
    assert.equal(n('update'), 1);
    // 3 updates + getObject + 2 deletes each read first.
    assert.equal(n('get'), 6);
    assert.equal(n('delete'), 1);
    assert.equal(n('listWithCount'), 1);
    assert.equal(value(`kvstore_request_duration_seconds_count{${G},operation="create",${R}}`), 2);
    assert.ok(Number.isNaN(value(`kvstore_request_errors_total{${G},operation="create",${R}}`)), 'KeyExists is an answer, not an error');
    await cacher.compact(await cacher.currentRevision());
    await assert.rejects(cacher.list('/events/', { rv: 1 }), (e: unknown) => e instanceof StorageError && e.code === 'Expired');
    assert.equal(value(`kvstore_request_errors_total{${G},operation="list",${R}}`), 1);
    assert.ok(n('getCurrentResourceVersion') >= 1);
    cacher.stop();
  });

  it('counts lists served by the backend (the cache\'s load and exact revisions it does not hold), not those from the cache', async () => {
    const backend = new MemoryStorage({ codec: jsonCodec });
    for (const [n, r] of [['a', 'Started'], ['b', 'Failed'], ['c', 'Started']] as const) await backend.create(`/events/ns/${n}`, ev(n, r));
    const { cacher, value } = await setup(backend);
    const list = (m: string) => value(`apiserver_storage_list_${m}{${G},${R}}`);
    assert.equal(list('total'), 1, 'the initial load');
    assert.equal(list('returned_objects_total'), 3);
    await cacher.create('/events/ns/d', ev('d', 'Failed'));
    await settle();
    await cacher.getList('/events/', { limit: 0, predicate: EVERYTHING });
    assert.equal(list('total'), 1, 'served from the cache');
    // Revision 2 (after a and b) is not the cache's: storage answers, filtering by the selector.
    const r = await cacher.getList('/events/', { resourceVersion: '2', resourceVersionMatch: 'Exact', limit: 0, predicate: byReason('Started') });
    assert.equal(r.items?.length, 1);
    assert.equal(list('total'), 2);
    assert.equal(list('fetched_objects_total'), 3 + 2);
    assert.equal(list('evaluated_objects_total'), 3 + 2);
    assert.equal(list('returned_objects_total'), 3 + 1);
    assert.equal(value(`apiserver_storage_events_received_total{${G},${R}}`), 1);
    cacher.stop();
  });

  it('apiserver_storage_size_bytes: the SQLite file as page_count × page_size, as sqlite-0; the deprecated one is hidden', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storage-size-'));
    const db = openSqliteStorage({ path: join(dir, 'x.db'), codec: jsonCodec });
    try {
      const registry = new Registry({ version: '1.36.0' });
      registerStorageSize(registry, db, join(dir, 'x.db'));
      const out = writeText(registry.collect());
      const bytes = Number(/^apiserver_storage_size_bytes\{storage_cluster_id="sqlite-0"\} (\d+)$/m.exec(out)?.[1]);
      assert.ok(bytes > 0 && bytes % 4096 === 0, out);
      assert.match(out, /^# HELP apiserver_storage_size_bytes \[STABLE\] Size of the storage database file physically allocated in bytes\.$/m);
      assert.match(out, /^# TYPE apiserver_storage_size_bytes gauge$/m);
      assert.doesNotMatch(out, /apiserver_storage_db_total_size_in_bytes/);
      assert.match(out, /^hidden_metrics_total 1$/m);
      const shown = new Registry({ version: '1.36.0', showHiddenMetricsForVersion: '1.35' });
      registerStorageSize(shown, db, join(dir, 'x.db'));
      assert.match(writeText(shown.collect()), new RegExp(`^apiserver_storage_db_total_size_in_bytes\\{endpoint="${join(dir, 'x.db').replace(/[.\\/]/g, '\\$&')}"\\} ${bytes}$`, 'm'));
      // Each further database (one per API group beside the events one) is the next index.
      const other = openSqliteStorage({ path: join(dir, 'y.db'), codec: jsonCodec });
      const two = new Registry({ version: '1.36.0' });
      registerStorageSize(two, db, join(dir, 'x.db'), { storage: other, endpoint: join(dir, 'y.db') });
      assert.match(writeText(two.collect()), /^apiserver_storage_size_bytes\{storage_cluster_id="sqlite-1"\} \d+$/m);
      await other.close();
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('watch cache metrics (apiserver_watch_cache_*, apiserver_cache_list_*)', () => {
  it('counts changes received and dispatched, the load, the revision, the capacity and the size of what it holds', async () => {
    const { cacher, value } = await setup(new MemoryStorage({ codec: jsonCodec }));
    assert.equal(value(`apiserver_watch_cache_initializations_total{${G},${R}}`), 1);
    await cacher.create('/events/ns/a', ev('a'));
    await cacher.create('/events/ns/b', ev('b'));
    await cacher.delete('/events/ns/a');
    await settle();
    assert.equal(value(`apiserver_watch_cache_events_received_total{${G},${R}}`), 3);
    assert.equal(value(`apiserver_watch_cache_events_dispatched_total{${G},${R}}`), 3);
    assert.equal(value(`apiserver_watch_cache_resource_version{${G},${R}}`), 3);
    assert.equal(value(`watch_cache_capacity{${G},${R}}`), 50);
    const b = (await cacher.getObject('/events/ns/b', '0'))!;
    assert.equal(value(`apiserver_resource_size_estimate_bytes{${G},${R}}`), b.value.length);
    cacher.stop();
  });

  it('counts lists from the cache by index, with what was fetched and returned, and consistent reads', async () => {
    const backend = new MemoryStorage({ codec: jsonCodec });
    for (let i = 0; i < 6; i++) await backend.create(`/events/ns/e${i}`, ev(`e${i}`, i < 2 ? 'Failed' : 'Started'));
    const { cacher, value } = await setup(backend, ['reason']);
    const whole = await cacher.getList('/events/', { limit: 0, predicate: EVERYTHING });
    assert.ok(whole.view);
    const page = await cacher.getList('/events/', { limit: 4, predicate: EVERYTHING });
    assert.ok(page.view);
    // A selector's matches are known once the list is walked.
    const failed = await cacher.getList('/events/', { limit: 0, predicate: byReason('Failed') });
    let n = 0;
    failed.view!.cursor().next(() => (n++, true));
    assert.equal(n, 2);
    assert.equal(value(`apiserver_cache_list_total{${G},index="",${R}}`), 2);
    assert.equal(value(`apiserver_cache_list_fetched_objects_total{${G},index="",${R}}`), 6 + 6);
    assert.equal(value(`apiserver_cache_list_total{${G},index="f:reason",${R}}`), 1);
    assert.equal(value(`apiserver_cache_list_fetched_objects_total{${G},index="f:reason",${R}}`), 2);
    assert.equal(value(`apiserver_cache_list_returned_objects_total{${G},${R}}`), 6 + 4 + 2);
    assert.equal(value(`apiserver_watch_cache_consistent_read_total{fallback="false",${G},${R},success="true"}`), 3);
    // A wait for a revision is observed even when the cache already has it.
    await cacher.getList('/events/', { resourceVersion: '6', limit: 0, predicate: EVERYTHING });
    assert.equal(value(`apiserver_watch_cache_read_wait_seconds_count{${G},${R}}`), 4);
    cacher.stop();
  });
});
