/** The Event resource over real SQLite: what happens at the edges of history (compaction, restarts). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Event } from '../../apis/events/v1/types.ts';
import { encodeContinue } from '../../apimachinery/continue.ts';
import { StatusError } from '../../apimachinery/errors.ts';
import { parseListOptions } from '../../apimachinery/list-options.ts';
import { EVERYTHING } from '../../storage/cacher/types.ts';
import type { Storage } from '../../storage/interface.ts';
import { openSqliteStorage } from '../../storage/sqlite/index.ts';
import { EVENT_FIELD_LABELS } from './fields.ts';
import { eventCodec, registerEvents } from './storage.ts';

function event(name: string, ns = 'h'): Event {
  return {
    kind: 'Event',
    apiVersion: 'events.cluster.io/v1',
    metadata: { name, namespace: ns },
    eventTime: '2026-11-22T10:00:00.000000Z',
    reportingController: 'example.com/c',
    reportingInstance: 'i-1',
    action: 'Do',
    reason: 'Test',
    type: 'Normal',
    regarding: { kind: 'Pod', namespace: ns, name: 'p' },
    deprecatedSource: {},
    deprecatedFirstTimestamp: null,
    deprecatedLastTimestamp: null,
  };
}

const listOpts = (q: string) => parseListOptions(new URLSearchParams(q), { watchPath: false, supportedFieldLabels: EVENT_FIELD_LABELS });

describe('events over SQLite at the edges of history', () => {
  let dir: string;
  let storage: Storage;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'events-store-'));
    storage = openSqliteStorage({ path: join(dir, 'db.sqlite'), codec: eventCodec });
  });
  after(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a continue token of a compacted snapshot with 410 and a fresh token', async () => {
    const { store, cacher } = await registerEvents(storage, { ttlSeconds: 0 });
    for (let i = 0; i < 5; i++) await store.create('h', event(`c${i}`), undefined, { dryRun: false });
    const old = cacher.resourceVersion;
    await store.create('h', event('c9'), undefined, { dryRun: false });
    await storage.compact(await storage.currentRevision());
    const token = encodeContinue('c1\u0000', old);
    await assert.rejects(store.list('h', { ...listOpts('limit=2'), continue: token }), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 410);
      assert.equal(e.reason, 'Expired');
      assert.match(e.message, /^The provided continue parameter is too old/);
      assert.equal(e.metadata.continue, encodeContinue('c1\u0000', -1));
      return true;
    });
    const exact = listOpts(`resourceVersion=${old}&resourceVersionMatch=Exact`);
    await assert.rejects(store.list('h', exact), (e: unknown) => e instanceof StatusError && e.code === 410 && e.message === 'The resourceVersion for the provided list is too old.');
    // The fresh token continues from the latest state.
    const next = await store.list('h', { ...listOpts('limit=2'), continue: encodeContinue('c1\u0000', -1) });
    assert.deepEqual(next.items.map((i) => i.key), ['/events/h/c2', '/events/h/c3']);
    cacher.stop();
  });

  it('resumes a watch from before a restart out of the revision log, and reports Expired once compacted', async () => {
    const first = await registerEvents(storage, { ttlSeconds: 0 });
    const a = await first.store.create('wr', event('w1', 'wr'), undefined, { dryRun: false });
    const rvA = Number(first.cacher.resourceVersion);
    await first.store.create('wr', event('w2', 'wr'), undefined, { dryRun: false });
    first.cacher.stop();
    assert.ok(a.value.length > 0);

    const second = await registerEvents(storage, { ttlSeconds: 0 });
    const seen: string[] = [];
    const errors: Error[] = [];
    const w = await second.cacher.watchObjects('/events/wr/', { resourceVersion: String(rvA), sendInitialEvents: false, predicate: EVERYTHING }, {
      onEvent: (ev, type) => seen.push(`${type} ${ev.entry.attrs.name}`),
      onError: (e) => errors.push(e),
    });
    await second.store.create('wr', event('w3', 'wr'), undefined, { dryRun: false });
    await new Promise((r) => setTimeout(r, 50));
    w.stop();
    assert.deepEqual(seen, ['ADDED w2', 'ADDED w3']);

    await storage.compact(await storage.currentRevision());
    const gone: Error[] = [];
    await second.cacher.watchObjects('/events/wr/', { resourceVersion: String(rvA), sendInitialEvents: false, predicate: EVERYTHING }, { onEvent: () => {}, onError: (e) => gone.push(e) });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(gone.length, 1);
    assert.equal((gone[0] as { code?: string }).code, 'Expired');
    second.cacher.stop();
  });
});
