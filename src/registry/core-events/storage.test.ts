/** The core/v1 view over real SQLite: one storage and cache, two stores, each with its own names and rules. */
import type { Event } from '../../apis/events/v1/types.ts';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { StatusError } from '../../apimachinery/errors.ts';
import { parseListOptions } from '../../apimachinery/list-options.ts';
import { toStoredListOptions } from '../rest/scope.ts';
import type { Storage } from '../../storage/interface.ts';
import { openSqliteStorage } from '../../storage/sqlite/index.ts';
import { eventCodec, registerEvents } from '../events/storage.ts';
import { registerCoreEvents } from './storage.ts';

/** A decoded core/v1 request object (old style: no eventTime). */
const coreEvent = (name: string, pod: string): KubeObject => ({
  kind: 'Event',
  apiVersion: 'v1',
  metadata: { name, namespace: 'h' },
  involvedObject: { kind: 'Pod', namespace: 'h', name: pod },
  reason: 'Killing',
  message: 'stopping',
  source: { component: 'kubelet' },
  count: 1,
  type: 'Normal',
});

describe('core/v1 events scope', () => {
  let dir: string;
  let storage: Storage;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'core-events-'));
    storage = openSqliteStorage({ path: join(dir, 'db.sqlite'), codec: eventCodec });
  });
  after(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes through core are stored in the events/v1 form and served converted', async () => {
    const events = await registerEvents(storage, { ttlSeconds: 0 });
    const core = registerCoreEvents(events, { ttlSeconds: 0 });
    const stored = core.scope.convert!.toStored(coreEvent('k1', 'web')) as Event;
    assert.deepEqual(Object.keys(stored), [
      'kind', 'apiVersion', 'metadata', 'eventTime', 'reason', 'regarding', 'note', 'type', 'deprecatedSource',
      'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount',
    ]);
    const created = await core.store.create('h', stored, undefined, { dryRun: false });
    const viaEvents = await events.store.get('h', 'k1', undefined);
    assert.equal(viaEvents.value.toString(), created.value.toString());
    const served = JSON.parse(core.scope.convert!.fromStored(viaEvents.value).toString());
    assert.equal(served.apiVersion, 'v1');
    assert.equal(served.message, 'stopping');
    assert.equal(served.metadata.resourceVersion, JSON.parse(created.value.toString()).metadata.resourceVersion);

    // selectors in core labels filter the shared cache
    await core.store.create('h', core.scope.convert!.toStored(coreEvent('k2', 'db')) as Event, undefined, { dryRun: false });
    const opts = toStoredListOptions(core.scope, parseListOptions(new URLSearchParams('fieldSelector=involvedObject.name=db'), { watchPath: false, supportedFieldLabels: core.scope.supportedFieldLabels }));
    assert.deepEqual((await core.store.list('h', opts)).items.map((i) => i.key), ['/events/h/k2']);

    // errors name the core resource; validation is the core (legacy) one
    await assert.rejects(core.store.get('h', 'nope', undefined), (e: unknown) => e instanceof StatusError && e.message === 'events "nope" not found');
    await assert.rejects(events.store.get('h', 'nope', undefined), (e: unknown) => e instanceof StatusError && e.message === 'events.events.cluster.io "nope" not found');
    await assert.rejects(events.store.create('h', core.scope.convert!.toStored(coreEvent('k3', 'web')) as Event, undefined, { dryRun: false }), (e: unknown) =>
      e instanceof StatusError && e.code === 422 && /eventTime: Required value/.test(e.message),
    );
    events.cacher.stop();
  });
});
