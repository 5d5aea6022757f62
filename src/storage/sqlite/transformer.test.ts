/**
 * The SQLite backend with value transformers: the whole conformance suite with one that really changes the bytes
 * (and one that answers asynchronously first), the bytes in the file, and what happens when a value does not read
 * back.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { stripResourceVersion } from '../../apimachinery/codec/resource-version-splice.ts';
import { runStorageConformance } from '../conformance.ts';
import { StorageError } from '../interface.ts';
import { jsonCodec } from '../testing/json-codec.ts';
import { AsyncFirstTransformer, SCRAMBLED_PREFIX, ScramblingTransformer } from '../testing/scrambling-transformer.ts';
import { KeyContext, type Transformer } from '../value/transformer.ts';
import { openSqliteStorage, type SqliteStorageOptions } from './storage.ts';

const root = mkdtempSync(join(tmpdir(), 'sqlite-transformer-'));
after(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;
const dbPath = () => join(root, `db-${++seq}.sqlite`);
const obj = (name: string, data: unknown = 'x') => ({ apiVersion: 'v1', kind: 'Thing', metadata: { name, namespace: 'ns' }, data });
const open = (path: string, transformer: Transformer, extra: Partial<SqliteStorageOptions> = {}) => openSqliteStorage({ path, codec: jsonCodec, transformer, ...extra });
const isCorrupt = (key: string) => (e: unknown) => e instanceof StorageError && e.code === 'Corrupt' && e.key === key;

for (const [name, make] of [
  ['scrambling transformer', () => new ScramblingTransformer()],
  ['transformer answering asynchronously first', () => new AsyncFirstTransformer(new ScramblingTransformer())],
] as const) {
  runStorageConformance(`sqlite, ${name}`, async () => {
    let clock = Date.now();
    const storage = open(dbPath(), make(), { now: () => clock, sweepIntervalMs: 20 });
    return { storage, cleanup: () => storage.close(), advanceClock: (ms) => void (clock += ms) };
  });
}

/** The rows of the log table: [rv, key, value]. */
function logRows(path: string): [number, string, Buffer][] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT rv, key, value FROM log ORDER BY rv').raw().all() as [number, string, Buffer][];
  } finally {
    db.close();
  }
}

describe('sqlite backend with a value transformer', () => {
  it('the database file holds the transformed bytes, without resourceVersion; callers get served bytes', async () => {
    const path = dbPath();
    const t = new ScramblingTransformer();
    const s = open(path, t);
    const a = await s.create('/t/ns/a', obj('a', 1));
    const b = await s.create('/t/ns/b', obj('b'));
    const u = await s.guaranteedUpdate('/t/ns/a', { tryUpdate: (cur) => ({ object: { ...jsonCodec.decode(cur!.value), data: 2 } }) });
    const d = await s.delete('/t/ns/b');
    const served = new Map([
      [a.rv, a.value],
      [b.rv, b.value],
      [u.stored.rv, u.stored.value],
      [d.rv, d.value],
    ]);
    const rows = logRows(path);
    assert.equal(rows.length, 4);
    for (const [rv, key, value] of rows) {
      assert.ok(value.subarray(0, SCRAMBLED_PREFIX.length).equals(SCRAMBLED_PREFIX), `row ${rv} is scrambled`);
      assert.equal(value.indexOf('"metadata"'), -1, `row ${rv} holds no plain JSON`);
      const plain = t.transformFromStorage(value, new KeyContext(key)).data;
      assert.equal(plain.indexOf('resourceVersion'), -1, `row ${rv} is stored without resourceVersion`);
      assert.deepEqual(plain, stripResourceVersion(served.get(rv)!), `row ${rv} is the served value without it`);
    }
    assert.equal(jsonCodec.decode(a.value).metadata.resourceVersion, String(a.rv));
    assert.equal(jsonCodec.decode(d.value).metadata.resourceVersion, String(d.rv));
    assert.deepEqual((await s.get('/t/ns/a'))!.value, u.stored.value);
    await s.close();
  });

  it('a value that does not read back under its key fails every read with Corrupt for that key, and nothing crashes', async () => {
    let clock = 1_000_000;
    const path = dbPath();
    const s = open(path, new ScramblingTransformer(), { now: () => clock, sweepIntervalMs: 60_000 });
    const a = await s.create('/t/ns/a', obj('a'), 10);
    const b = await s.create('/t/ns/b', obj('b'));
    const before = await s.currentRevision();
    // b's bytes moved under a's key: the transformer must refuse them there (the key is the authenticated data).
    const raw = new Database(path);
    raw.prepare('UPDATE log SET value = (SELECT value FROM log WHERE rv = ?) WHERE rv = ?').run(b.rv, a.rv);
    raw.close();

    await assert.rejects(s.get('/t/ns/a'), (e) => isCorrupt('/t/ns/a')(e) && /^data from the storage is not transformable revision=0: scrambled under another key$/.test((e as Error).message));
    await assert.rejects(s.list('/t/'), isCorrupt('/t/ns/a'));
    await assert.rejects(s.list('/t/', { rv: b.rv }), isCorrupt('/t/ns/a'));
    await assert.rejects(s.guaranteedUpdate('/t/ns/a', { tryUpdate: () => assert.fail('not called') }), isCorrupt('/t/ns/a'));
    await assert.rejects(s.delete('/t/ns/a'), isCorrupt('/t/ns/a'));
    const watchErr = await new Promise<Error>((resolve) => s.watch('/t/', 0, { onEvent: () => assert.fail('no event before the corrupt one'), onError: resolve }));
    assert.ok(isCorrupt('/t/ns/a')(watchErr), String(watchErr));
    // Everything else still reads; nothing was written.
    assert.equal(jsonCodec.decode((await s.get('/t/ns/b'))!.value).metadata.name, 'b');
    assert.equal((await s.list('/t/ns/b')).items.length, 1);
    assert.equal(await s.currentRevision(), before);
    // Its TTL still ends it, unread, as an etcd lease would.
    clock += 10_001;
    assert.equal(await s.sweepExpired(), 1);
    assert.equal(await s.get('/t/ns/a'), null);
    await s.close();
  });

  it('collectCorrupt lists the rest and names the unreadable; ignoreStoreReadError deletes it unread (a DELETED without value)', async () => {
    const path = dbPath();
    const s = open(path, new ScramblingTransformer());
    const a = await s.create('/t/ns/a', obj('a'));
    const b = await s.create('/t/ns/b', obj('b'));
    const raw = new Database(path);
    raw.prepare('UPDATE log SET value = (SELECT value FROM log WHERE rv = ?) WHERE rv = ?').run(b.rv, a.rv);
    raw.close();
    const l = await s.list('/t/', { collectCorrupt: true });
    assert.deepEqual(l.items.map((i) => i.key), ['/t/ns/b']);
    assert.deepEqual(l.corrupt?.map((e) => e.key), ['/t/ns/a']);
    const events: { type: string; key: string; value: Buffer }[] = [];
    const w = s.watch('/t/', await s.currentRevision(), { onEvent: (ev) => events.push(ev), onError: (e) => assert.fail(e) });
    await assert.rejects(s.delete('/t/ns/b', { ignoreStoreReadError: true, validateDeletion: () => Promise.reject(new Error('refused')) }), /refused/, 'a readable value is validated as usual');
    const seen: number[] = [];
    const gone = await s.delete('/t/ns/a', { ignoreStoreReadError: true, validateDeletion: (cur) => void seen.push(cur.rv, cur.value.length) });
    assert.deepEqual(seen, [a.rv, 0], 'the validator sees the revision, no value');
    assert.equal(gone.value.length, 0);
    assert.equal(await s.get('/t/ns/a'), null);
    assert.deepEqual((await s.list('/t/')).items.map((i) => i.key), ['/t/ns/b']);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(events.map((e) => [e.type, e.key, e.value.length]), [['DELETED', '/t/ns/a', 0]]);
    w.stop();
    // Replayed from the log the same way: the watch goes on past it.
    const replayed: { type: string; key: string; value: Buffer }[] = [];
    const r = s.watch('/t/', b.rv, { onEvent: (ev) => replayed.push(ev), onError: (e) => assert.fail(e) });
    for (let i = 0; i < 50 && replayed.length === 0; i++) await new Promise((res) => setTimeout(res, 10));
    assert.deepEqual(replayed.map((e) => [e.type, e.key, e.value.length]), [['DELETED', '/t/ns/a', 0]]);
    r.stop();
    await assert.rejects(s.delete('/t/ns/a', { ignoreStoreReadError: true }), (e) => e instanceof StorageError && e.code === 'KeyNotFound');
    await s.close();
  });

  it('a stored value the transformer reports stale is written again by an update that changes nothing', async () => {
    const t = new ScramblingTransformer();
    const s = open(dbPath(), t);
    const c = await s.create('/t/ns/a', obj('a'));
    const same = { tryUpdate: (cur: { value: Buffer } | null) => ({ object: jsonCodec.decode(cur!.value) }) };
    const fresh = await s.guaranteedUpdate('/t/ns/a', same);
    assert.equal(fresh.noop, true);
    assert.equal(fresh.stored.rv, c.rv);
    t.stale = true;
    const rewritten = await s.guaranteedUpdate('/t/ns/a', same);
    assert.equal(rewritten.noop, false);
    assert.ok(rewritten.stored.rv > c.rv);
    assert.deepEqual(stripResourceVersion(rewritten.stored.value), stripResourceVersion(c.value));
    await s.close();
  });

  it('a value that cannot be transformed for storage fails the write with Internal and writes nothing', async () => {
    const broken: Transformer = {
      transformFromStorage: (data) => ({ data, stale: false }),
      transformToStorage: () => {
        throw new Error('KMS unavailable');
      },
    };
    const s = open(dbPath(), broken);
    await assert.rejects(s.create('/t/ns/a', obj('a')), (e) => e instanceof StorageError && e.code === 'Internal' && /KMS unavailable/.test(e.message));
    assert.equal(await s.currentRevision(), 0);
    assert.equal(await s.get('/t/ns/a'), null);
    await s.close();
  });

  it('a transformer that never answers synchronously: single reads wait for it, a list gives up after a few passes', async () => {
    const inner = new ScramblingTransformer();
    const slow: Transformer = {
      transformFromStorage: (data, ctx) => new Promise((r) => setImmediate(r)).then(() => inner.transformFromStorage(data, ctx)),
      transformToStorage: (data, ctx) => inner.transformToStorage(data, ctx),
    };
    const s = open(dbPath(), slow);
    await s.create('/t/ns/a', obj('a', 1));
    assert.equal(jsonCodec.decode((await s.get('/t/ns/a'))!.value).data, 1);
    const u = await s.guaranteedUpdate('/t/ns/a', { tryUpdate: (cur) => ({ object: { ...jsonCodec.decode(cur!.value), data: 2 } }) });
    assert.equal(jsonCodec.decode(u.stored.value).data, 2);
    await assert.rejects(s.list('/t/'), (e) => e instanceof StorageError && e.code === 'Internal' && /asynchronously/.test(e.message));
    await s.close();
  });
});

describe('sqlite backend: values stored with their resourceVersion (before it was kept out of storage)', () => {
  it('are served with the revision of their row, on every read path, and rewritten without it by the next update', async () => {
    const path = dbPath();
    const s = open(path, (await import('../value/identity.ts')).identityTransformer);
    await s.create('/t/ns/a', obj('a', 1));
    await s.create('/t/ns/b', obj('b'));
    // What the previous version wrote: the value with a resourceVersion inside (here a wrong one, to tell them apart).
    const raw = new Database(path);
    raw.prepare(`UPDATE log SET value = CAST(replace(CAST(value AS TEXT), '"namespace":"ns"', '"namespace":"ns","resourceVersion":"999"') AS BLOB)`).run();
    raw.close();
    const rvOf = (v: Buffer) => jsonCodec.decode(v).metadata.resourceVersion;
    const got = (await s.get('/t/ns/a'))!;
    assert.equal(got.value.toString(), '{"apiVersion":"v1","kind":"Thing","metadata":{"name":"a","namespace":"ns","resourceVersion":"1"},"data":1}');
    assert.deepEqual((await s.list('/t/')).items.map((i) => rvOf(i.value)), ['1', '2']);
    const events: string[] = [];
    await new Promise<void>((resolve, reject) =>
      s.watch('/t/', 0, {
        onEvent: (ev) => {
          events.push(rvOf(ev.value)!);
          if (events.length === 2) resolve();
        },
        onError: reject,
      }),
    );
    assert.deepEqual(events, ['1', '2']);
    const d = await s.delete('/t/ns/b');
    assert.equal(rvOf(d.value), String(d.rv));
    const u = await s.guaranteedUpdate('/t/ns/a', { tryUpdate: (cur) => ({ object: jsonCodec.decode(cur!.value) }) });
    assert.equal(u.noop, false, 'the old form is not the bytes an encoding gives now');
    assert.equal(rvOf(u.stored.value), String(u.stored.rv));
    const last = logRows(path).at(-1)!;
    assert.equal(last[2].toString(), '{"apiVersion":"v1","kind":"Thing","metadata":{"name":"a","namespace":"ns"},"data":1}');
    await s.close();
  });
});
