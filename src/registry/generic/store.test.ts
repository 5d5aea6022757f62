/** The generic store over in-memory storage: one namespaced and one cluster-scoped resource, each from its definition. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError, ForbiddenError } from '../../apimachinery/errors.ts';
import { parseListOptions } from '../../apimachinery/list-options.ts';
import { MemoryStorage } from '../../storage/memory/storage.ts';
import { Scheme } from '../../storage/scheme.ts';
import { defaultUpdatedObjectInfo } from '../rest/update.ts';
import type { UpdatedObjectInfo } from '../rest/update.ts';
import { type Widget, gadgetDefinition, widgetDefinition } from '../testing/widgets.ts';
import { type Registered, registerResource } from './registration.ts';

const widget = (name: string, ns = 'ns', size = 1, extra: Partial<Widget['metadata']> = {}): Widget => ({
  apiVersion: 'testing.cluster.io/v1',
  kind: 'Widget',
  metadata: { name, namespace: ns, ...extra },
  spec: { size },
});
const gadget = (name: string, size = 1): Widget => ({ apiVersion: 'testing.cluster.io/v1', kind: 'Gadget', metadata: { name }, spec: { size } });

/** Asserts a StatusError with this code and reason (and message, when given). */
async function rejects(p: Promise<unknown>, code: number, reason: string, message?: string | RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof StatusError, String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.reason, reason);
    if (typeof message === 'string') assert.equal(e.message, message);
    else if (message) assert.match(e.message, message);
    return true;
  });
}

const set = (o: Widget): UpdatedObjectInfo<Widget> => defaultUpdatedObjectInfo(o);
const write = { dryRun: false };
const dry = { dryRun: true };
const listAll = (q = '') => parseListOptions(new URLSearchParams(q), { watchPath: false, supportedFieldLabels: new Set(['metadata.name', 'metadata.namespace']) });

describe('generic store over memory storage', () => {
  let clock = Date.parse('2026-11-26T10:00:00Z');
  let storage: MemoryStorage;
  let widgets: Registered<Widget>;
  let gadgets: Registered<Widget>;
  before(async () => {
    const scheme = new Scheme();
    storage = new MemoryStorage({ codec: scheme, now: () => clock });
    widgets = await registerResource(widgetDefinition({ ttlSeconds: () => 0 }), { storage, scheme, now: () => clock });
    gadgets = await registerResource(gadgetDefinition(), { storage, scheme, now: () => clock });
  });
  after(async () => {
    widgets.cacher.stop();
    gadgets.cacher.stop();
    await storage.close();
  });

  describe('create', () => {
    it('fills system metadata, strips status, stores at a new revision', async () => {
      const s = await widgets.store.create('ns', { ...widget('c1'), status: { phase: 'Set by client' } }, undefined, write);
      const w = widgets.store.decode(s);
      assert.match(w.metadata.uid ?? '', /^[0-9a-f-]{36}$/);
      assert.equal(w.metadata.creationTimestamp, '2026-11-26T10:00:00Z');
      assert.ok(Number(w.metadata.resourceVersion) > 0);
      assert.equal(w.status, undefined);
      assert.equal(s.key, '/widgets/ns/c1');
      const got = await widgets.store.get('ns', 'c1', undefined);
      assert.deepEqual(got.value, s.value);
    });

    it('fills the namespace from the request, refuses another one, and clears it for cluster-scoped objects', async () => {
      const s = await widgets.store.create('ns', widget('c2', ''), undefined, write);
      assert.equal(widgets.store.decode(s).metadata.namespace, 'ns');
      await rejects(widgets.store.create('ns', widget('c3', 'other'), undefined, write), 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
      const g = await gadgets.store.create('', { ...gadget('g1'), metadata: { name: 'g1', namespace: 'ns' } }, undefined, write);
      assert.equal(gadgets.store.decode(g).metadata.namespace, undefined);
      assert.equal(g.key, '/gadgets/g1');
    });

    it('AlreadyExists, Invalid (strategy first, then ObjectMeta), a resourceVersion is a 400, generateName retries', async () => {
      await rejects(widgets.store.create('ns', widget('c1'), undefined, write), 409, 'AlreadyExists', 'widgets.testing.cluster.io "c1" already exists');
      await rejects(widgets.store.create('ns', widget('neg', 'ns', -1), undefined, write), 422, 'Invalid', 'Widget.testing.cluster.io "neg" is invalid: spec.size: Invalid value: -1: must be greater than or equal to 0');
      await rejects(widgets.store.create('ns', widget('bad%name'), undefined, write), 422, 'Invalid', `Widget.testing.cluster.io "bad%name" is invalid: metadata.name: Invalid value: "bad%name": may not contain '%'`);
      await rejects(widgets.store.create('ns', widget('rv', 'ns', 1, { resourceVersion: '5' }), undefined, write), 400, 'BadRequest', 'resourceVersion should not be set on objects to be created');
      const s = await widgets.store.create('ns', widget('', 'ns', 1, { generateName: 'gen-' }), undefined, write);
      assert.match(widgets.store.decode(s).metadata.name ?? '', /^gen-[a-z0-9]{5}$/);
    });

    it('the strategy\'s defaults fill what the request left out, on create and on update', async () => {
      const { spec: _spec, ...bare } = widget('defaulted');
      const c = widgets.store.decode(await widgets.store.create('ns', bare, undefined, write));
      assert.deepEqual(c.spec, { size: 1 });
      const { spec: _s, ...noSpec } = c;
      const u = await widgets.store.update('ns', 'defaulted', set({ ...noSpec, metadata: c.metadata }), write);
      assert.deepEqual(widgets.store.decode(u.served).spec, { size: 1 });
    });

    it('dry run validates and answers without writing; an existing name is still AlreadyExists', async () => {
      const before = await storage.currentRevision();
      const s = await widgets.store.create('ns', widget('dry'), undefined, dry);
      assert.equal(widgets.store.decode(s).metadata.name, 'dry');
      await rejects(widgets.store.get('ns', 'dry', undefined), 404, 'NotFound');
      await rejects(widgets.store.create('ns', widget('c1'), undefined, dry), 409, 'AlreadyExists');
      assert.equal(await storage.currentRevision(), before);
    });

    it('runs the request validation (admission) after the strategy, and the strategy warnings reach the caller', async () => {
      const seen: string[] = [];
      await rejects(
        widgets.store.create('ns', widget('adm'), (w) => {
          seen.push(w.metadata.uid ? 'has uid' : 'no uid');
          throw new ForbiddenError('denied by a plugin');
        }, write),
        403,
        'Forbidden',
      );
      assert.deepEqual(seen, ['has uid']);
      await rejects(widgets.store.get('ns', 'adm', undefined), 404, 'NotFound');
      const warnings: string[] = [];
      await widgets.store.create('ns', { ...widget('beige'), spec: { color: 'beige' } }, undefined, { ...write, warnings });
      assert.deepEqual(warnings, ['beige is discouraged']);
    });
  });

  describe('update', () => {
    it('create-on-update where the strategy allows it (201-style created), 404 where it does not, apply forces it', async () => {
      const r = await widgets.store.update('ns', 'u1', set(widget('u1')), { ...write, recordManagedFields: true });
      assert.equal(r.created, true);
      await rejects(gadgets.store.update('', 'gu', set(gadget('gu')), write), 404, 'NotFound', 'gadgets.testing.cluster.io "gu" not found');
      const forced = await gadgets.store.update('', 'gu', set(gadget('gu')), { ...write, forceAllowCreate: true });
      assert.equal(forced.created, true);
    });

    it('resourceVersion preconditions: a stale one is 409, none is allowed only for unconditional updates', async () => {
      const cur = widgets.store.decode(await widgets.store.get('ns', 'u1', undefined));
      const next = { ...cur, spec: { size: 2 } };
      const r = await widgets.store.update('ns', 'u1', set(next), write);
      assert.equal(r.created, false);
      await rejects(widgets.store.update('ns', 'u1', set({ ...next, spec: { size: 3 } }), write), 409, 'Conflict', 'Operation cannot be fulfilled on widgets.testing.cluster.io "u1": the object has been modified; please apply your changes to the latest version and try again');
      const { resourceVersion: _rv, ...noRV } = next.metadata;
      await rejects(widgets.store.update('ns', 'u1', set({ ...next, metadata: noRV }), write), 422, 'Invalid', 'Widget.testing.cluster.io "u1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update');
      const g = await gadgets.store.update('', 'gu', set(gadget('gu', 7)), write);
      assert.equal(gadgets.store.decode(g.served).spec?.size, 7, 'gadgets allow unconditional updates');
    });

    it('a uid precondition must match the stored uid', async () => {
      const cur = widgets.store.decode(await widgets.store.get('ns', 'u1', undefined));
      const other = { ...cur, metadata: { ...cur.metadata, uid: 'not-the-uid' } };
      await rejects(widgets.store.update('ns', 'u1', set(other), write), 409, 'Conflict', /Precondition failed: UID in precondition: not-the-uid, UID in object meta: /);
    });

    it('name and namespace must match the URL; system metadata and status come from the stored object', async () => {
      const cur = widgets.store.decode(await widgets.store.get('ns', 'u1', undefined));
      await rejects(widgets.store.update('ns', 'u1', set({ ...cur, metadata: { ...cur.metadata, name: 'other' } }), write), 400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (u1)');
      await rejects(widgets.store.update('ns', 'u1', set({ ...cur, metadata: { ...cur.metadata, namespace: 'x' } }), write), 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
      const r = await widgets.store.update('ns', 'u1', set({ ...cur, metadata: { ...cur.metadata, creationTimestamp: '2000-01-01T00:00:00Z' }, status: { phase: 'client' }, spec: { size: 4 } }), write);
      const w = widgets.store.decode(r.served);
      assert.equal(w.metadata.creationTimestamp, cur.metadata.creationTimestamp);
      assert.equal(w.status, undefined);
      assert.equal(w.spec?.size, 4);
    });

    it('an update that changes nothing keeps the revision and writes nothing', async () => {
      const cur = await widgets.store.get('ns', 'u1', undefined);
      const before = await storage.currentRevision();
      const r = await widgets.store.update('ns', 'u1', set(widgets.store.decode(cur)), write);
      assert.equal(widgets.store.decode(r.served).metadata.resourceVersion, widgets.store.decode(cur).metadata.resourceVersion);
      assert.equal(await storage.currentRevision(), before);
    });

    it('dry run computes the result without writing; a dry-run create has no resourceVersion', async () => {
      const cur = widgets.store.decode(await widgets.store.get('ns', 'u1', undefined));
      const before = await storage.currentRevision();
      const r = await widgets.store.update('ns', 'u1', set({ ...cur, spec: { size: 9 } }), dry);
      assert.equal(widgets.store.decode(r.served).spec?.size, 9);
      const created = await widgets.store.update('ns', 'new-dry', set(widget('new-dry')), dry);
      assert.equal(created.created, true);
      assert.equal(widgets.store.decode(created.served).metadata.resourceVersion, '');
      assert.equal(await storage.currentRevision(), before);
      assert.equal(widgets.store.decode(await widgets.store.get('ns', 'u1', undefined)).spec?.size, 4);
    });

    it('the update info runs inside the retry loop and sees the current object; validations run after the strategy', async () => {
      const calls: string[] = [];
      const r = await widgets.store.update(
        'ns',
        'u1',
        {
          updatedObject: (current) => {
            calls.push(`info size=${current?.spec?.size}`);
            return { ...current!, spec: { size: (current!.spec?.size ?? 0) + 1 } };
          },
        },
        { ...write, updateValidation: (obj, old) => void calls.push(`validate ${old.spec?.size}→${obj.spec?.size}`) },
      );
      assert.equal(widgets.store.decode(r.served).spec?.size, 5);
      assert.deepEqual(calls, ['info size=4', 'validate 4→5']);
    });
  });

  describe('delete', () => {
    it('preconditions on uid and resourceVersion, with upstream texts', async () => {
      await widgets.store.create('ns', widget('d1'), undefined, write);
      await rejects(widgets.store.delete('ns', 'd1', undefined, { ...write, preconditions: { uid: 'x' } }), 409, 'Conflict', /^Operation cannot be fulfilled on Widget "d1": the UID in the precondition \(x\) does not match the UID in record/);
      await rejects(widgets.store.delete('ns', 'd1', undefined, { ...write, preconditions: { resourceVersion: '1' } }), 409, 'Conflict', /the ResourceVersion in the precondition \(1\) does not match the ResourceVersion in record/);
      await rejects(widgets.store.delete('ns', 'nope', undefined, write), 404, 'NotFound', 'widgets.testing.cluster.io "nope" not found');
    });

    it('dry run and a refusing validation leave the object; a real delete returns it at the deletion revision', async () => {
      await widgets.store.delete('ns', 'd1', undefined, dry);
      await widgets.store.get('ns', 'd1', undefined);
      await rejects(widgets.store.delete('ns', 'd1', () => { throw new ForbiddenError('no'); }, write), 403, 'Forbidden');
      await widgets.store.get('ns', 'd1', undefined);
      const { served, deleted } = await widgets.store.delete('ns', 'd1', undefined, write);
      assert.equal(deleted, true);
      assert.equal(widgets.store.decode(served).metadata.resourceVersion, String(await storage.currentRevision()));
      await rejects(widgets.store.get('ns', 'd1', undefined), 404, 'NotFound');
    });

    it('finalizers: delete marks the object, removing the last finalizer removes it', async () => {
      await widgets.store.create('ns', widget('f1', 'ns', 1, { finalizers: ['example.com/hold'] }), undefined, write);
      const marked = await widgets.store.delete('ns', 'f1', undefined, write);
      assert.equal(marked.deleted, false);
      const w = widgets.store.decode(marked.served);
      assert.equal(w.metadata.deletionTimestamp, '2026-11-26T10:00:00Z');
      assert.equal(w.metadata.deletionGracePeriodSeconds, 0);
      const again = await widgets.store.delete('ns', 'f1', undefined, write);
      assert.equal(widgets.store.decode(again.served).metadata.deletionTimestamp, w.metadata.deletionTimestamp, 'a second delete keeps the first mark');
      const released = await widgets.store.update('ns', 'f1', set({ ...w, metadata: { ...w.metadata, finalizers: [] } }), write);
      assert.equal(released.created, false);
      await rejects(widgets.store.get('ns', 'f1', undefined), 404, 'NotFound');
    });

    it('delete-collection removes what the selector lists and only that; dry run removes nothing', async () => {
      for (const [n, app] of [['dc1', 'a'], ['dc2', 'a'], ['dc3', 'b']] as const) await widgets.store.create('dc', widget(n, 'dc', 1, { labels: { app } }), undefined, write);
      const dryRun = await widgets.store.deleteCollection('dc', undefined, dry, listAll('labelSelector=app%3Da'));
      assert.deepEqual(dryRun.items.map((i) => i.key), ['/widgets/dc/dc1', '/widgets/dc/dc2']);
      assert.equal((await widgets.store.list('dc', listAll())).items.length, 3);
      const seen: string[] = [];
      const gone = await widgets.store.deleteCollection('dc', (w) => void seen.push(w.metadata.name ?? ''), write, listAll('labelSelector=app%3Da'));
      assert.deepEqual(gone.items.map((i) => i.key), ['/widgets/dc/dc1', '/widgets/dc/dc2']);
      assert.deepEqual(seen, ['dc1', 'dc2']);
      assert.deepEqual((await widgets.store.list('dc', listAll())).items.map((i) => i.key), ['/widgets/dc/dc3']);
    });

    it('cluster-scoped objects are deleted by name alone, collections without a namespace', async () => {
      await gadgets.store.create('', gadget('gd1'), undefined, write);
      await gadgets.store.create('', gadget('gd2'), undefined, write);
      await gadgets.store.delete('', 'gd1', undefined, write);
      const gone = await gadgets.store.deleteCollection('', undefined, write, listAll());
      assert.ok(gone.items.some((i) => i.key === '/gadgets/gd2'));
      assert.equal((await gadgets.store.list('', listAll())).items.length, 0);
    });
  });

  describe('TTL', () => {
    it('every write sets the TTL; an expired object is deleted and watchers see it go', async () => {
      const ttl = await registerResource(widgetDefinition({ resource: 'ttlwidgets', ttlSeconds: () => 60 }), { storage, now: () => clock });
      try {
        await ttl.store.create('t', widget('t1', 't'), undefined, write);
        const events: string[] = [];
        const w = await ttl.store.watch('t', '', listAll(), { onEvent: (ev, type) => events.push(`${type} ${ev.entry.key}`), onError: () => {} });
        clock += 30_000;
        const cur = ttl.store.decode(await ttl.store.get('t', 't1', undefined));
        await ttl.store.update('t', 't1', set({ ...cur, spec: { size: 2 } }), write);
        clock += 45_000;
        await storage.sweepExpired();
        assert.ok(await ttl.store.get('t', 't1', undefined), 'the update restarted the clock');
        clock += 30_000;
        await storage.sweepExpired();
        await rejects(ttl.store.get('t', 't1', undefined), 404, 'NotFound');
        await new Promise((r) => setTimeout(r, 20));
        assert.deepEqual(events, ['MODIFIED /ttlwidgets/t/t1', 'DELETED /ttlwidgets/t/t1']);
        w.stop();
      } finally {
        ttl.cacher.stop();
      }
    });
  });
});
