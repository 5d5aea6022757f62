/** The cacher is a Storage: the shared conformance suite runs against it, and its read rules are checked here. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { StorageError, type Storage } from '../interface.ts';
import { MemoryStorage } from '../memory/storage.ts';
import { runStorageConformance } from '../conformance.ts';
import { jsonCodec } from '../testing/json-codec.ts';
import { ScramblingTransformer } from '../testing/scrambling-transformer.ts';
import { StatusError } from '../../apimachinery/errors.ts';
import { Cacher, WATCH_LIST_UNSUPPORTED } from './cacher.ts';
import { EVERYTHING, type ObjectAttrs, type Predicate } from './types.ts';

function attrs(obj: KubeObject): ObjectAttrs {
  const m = obj.metadata;
  return { namespace: m.namespace ?? '', name: m.name ?? '', labels: m.labels, uid: m.uid ?? '', field: () => '' };
}

function cacherOver(backend: MemoryStorage, prefix = '/'): Cacher {
  return new Cacher({ storage: backend, prefix, codec: jsonCodec, attrs });
}

for (const [name, scramble] of [
  ['cacher over memory', false],
  ['cacher over memory, scrambling transformer', true],
] as const) {
  runStorageConformance(name, async () => {
    let clock = Date.now();
    const backend = new MemoryStorage({ codec: jsonCodec, now: () => clock, sweepIntervalMs: 20, ...(scramble ? { transformer: new ScramblingTransformer() } : {}) });
    const cacher = cacherOver(backend);
    await cacher.start();
    return {
      storage: cacher,
      cleanup: async () => {
        await cacher.close();
        await backend.close();
      },
      advanceClock: (ms) => void (clock += ms),
    };
  });
}

const obj = (name: string, data: unknown = 'x'): KubeObject => ({ apiVersion: 'v1', kind: 'Thing', metadata: { name, namespace: 'ns' }, data }) as KubeObject;
const names = (items: readonly { value: Buffer }[]) => items.map((i) => jsonCodec.decode(i.value).metadata.name);
const only = (name: string): Predicate => ({ everything: false, matches: (a) => a.name === name });

describe('cacher read rules', () => {
  let backend: MemoryStorage;
  let cacher: Cacher;
  before(async () => {
    backend = new MemoryStorage({ codec: jsonCodec });
    cacher = cacherOver(backend, '/things/');
    await cacher.start();
  });
  after(async () => {
    cacher.stop();
    await backend.close();
  });

  it('a list without resourceVersion is consistent: it sees every write committed before it, even one made past the cacher', async () => {
    await backend.create('/things/ns/direct', obj('direct'));
    const r = await cacher.getList('/things/', { limit: 0, predicate: EVERYTHING });
    assert.ok(r.view);
    assert.ok(names([...collect(r.view)]).includes('direct'));
    assert.equal(r.rv, await backend.currentRevision());
  });

  it('not older than N waits until the cache has seen N', async () => {
    const c = await cacher.create('/things/ns/a', obj('a'));
    const got = await cacher.getObject('/things/ns/a', String(c.rv));
    assert.equal(got?.rv, c.rv);
    const r = await cacher.getList('/things/', { resourceVersion: String(c.rv), resourceVersionMatch: 'NotOlderThan', limit: 0, predicate: EVERYTHING });
    assert.ok(r.rv >= c.rv);
    let late = false;
    const pending = cacher.getObject('/things/ns/late', String(c.rv + 1)).then((o) => ((late = true), o));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(late, false, 'a revision the cache has not seen is waited for');
    await cacher.create('/things/ns/late', obj('late'));
    assert.equal(jsonCodec.decode((await pending)!.value).metadata.name, 'late');
  });

  it('a get without resourceVersion reads the backend; "0" reads the cache', async () => {
    const c = await cacher.create('/things/ns/g', obj('g', 1));
    assert.equal(jsonCodec.decode((await cacher.getObject('/things/ns/g', undefined))!.value).data, 1);
    assert.equal((await cacher.getObject('/things/ns/g', '0'))?.rv ?? c.rv, c.rv);
  });

  it('exact N: the current state or a kept page snapshot from the cache, an older revision from the backend, Expired once compacted', async () => {
    await cacher.create('/things/ns/e1', obj('e1', 1));
    const before = await cacher.currentRevision();
    await cacher.guaranteedUpdate('/things/ns/e1', { tryUpdate: () => ({ object: obj('e1', 2) }) });
    await cacher.getList('/things/', { limit: 0, predicate: EVERYTHING }); // the cache has caught up
    const r = await cacher.getList('/things/', { resourceVersion: String(before), resourceVersionMatch: 'Exact', limit: 0, predicate: only('e1') });
    assert.equal(r.view, undefined, 'an old revision the cache does not hold comes from the backend');
    assert.equal(r.rv, before);
    assert.equal(jsonCodec.decode(r.items![0]!.value).data, 1);

    const first = await cacher.getList('/things/', { limit: 1, predicate: EVERYTHING });
    assert.ok(first.more && first.lastKey);
    await cacher.create('/things/ns/zz', obj('zz'));
    const next = await cacher.getList('/things/', { limit: 100, continueFrom: { startKey: first.lastKey + '\0', rv: first.rv }, predicate: EVERYTHING });
    assert.ok(next.view, 'the continue is served from the snapshot kept for its revision');
    assert.equal(next.rv, first.rv);
    assert.ok(!names([...collect(next.view)]).includes('zz'), 'the page shows the list revision, not later writes');

    await backend.compact(await backend.currentRevision());
    await assert.rejects(
      cacher.getList('/things/', { resourceVersion: String(before), resourceVersionMatch: 'Exact', limit: 0, predicate: EVERYTHING }),
      (e) => e instanceof StorageError && e.code === 'Expired',
    );
  });

  it('a watch resumes from the cache history, with the request\'s resourceVersion', async () => {
    const a = await cacher.create('/things/ns/w1', obj('w1'));
    await cacher.create('/things/ns/w2', obj('w2'));
    const seen: string[] = [];
    const w = await cacher.watchObjects('/things/ns/', { resourceVersion: String(a.rv), sendInitialEvents: false, predicate: EVERYTHING }, {
      onEvent: (ev, type) => seen.push(`${type} ${ev.entry.attrs.name}`),
      onError: (e) => assert.fail(e),
    });
    for (const { ev, type } of w.replay ?? []) seen.push(`${type} ${ev.entry.attrs.name}`);
    await cacher.create('/things/ns/w3', obj('w3'));
    await cacher.getList('/things/', { limit: 0, predicate: EVERYTHING });
    w.stop();
    assert.deepEqual(seen, ['ADDED w2', 'ADDED w3']);
  });
});

function* collect(view: { cursor(): { next(visit: (e: { value: Buffer }) => boolean): boolean } }): Generator<{ value: Buffer }> {
  const out: { value: Buffer }[] = [];
  view.cursor().next((e) => (out.push(e), true));
  yield* out;
}

/**
 * A backend that cannot vouch for its watch progress (old etcd) and whose watch has stalled: whatever the cache
 * holds, a consistent read must still see every committed write, so it has to be the backend's answer.
 */
describe('cacher over a backend without reliable progress (old etcd): consistent reads go to the backend', () => {
  let backend: MemoryStorage;
  let cacher: Cacher;
  let backendLists = 0;
  let backendGets = 0;
  before(async () => {
    backend = new MemoryStorage({ codec: jsonCodec });
    const stalled: Storage = {
      name: 'stalled',
      consistentReadsFromCache: false,
      get: (k) => (backendGets++, backend.get(k)),
      list: (p, o) => (backendLists++, backend.list(p, o)),
      create: (k, o, t) => backend.create(k, o, t),
      guaranteedUpdate: (k, o) => backend.guaranteedUpdate(k, o),
      delete: (k, o) => backend.delete(k, o),
      // The watch never delivers: the cache stays at the revision it listed at start.
      watch: () => ({ stop() {} }),
      count: (p) => backend.count(p),
      currentRevision: () => backend.currentRevision(),
      compact: (rv) => backend.compact(rv),
      compactedRevision: () => backend.compactedRevision(),
      readinessCheck: () => backend.readinessCheck(),
      close: () => backend.close(),
    };
    cacher = new Cacher({ storage: stalled, prefix: '/things/', codec: jsonCodec, attrs });
    await cacher.start();
  });
  after(async () => {
    cacher.stop();
    await backend.close();
  });

  it('lists and gets without resourceVersion, first pages and revision-less continues are read from the backend', async () => {
    assert.equal(cacher.consistentReadsFromCache, false);
    const a = await cacher.create('/things/ns/a', obj('a'));
    await cacher.create('/things/ns/b', obj('b'));
    assert.equal(cacher.resourceVersion < a.rv, true, 'the cache has not seen the writes');

    backendLists = 0;
    const all = await cacher.getList('/things/', { limit: 0, predicate: EVERYTHING });
    assert.deepEqual(names(all.items!), ['a', 'b']);
    assert.equal(all.rv, await backend.currentRevision());
    const page = await cacher.getList('/things/', { limit: 1, predicate: EVERYTHING });
    assert.deepEqual([names(page.items!), page.more, page.lastKey], [['a'], true, '/things/ns/a']);
    const rest = await cacher.getList('/things/', { limit: 1, continueFrom: { startKey: '/things/ns/a\0', rv: 0 }, predicate: EVERYTHING });
    assert.deepEqual(names(rest.items!), ['b']);
    const filtered = await cacher.getList('/things/', { limit: 0, predicate: only('b') });
    assert.deepEqual(names(filtered.items!), ['b']);
    assert.equal(backendLists, 4);

    const l = await cacher.list('/things/');
    assert.deepEqual(names(l.items), ['a', 'b']);
    backendGets = 0;
    assert.equal(jsonCodec.decode((await cacher.get('/things/ns/b'))!.value).metadata.name, 'b');
    assert.equal(backendGets, 1);
  });

  it('reads at a resourceVersion the cache holds still come from the cache', async () => {
    backendLists = 0;
    const r = await cacher.getList('/things/', { resourceVersion: '0', limit: 0, predicate: EVERYTHING });
    assert.ok(r.view);
    assert.equal(backendLists, 0);
  });

  it('refuses a watch-list request with upstream\'s error event; initial events without bookmarks still wait for the cache', async () => {
    const errors: unknown[] = [];
    const w = await cacher.watchObjects('/things/', { resourceVersion: '', sendInitialEvents: true, allowWatchBookmarks: true, predicate: EVERYTHING }, { onEvent: () => {}, onError: (e) => errors.push(e) });
    assert.equal(w.initial, undefined);
    await new Promise((r) => setImmediate(r));
    assert.equal(errors.length, 1);
    const err = errors[0] as StatusError;
    assert.ok(err instanceof StatusError);
    assert.deepEqual([err.code, err.reason, err.message], [500, 'InternalError', WATCH_LIST_UNSUPPORTED]);
    // The cache of this backend never catches up: a not-older-than watch at a revision it holds is served.
    const held = await cacher.watchObjects('/things/', { resourceVersion: '0', sendInitialEvents: true, predicate: EVERYTHING }, { onEvent: () => {}, onError: (e) => errors.push(e) });
    assert.ok(held.initial);
    held.stop();
    assert.equal(errors.length, 1);
  });
});
