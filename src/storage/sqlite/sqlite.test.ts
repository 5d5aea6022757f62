import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { runStorageConformance } from '../conformance.ts';
import { StorageError, type StorageEvent } from '../interface.ts';
import { jsonCodec } from '../testing/json-codec.ts';
import { openSqliteStorage, type SqliteStorageOptions } from './storage.ts';

const root = mkdtempSync(join(tmpdir(), 'sqlite-storage-'));
after(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;
const dbPath = () => join(root, `db-${++seq}.sqlite`);
const obj = (name: string, data: unknown = 'x') => ({ apiVersion: 'v1', kind: 'Thing', metadata: { name, namespace: 'ns' }, data });
const open = (path: string, extra: Partial<SqliteStorageOptions> = {}) => openSqliteStorage({ path, codec: jsonCodec, ...extra });

runStorageConformance('sqlite', async () => {
  let clock = Date.now();
  const storage = open(dbPath(), { now: () => clock, sweepIntervalMs: 20 });
  return { storage, cleanup: () => storage.close(), advanceClock: (ms) => void (clock += ms) };
});

describe('sqlite backend', () => {
  it('group commit: 200 concurrent creates share a handful of transactions, revisions in issue order', async () => {
    const s = open(dbPath());
    const before = s.stats().transactions;
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => s.create(`/t/ns/o${i}`, obj(`o${i}`))));
    assert.ok(s.stats().transactions - before <= 2, `transactions: ${s.stats().transactions - before}`);
    assert.deepEqual(results.map((r) => r.rv), Array.from({ length: 200 }, (_, i) => i + 1));
    assert.equal(await s.count('/t/'), 200);
    await s.close();
  });

  it('writes in one group see each other; watch events follow the commit, in revision order', async () => {
    const s = open(dbPath());
    const events: StorageEvent[] = [];
    const committedAtEvent: boolean[] = [];
    s.watch('/t/', 0, {
      onEvent: (ev) => {
        events.push(ev);
        // Delivery happens after the commit: nothing is pending any more.
        committedAtEvent.push(s.stats().pending === 0);
      },
      onError: (err) => assert.fail(err),
    });
    await new Promise((r) => setImmediate(r));
    const created = s.create('/t/ns/a', obj('a', 1));
    const updated = s.guaranteedUpdate('/t/ns/a', {
      tryUpdate: (cur) => {
        assert.equal(jsonCodec.decode(cur!.value).data, 1, 'sees the pending create');
        return { object: { ...jsonCodec.decode(cur!.value), data: 2 } };
      },
    });
    const deleted = s.delete('/t/ns/a');
    assert.equal(await s.get('/t/ns/a'), null, 'reads serve committed state only');
    const [c, u, d] = await Promise.all([created, updated, deleted]);
    assert.deepEqual([c.rv, u.stored.rv, d.rv], [1, 2, 3]);
    assert.equal(s.stats().transactions, 1);
    assert.deepEqual(events.map((e) => [e.type, e.rv]), [['ADDED', 1], ['MODIFIED', 2], ['DELETED', 3]]);
    assert.deepEqual(committedAtEvent, [true, true, true]);
    assert.equal(jsonCodec.decode(events[2]!.value).data, 2);
    await s.close();
  });

  it('one large group with repeated keys (multi-row statements): the last write of each key wins, in and after the commit', async () => {
    const path = dbPath();
    const s = open(path, { groupCommitMaxWaitMs: 2 });
    const value = (cur: { value: Buffer } | null, data: unknown) => ({ object: { ...jsonCodec.decode(cur!.value), data } });
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 70; i++) writes.push(s.create(`/m/ns/o${i}`, obj(`o${i}`, 0)));
    // Chains on some keys inside the same group: update, delete, re-create, update.
    writes.push(s.guaranteedUpdate('/m/ns/o5', { tryUpdate: (cur) => value(cur, 1) }));
    writes.push(s.delete('/m/ns/o5'));
    writes.push(s.create('/m/ns/o5', obj('o5', 'again')));
    writes.push(s.guaranteedUpdate('/m/ns/o5', { tryUpdate: (cur) => value(cur, 'last') }));
    writes.push(s.delete('/m/ns/o40'));
    for (let i = 60; i < 70; i++) writes.push(s.guaranteedUpdate(`/m/ns/o${i}`, { tryUpdate: (cur) => value(cur, i) }));
    await Promise.all(writes);
    assert.equal(s.stats().transactions, 1);
    const check = async (st: typeof s) => {
      assert.equal(await st.count('/m/'), 69);
      assert.equal(await st.get('/m/ns/o40'), null);
      assert.equal(jsonCodec.decode((await st.get('/m/ns/o5'))!.value).data, 'last');
      assert.equal((await st.get('/m/ns/o5'))!.rv, 74);
      for (let i = 60; i < 70; i++) assert.equal(jsonCodec.decode((await st.get(`/m/ns/o${i}`))!.value).data, i);
      assert.equal(await st.currentRevision(), 85);
    };
    await check(s);
    await s.close();
    const again = open(path);
    await check(again);
    await again.close();
  });

  it('a refusal caused by a pending write waits for its commit and is decided on committed state', async () => {
    const s = open(dbPath());
    // The duplicate is refused only once the first create has committed...
    const first = s.create('/t/ns/a', obj('a'));
    let firstDone = false;
    void first.then(() => (firstDone = true));
    await assert.rejects(
      s.create('/t/ns/a', obj('a', 'dup')).finally(() => assert.ok(firstDone, 'KeyExists came after the commit')),
      (e) => e instanceof StorageError && e.code === 'KeyExists',
    );
    // ...and when the pending write it ran into is gone by then, it goes ahead.
    const created = s.create('/t/ns/b', obj('b'));
    const dup = s.create('/t/ns/b', obj('b', 'second'));
    const deleted = s.delete('/t/ns/b');
    const [c, d, again] = await Promise.all([created, deleted, dup]);
    assert.ok(c.rv < d.rv && d.rv < again.rv);
    assert.equal(jsonCodec.decode((await s.get('/t/ns/b'))!.value).data, 'second');
    await s.close();
  });

  it('a failed commit rejects the whole group, drops the pending state and emits nothing', async () => {
    const path = dbPath();
    const s = open(path);
    await s.create('/t/ns/base', obj('base'));
    const events: StorageEvent[] = [];
    s.watch('/t/', 1, { onEvent: (ev) => events.push(ev), onError: (err) => assert.fail(err) });
    const other = new Database(path);
    other.exec(`CREATE TRIGGER poison BEFORE INSERT ON log WHEN NEW.key = '/t/ns/poison' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`);
    const group = [
      s.create('/t/ns/a', obj('a')),
      s.create('/t/ns/poison', obj('poison')),
      s.guaranteedUpdate('/t/ns/base', { tryUpdate: (cur) => ({ object: { ...jsonCodec.decode(cur!.value), data: 'changed' } }) }),
    ];
    const settled = await Promise.allSettled(group);
    for (const r of settled) {
      assert.equal(r.status, 'rejected');
      assert.ok(r.reason instanceof StorageError && r.reason.code === 'Internal' && /poisoned/.test(r.reason.message), String(r.reason));
    }
    assert.equal(await s.currentRevision(), 1);
    assert.equal(await s.get('/t/ns/a'), null);
    assert.equal(jsonCodec.decode((await s.get('/t/ns/base'))!.value).data, 'x');
    other.exec('DROP TRIGGER poison');
    other.close();
    const again = await s.create('/t/ns/a', obj('a'));
    assert.equal(again.rv, 2, 'the failed group used no revisions');
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(events.map((e) => [e.type, e.key, e.rv]), [['ADDED', '/t/ns/a', 2]]);
    await s.close();
  });

  it('groupCommitMaxWaitMs gathers writes from several event-loop turns into one transaction', async () => {
    const s = open(dbPath(), { groupCommitMaxWaitMs: 2 });
    const first = s.create('/t/ns/a', obj('a'));
    await new Promise((r) => setImmediate(r));
    const second = s.create('/t/ns/b', obj('b'));
    await Promise.all([first, second]);
    assert.equal(s.stats().transactions, 1);
    await s.close();
  });

  it('restart: a reopened file has every object, the revision continues, compaction is remembered', async () => {
    const path = dbPath();
    let s = open(path);
    for (let i = 0; i < 10; i++) await s.create(`/t/ns/o${i}`, obj(`o${i}`, i), 3600);
    await s.guaranteedUpdate('/t/ns/o1', { tryUpdate: (cur) => ({ object: { ...jsonCodec.decode(cur!.value), data: 'u' } }) });
    await s.compact(5);
    const last = await s.delete('/t/ns/o9');
    await s.compact(last.rv);
    await s.close();

    s = open(path);
    assert.equal(await s.currentRevision(), last.rv, 'compacting away the newest row does not move the revision back');
    assert.equal(s.compactedRevision(), last.rv);
    const list = await s.list('/t/');
    assert.equal(list.items.length, 9);
    assert.equal(jsonCodec.decode((await s.get('/t/ns/o1'))!.value).data, 'u');
    assert.ok((await s.get('/t/ns/o2'))!.expiresAt! > Date.now());
    await assert.rejects(s.list('/t/', { rv: last.rv }), (e) => e instanceof StorageError && e.code === 'Expired');
    const next = await s.create('/t/ns/new', obj('new'));
    assert.equal(next.rv, last.rv + 1);
    await s.close();
  });

  it('compaction keeps only the rows a later read can need', async () => {
    const path = dbPath();
    const s = open(path);
    await s.create('/t/ns/a', obj('a'));
    await s.create('/t/ns/b', obj('b'));
    for (let i = 0; i < 5; i++) await s.guaranteedUpdate('/t/ns/a', { tryUpdate: (c) => ({ object: { ...jsonCodec.decode(c!.value), data: i } }) });
    await s.delete('/t/ns/b');
    const head = await s.currentRevision();
    await s.guaranteedUpdate('/t/ns/a', { tryUpdate: (c) => ({ object: { ...jsonCodec.decode(c!.value), data: 'after' } }) });
    await s.compact(head);
    const peek = new Database(path, { readonly: true });
    const rows = peek.prepare('SELECT rv, key, type FROM log ORDER BY rv').raw().all();
    peek.close();
    // Left: a's state as of `head` (reads above head build on it) and its newer row; b's history and tombstone are gone.
    assert.deepEqual(rows, [
      [head - 1, '/t/ns/a', 1],
      [head + 1, '/t/ns/a', 1],
    ]);
    await s.close();
  });

  it('the checkpointer thread copies the WAL back into the database while writes go on', async () => {
    const path = dbPath();
    const s = open(path);
    await Promise.all(Array.from({ length: 2000 }, (_, i) => s.create(`/t/ns/o${i}`, obj(`o${i}`, 'y'.repeat(500)))));
    await new Promise((r) => setTimeout(r, 300));
    // Pages reach the database file only through checkpoints, and the main connection's own limit is far away.
    assert.ok(statSync(path).size > 1_000_000, `database file: ${statSync(path).size} bytes`);
    await s.close();
  });

  it('the TTL sweeper deletes in bounded batches through the normal delete path', async () => {
    let clock = 1_000_000;
    const s = open(dbPath(), { now: () => clock, sweepIntervalMs: 60_000 });
    await Promise.all(Array.from({ length: 1200 }, (_, i) => s.create(`/t/ns/o${i}`, obj(`o${i}`), 10)));
    await s.create('/t/ns/keep', obj('keep'), 100);
    const deletes: StorageEvent[] = [];
    s.watch('/t/', await s.currentRevision(), { onEvent: (ev) => deletes.push(ev), onError: (err) => assert.fail(err) });
    await new Promise((r) => setImmediate(r));
    assert.equal(await s.sweepExpired(), 0, 'nothing is due yet');
    clock += 10_001;
    const before = s.stats().transactions;
    assert.equal(await s.sweepExpired(), 1200);
    assert.ok(s.stats().transactions - before >= 3, 'one group per batch of at most 500');
    assert.equal(await s.count('/t/'), 1);
    assert.equal(deletes.length, 1200);
    assert.ok(deletes.every((e) => e.type === 'DELETED'));
    await s.close();
  });

  for (const sync of ['NORMAL', 'FULL'] as const) {
    it(`every acknowledged create survives kill -9 (synchronous=${sync})`, async () => {
      const path = dbPath();
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'crash-writer.ts'), path, sync], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const acked: string[] = [];
      let buf = '';
      await new Promise<void>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited ${code}`))));
        child.stdout!.on('data', (chunk: Buffer) => {
          buf += chunk.toString();
          const lines = buf.split('\n');
          buf = lines.pop()!;
          for (const l of lines) if (l !== 'ready') acked.push(l);
          if (acked.length >= 3000 && !child.killed) child.kill('SIGKILL');
        });
      });
      assert.ok(acked.length >= 3000);
      const check = new Database(path);
      assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
      check.close();
      const s = open(path);
      const present = new Set((await s.list('/crash/')).items.map((i) => i.key));
      const missing = acked.filter((k) => !present.has(k));
      assert.deepEqual(missing, [], `${missing.length} acknowledged keys lost`);
      assert.equal(await s.currentRevision(), present.size);
      await s.close();
    });
  }
});
