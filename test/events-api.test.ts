/** End-to-end: the events API over real HTTPS with the generated admin certificate. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORAGE, TestServer, assertWatchListRefused, sampleEvent } from './helpers/server.ts';

const BASE = '/apis/events.cluster.io/v1';
const s = new TestServer();

before(async () => {
  await s.start();
});
after(async () => {
  await s.cleanup();
});

describe('create and read', () => {
  it('creates an event with server-set metadata and reads it back byte-identically', async () => {
    const r = await s.request('POST', `${BASE}/namespaces/ns1/events`, sampleEvent('e1', 'ns1'));
    assert.equal(r.status, 201, r.body);
    const ev = r.json();
    assert.equal(ev.kind, 'Event');
    assert.equal(ev.apiVersion, 'events.cluster.io/v1');
    assert.match(ev.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(ev.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(ev.metadata.resourceVersion, /^\d+$/);
    assert.equal(ev.eventTime, '2026-11-22T10:00:00.000000Z');
    assert.deepEqual(Object.keys(ev).slice(0, 4), ['kind', 'apiVersion', 'metadata', 'eventTime']);
    assert.deepEqual(ev.deprecatedSource, {});
    assert.equal(ev.deprecatedFirstTimestamp, null);
    const g = await s.request('GET', `${BASE}/namespaces/ns1/events/e1`);
    assert.equal(g.status, 200);
    assert.equal(g.body, r.body);
    assert.ok(r.body.endsWith('}\n'));
  });

  it('generates names from generateName', async () => {
    const ev = sampleEvent('', 'ns1');
    (ev.metadata as Record<string, unknown>) = { generateName: 'gen-', namespace: 'ns1' };
    const r = await s.request('POST', `${BASE}/namespaces/ns1/events`, ev);
    assert.equal(r.status, 201, r.body);
    assert.match(r.json().metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('accepts eventTime with any fraction and writes six digits', async () => {
    const r = await s.request('POST', `${BASE}/namespaces/ns1/events`, sampleEvent('frac', 'ns1', { eventTime: '2026-11-22T10:00:00.5+01:00' }));
    assert.equal(r.status, 201, r.body);
    assert.equal(r.json().eventTime, '2026-11-22T09:00:00.500000Z');
  });

  it('answers AlreadyExists, NotFound and Invalid with upstream Status objects', async () => {
    const dup = await s.request('POST', `${BASE}/namespaces/ns1/events`, sampleEvent('e1', 'ns1'));
    assert.equal(dup.status, 409);
    assert.deepEqual(dup.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'events.events.cluster.io "e1" already exists',
      reason: 'AlreadyExists',
      details: { name: 'e1', group: 'events.cluster.io', kind: 'events' },
      code: 409,
    });
    const nf = await s.request('GET', `${BASE}/namespaces/ns1/events/missing`);
    assert.equal(nf.status, 404);
    assert.equal(nf.json().message, 'events.events.cluster.io "missing" not found');
    const bad = await s.request('POST', `${BASE}/namespaces/ns1/events`, sampleEvent('bad', 'ns1', { series: { count: 1, lastObservedTime: '2026-11-22T10:00:00.000000Z' } }));
    assert.equal(bad.status, 422);
    assert.equal(bad.json().message, 'Event "bad" is invalid: series.count: Invalid value: "": should be at least 2');
    assert.deepEqual(bad.json().details, { name: 'bad', kind: 'Event', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "": should be at least 2', field: 'series.count' }] });
  });

  it('rejects bad input with 4xx, never 5xx', async () => {
    const malformed = await s.request('POST', `${BASE}/namespaces/ns1/events`, '{"metadata":');
    assert.equal(malformed.status, 400);
    assert.equal(malformed.json().reason, 'BadRequest');
    const wrongType = await s.request('POST', `${BASE}/namespaces/ns1/events`, { ...sampleEvent('wt', 'ns1'), action: 5 });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.json().message, /cannot unmarshal number into Go struct field Event.action of type string/);
    const deep = await s.request('POST', `${BASE}/namespaces/ns1/events`, '['.repeat(20000) + ']'.repeat(20000));
    assert.equal(deep.status, 400);
    const big = await s.request('POST', `${BASE}/namespaces/ns1/events`, Buffer.alloc(3 * 1024 * 1024 + 10, 32));
    assert.equal(big.status, 413);
    assert.equal(big.json().message, 'Request entity too large: limit is 3145728');
    const nsMismatch = await s.request('POST', `${BASE}/namespaces/ns1/events`, sampleEvent('x', 'other'));
    assert.equal(nsMismatch.status, 400);
    assert.equal(nsMismatch.json().message, 'the namespace of the provided object does not match the namespace sent on the request');
    const unsupported = await s.request('POST', `${BASE}/namespaces/ns1/events`, 'x', { 'content-type': 'text/plain' });
    assert.equal(unsupported.status, 415);
    const notAcceptable = await s.request('GET', `${BASE}/namespaces/ns1/events`, undefined, { accept: 'text/html' });
    assert.equal(notAcceptable.status, 406);
    const postItem = await s.request('POST', `${BASE}/namespaces/ns1/events/e1`, sampleEvent('e1', 'ns1'));
    assert.equal(postItem.status, 405);
    const dry = await s.request('POST', `${BASE}/namespaces/ns1/events?dryRun=Bogus`, sampleEvent('dr', 'ns1'));
    assert.equal(dry.status, 422);
    assert.equal(dry.json().message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Bogus"]: supported values: "All"');
    const sel = await s.request('GET', `${BASE}/events?fieldSelector=involvedObject.name%3Dx`);
    assert.equal(sel.status, 400);
    assert.equal(sel.json().message, 'field label not supported: involvedObject.name');
  });

  it('honours ?timeout= (a Go duration) and refuses a bad one', async () => {
    const bad = await s.request('GET', `${BASE}/namespaces/ns1/events?timeout=soon`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json().message, 'invalid timeout specified in the request URL');
    const ok = await s.request('GET', `${BASE}/namespaces/ns1/events?timeout=32s`);
    assert.equal(ok.status, 200);
    // Waiting for a resourceVersion the server has not reached outlasts a 500ms deadline.
    const slow = await s.request('GET', `${BASE}/namespaces/ns1/events?resourceVersion=999999999&resourceVersionMatch=NotOlderThan&timeout=500ms`);
    assert.equal(slow.status, 504);
    assert.deepEqual(slow.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Timeout: request did not complete within the allotted timeout', reason: 'Timeout', details: {}, code: 504 });
  });

  it('a handler that outlives its ?timeout= neither writes after the 504 nor logs an unhandled error (found by npm run fuzz)', async () => {
    await Promise.all(Array.from({ length: 300 }, (_, i) => s.request('POST', `${BASE}/namespaces/late/events`, sampleEvent(`late-${i}`, 'late'))));
    const r = await s.request('DELETE', `${BASE}/namespaces/late/events?timeout=1ms`);
    assert.equal(r.status, 504);
    // the deletion goes on, as upstream's does, and finishes in the background
    for (let i = 0; i < 100 && (await s.request('GET', `${BASE}/namespaces/late/events`)).json().items.length > 0; i++) await new Promise((res) => setTimeout(res, 50));
    assert.equal((await s.request('GET', `${BASE}/namespaces/late/events`)).json().items.length, 0);
    assert.doesNotMatch(s.stderr, /Unhandled error/);
  });

  it('fieldValidation: Strict fails, Warn warns', async () => {
    const strict = await s.request('POST', `${BASE}/namespaces/ns1/events?fieldValidation=Strict`, { ...sampleEvent('fv', 'ns1'), bogus: 1 });
    assert.equal(strict.status, 400);
    assert.equal(strict.json().message, 'Event in version "v1" cannot be handled as a Event: strict decoding error: unknown field "bogus"');
    const warn = await s.request('POST', `${BASE}/namespaces/ns1/events`, { ...sampleEvent('fv', 'ns1'), bogus: 1 });
    assert.equal(warn.status, 201);
    assert.equal(warn.headers.warning, '299 - "unknown field \\"bogus\\""');
  });

  it('dryRun creates nothing', async () => {
    const r = await s.request('POST', `${BASE}/namespaces/ns1/events?dryRun=All`, sampleEvent('dry', 'ns1'));
    assert.equal(r.status, 201);
    assert.equal(r.json().metadata.resourceVersion, undefined);
    assert.equal((await s.request('GET', `${BASE}/namespaces/ns1/events/dry`)).status, 404);
  });
});

describe('list', () => {
  before(async () => {
    for (let i = 0; i < 7; i++) {
      const r = await s.request('POST', `${BASE}/namespaces/list1/events`, sampleEvent(`l${i}`, 'list1', { type: i % 2 ? 'Warning' : 'Normal' }));
      assert.equal(r.status, 201, r.body);
    }
  });

  it('lists a namespace in key order and all namespaces', async () => {
    const r = await s.request('GET', `${BASE}/namespaces/list1/events`);
    const l = r.json();
    assert.equal(l.kind, 'EventList');
    assert.deepEqual(l.items.map((e: any) => e.metadata.name), ['l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6']);
    assert.match(l.metadata.resourceVersion, /^\d+$/);
    const all = (await s.request('GET', `${BASE}/events`)).json();
    const nss = all.items.map((e: any) => e.metadata.namespace);
    assert.deepEqual(nss, [...nss].sort());
    assert.ok(all.items.length >= 7);
  });

  it('paginates a consistent snapshot with continue and remainingItemCount', async () => {
    const p1 = (await s.request('GET', `${BASE}/namespaces/list1/events?limit=3`)).json();
    assert.equal(p1.items.length, 3);
    assert.equal(p1.metadata.remainingItemCount, 4);
    // A write between pages must not show up in later pages.
    await s.request('POST', `${BASE}/namespaces/list1/events`, sampleEvent('l9', 'list1'));
    const p2 = (await s.request('GET', `${BASE}/namespaces/list1/events?limit=3&continue=${encodeURIComponent(p1.metadata.continue)}`)).json();
    const p3 = (await s.request('GET', `${BASE}/namespaces/list1/events?limit=3&continue=${encodeURIComponent(p2.metadata.continue)}`)).json();
    assert.deepEqual([...p1.items, ...p2.items, ...p3.items].map((e: any) => e.metadata.name), ['l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6']);
    assert.equal(p3.metadata.continue, undefined);
    assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
    const bad = await s.request('GET', `${BASE}/namespaces/list1/events?continue=garbage`);
    assert.equal(bad.status, 400);
    assert.match(bad.json().message, /^invalid continue token: /);
  });

  it('filters with label and field selectors', async () => {
    const w = (await s.request('GET', `${BASE}/namespaces/list1/events?fieldSelector=type%3DWarning`)).json();
    assert.deepEqual(w.items.map((e: any) => e.metadata.name), ['l1', 'l3', 'l5']);
    const byRegarding = (await s.request('GET', `${BASE}/events?fieldSelector=regarding.name%3Dweb-1,metadata.namespace%3Dlist1&labelSelector=app%20in%20(demo)`)).json();
    assert.ok(byRegarding.items.length >= 7);
    const none = (await s.request('GET', `${BASE}/events?labelSelector=app%3Dnone`)).json();
    assert.deepEqual(none.items, []);
  });

  it('serves Table output with the event columns', async () => {
    const r = await s.request('GET', `${BASE}/namespaces/list1/events?limit=2`, undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
    });
    const t = r.json();
    assert.equal(t.kind, 'Table');
    assert.deepEqual(t.columnDefinitions.map((c: any) => c.name), ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
    assert.equal(t.rows.length, 2);
    assert.equal(t.rows[0].object.kind, 'PartialObjectMetadata');
    assert.equal(t.rows[0].cells[3], 'pod/web-1');
    assert.ok(t.metadata.continue);
  });

  it('pretty-prints on request and for curl', async () => {
    const r = await s.request('GET', `${BASE}/namespaces/list1/events/l0?pretty=true`);
    assert.match(r.body, /^\{\n  "kind": "Event",\n  "apiVersion": "events.cluster.io\/v1",\n/);
    const curl = await s.request('GET', `${BASE}/namespaces/list1/events/l0`, undefined, { 'user-agent': 'curl/8.0' });
    assert.match(curl.body, /^\{\n  "kind"/);
    const plain = await s.request('GET', `${BASE}/namespaces/list1/events/l0?pretty=false`, undefined, { 'user-agent': 'curl/8.0' });
    assert.match(plain.body, /^\{"kind":"Event"/);
  });

  it('serves YAML', async () => {
    const r = await s.request('GET', `${BASE}/namespaces/list1/events/l0`, undefined, { accept: 'application/yaml' });
    assert.equal(r.headers['content-type'], 'application/yaml');
    assert.match(r.body, /^action: Started\napiVersion: events.cluster.io\/v1\n/);
  });
});

describe('replace and delete', () => {
  it('replaces with optimistic concurrency and keeps system metadata', async () => {
    const created = (await s.request('POST', `${BASE}/namespaces/rd/events`, sampleEvent('r1', 'rd'))).json();
    const upd = { ...created, series: { count: 2, lastObservedTime: '2026-11-22T10:05:00.000000Z' } };
    const r = await s.request('PUT', `${BASE}/namespaces/rd/events/r1`, upd);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json().metadata.uid, created.metadata.uid);
    assert.notEqual(r.json().metadata.resourceVersion, created.metadata.resourceVersion);
    const stale = await s.request('PUT', `${BASE}/namespaces/rd/events/r1`, upd);
    assert.equal(stale.status, 409);
    assert.equal(stale.json().reason, 'Conflict');
    const immutable = await s.request('PUT', `${BASE}/namespaces/rd/events/r1`, { ...r.json<Record<string, unknown>>(), note: "changed" });
    assert.equal(immutable.status, 422);
    const noop = await s.request('PUT', `${BASE}/namespaces/rd/events/r1`, r.json());
    assert.equal(noop.json().metadata.resourceVersion, r.json().metadata.resourceVersion);
    const nameMismatch = await s.request('PUT', `${BASE}/namespaces/rd/events/other`, r.json());
    assert.equal(nameMismatch.status, 400);
    assert.equal(nameMismatch.json().message, 'the name of the object (r1) does not match the name on the URL (other)');
    const createByPut = await s.request('PUT', `${BASE}/namespaces/rd/events/r2`, sampleEvent('r2', 'rd'));
    assert.equal(createByPut.status, 201);
  });

  it('deletes with a Success Status and preconditions', async () => {
    const created = (await s.request('POST', `${BASE}/namespaces/rd/events`, sampleEvent('d1', 'rd'))).json();
    const pre = await s.request('DELETE', `${BASE}/namespaces/rd/events/d1`, { preconditions: { uid: 'nope' } });
    assert.equal(pre.status, 409);
    const both = await s.request('DELETE', `${BASE}/namespaces/rd/events/d1?orphanDependents=true&propagationPolicy=Background`);
    assert.equal(both.status, 422);
    const d = await s.request('DELETE', `${BASE}/namespaces/rd/events/d1`, { propagationPolicy: 'Background' });
    assert.equal(d.status, 200);
    assert.deepEqual(d.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'd1', group: 'events.cluster.io', kind: 'events', uid: created.metadata.uid },
    });
    assert.equal((await s.request('DELETE', `${BASE}/namespaces/rd/events/d1`)).status, 404);
  });

  it('deletes a collection by label and returns the deleted items', async () => {
    for (const n of ['c1', 'c2', 'c3']) {
      const ev = sampleEvent(n, 'coll');
      (ev.metadata as any).labels = { set: 'yes' };
      await s.request('POST', `${BASE}/namespaces/coll/events`, ev);
    }
    await s.request('POST', `${BASE}/namespaces/coll/events`, sampleEvent('keep', 'coll'));
    const r = await s.request('DELETE', `${BASE}/namespaces/coll/events?labelSelector=set%3Dyes`);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json().kind, 'EventList');
    assert.deepEqual(r.json().items.map((e: any) => e.metadata.name), ['c1', 'c2', 'c3']);
    const left = (await s.request('GET', `${BASE}/namespaces/coll/events`)).json();
    assert.deepEqual(left.items.map((e: any) => e.metadata.name), ['keep']);
  });
});

describe('delete-collection options', () => {
  before(async () => {
    for (const [n, t] of [['x1', 'Warning'], ['x2', 'Normal'], ['x3', 'Warning']]) {
      await s.request('POST', `${BASE}/namespaces/dc/events`, sampleEvent(n!, 'dc', { type: t }));
    }
  });
  const names = async () => (await s.request('GET', `${BASE}/namespaces/dc/events`)).json().items.map((e: any) => e.metadata.name);

  it('validates delete options before deleting anything', async () => {
    const bad = await s.request('DELETE', `${BASE}/namespaces/dc/events?propagationPolicy=Sometimes`);
    assert.equal(bad.status, 422);
    assert.equal(bad.json().message, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"');
    const grace = await s.request('DELETE', `${BASE}/namespaces/dc/events?gracePeriodSeconds=abc`);
    assert.equal(grace.status, 400);
    const sel = await s.request('DELETE', `${BASE}/namespaces/dc/events?fieldSelector=note%3Dx`);
    assert.equal(sel.status, 400);
    assert.deepEqual(await names(), ['x1', 'x2', 'x3']);
  });

  it('dryRun deletes nothing but answers with what it would delete', async () => {
    const r = await s.request('DELETE', `${BASE}/namespaces/dc/events?fieldSelector=type%3DWarning&dryRun=All`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json().items.map((e: any) => e.metadata.name), ['x1', 'x3']);
    assert.deepEqual(await names(), ['x1', 'x2', 'x3']);
  });

  it('applies preconditions per item and accepts grace and propagation options', async () => {
    const stale = await s.request('DELETE', `${BASE}/namespaces/dc/events`, { preconditions: { resourceVersion: '1' } });
    assert.equal(stale.status, 409);
    const r = await s.request('DELETE', `${BASE}/namespaces/dc/events?fieldSelector=type%3DWarning&gracePeriodSeconds=0&propagationPolicy=Foreground`);
    assert.equal(r.status, 200);
    assert.deepEqual(await names(), ['x2']);
  });
});

describe('watch', () => {
  it('streams initial state, then ADDED/MODIFIED/DELETED, then resumes from a resourceVersion', async () => {
    await s.request('POST', `${BASE}/namespaces/w1/events`, sampleEvent('before', 'w1'));
    let w = s.watch(`${BASE}/namespaces/w1/events?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
    assert.equal(await w.status, 200);
    // On etcd before 3.4.31 / 3.5.13 upstream refuses the watch list (client-go lists instead): a watch from now.
    const refused = s.watchListRefused;
    if (refused) {
      await w.closed;
      assertWatchListRefused(w.frames);
      const rv = (await s.request('GET', `${BASE}/namespaces/w1/events`)).json().metadata.resourceVersion;
      w = s.watch(`${BASE}/namespaces/w1/events?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`);
      assert.equal(await w.status, 200);
    }
    const created = (await s.request('POST', `${BASE}/namespaces/w1/events`, sampleEvent('live', 'w1'))).json();
    await s.request('PUT', `${BASE}/namespaces/w1/events/live`, { ...created, series: { count: 3, lastObservedTime: '2026-11-22T10:05:00.000000Z' } });
    const del = await s.request('DELETE', `${BASE}/namespaces/w1/events/live`);
    assert.equal(del.status, 200);
    await waitFor(() => w.frames.length >= (refused ? 3 : 5));
    w.stop();
    if (!refused) {
      assert.deepEqual(w.frames.map((f) => f.type), ['ADDED', 'BOOKMARK', 'ADDED', 'MODIFIED', 'DELETED']);
      assert.equal(w.frames[1].object.metadata.annotations['cluster.io/initial-events-end'], 'true');
    } else assert.deepEqual(w.frames.map((f) => f.type), ['ADDED', 'MODIFIED', 'DELETED']);
    const live = w.frames.slice(-3);
    const deletedRV = Number(live[2].object.metadata.resourceVersion);
    assert.ok(deletedRV > Number(live[1].object.metadata.resourceVersion));

    const resumed = s.watch(`${BASE}/namespaces/w1/events?watch=1&resourceVersion=${created.metadata.resourceVersion}`);
    await waitFor(() => resumed.frames.length >= 2);
    resumed.stop();
    assert.deepEqual(resumed.frames.map((f) => f.type), ['MODIFIED', 'DELETED']);
  });

  it('streams a large initial state and a long history replay at the pace of the socket, without ending the watch', async () => {
    const note = 'x'.repeat(900);
    const first = (await s.request('POST', `${BASE}/namespaces/big/events`, sampleEvent('big-0', 'big', { note }))).json();
    const bodies = Array.from({ length: 199 }, (_, i) => sampleEvent(`big-${i + 1}`, 'big', { note }));
    for (let i = 0; i < bodies.length; i += 50) await Promise.all(bodies.slice(i, i + 50).map((b) => s.request('POST', `${BASE}/namespaces/big/events`, b)));
    // Below the 32 MiB per-watcher bound, but far more than one socket write: both must arrive whole.
    const initial = s.watch(`${BASE}/namespaces/big/events?watch=1&timeoutSeconds=2`);
    const replay = s.watch(`${BASE}/namespaces/big/events?watch=1&timeoutSeconds=2&resourceVersion=${first.metadata.resourceVersion}`);
    await Promise.all([initial.closed, replay.closed]);
    assert.equal(initial.frames.filter((f) => f.type === 'ADDED').length, 200);
    assert.equal(replay.frames.filter((f) => f.type === 'ADDED').length, 199);
  });

  it('watches one object on the /watch/ path and ends at timeoutSeconds', async () => {
    const w = s.watch(`${BASE}/watch/namespaces/w2/events/one?timeoutSeconds=1`);
    await s.request('POST', `${BASE}/namespaces/w2/events`, sampleEvent('other', 'w2'));
    await s.request('POST', `${BASE}/namespaces/w2/events`, sampleEvent('one', 'w2'));
    await w.closed;
    assert.deepEqual(w.frames.map((f) => [f.type, f.object.metadata.name]), [['ADDED', 'one']]);
  });

  it('filters by field selector and reports objects leaving the selection as DELETED', async () => {
    const w = s.watch(`${BASE}/namespaces/w3/events?watch=1&labelSelector=stage%3Done`);
    const ev = sampleEvent('sel', 'w3');
    (ev.metadata as any).labels = { stage: 'one' };
    const c = (await s.request('POST', `${BASE}/namespaces/w3/events`, ev)).json();
    await s.request('PUT', `${BASE}/namespaces/w3/events/sel`, { ...c, metadata: { ...c.metadata, labels: { stage: 'two' } } });
    await waitFor(() => w.frames.length >= 2);
    w.stop();
    assert.deepEqual(w.frames.map((f) => f.type), ['ADDED', 'DELETED']);
  });

  it('sends bookmarks when asked (one comes two seconds before the deadline)', async () => {
    const w = s.watch(`${BASE}/namespaces/w4/events?watch=1&resourceVersion=1&allowWatchBookmarks=true&timeoutSeconds=5`);
    assert.equal(await w.status, 200);
    await w.closed;
    const bookmarks = w.frames.filter((f) => f.type === 'BOOKMARK');
    assert.equal(bookmarks.length, 1);
    assert.match(bookmarks[0].object.metadata.resourceVersion, /^\d+$/);
    assert.equal(bookmarks[0].object.kind, 'Event');
  });

  it('refuses sendInitialEvents without resourceVersionMatch=NotOlderThan, and YAML watches', async () => {
    const r = await s.request('GET', `${BASE}/events?watch=1&sendInitialEvents=true`);
    assert.equal(r.status, 422);
    assert.equal(r.json().reason, 'Invalid');
    const y = await s.request('GET', `${BASE}/events?watch=1`, undefined, { accept: 'application/yaml' });
    assert.equal(y.status, 406);
  });
});

describe('platform endpoints', () => {
  it('serves health, version and discovery; refuses anonymous API access', async () => {
    const ready = await s.request('GET', '/readyz?verbose', undefined, {}, false);
    assert.equal(ready.status, 200);
    assert.match(ready.body, /\[\+\]ping ok/);
    // The storage check is named after the backend (decision 7): sqlite, or upstream's etcd and etcd-readiness.
    if (TEST_STORAGE === 'etcd3') {
      assert.match(ready.body, /\[\+\]etcd ok/);
      assert.match(ready.body, /\[\+\]etcd-readiness ok/);
    } else assert.match(ready.body, /\[\+\]sqlite ok/);
    assert.match(ready.body, /readyz check passed/);
    const v = await s.request('GET', '/version', undefined, {}, false);
    assert.equal(v.json().major, '1');
    // without credentials a request is system:anonymous, which may not list events: 403, as upstream
    const anon = await s.request('GET', `${BASE}/events`, undefined, {}, false);
    assert.equal(anon.status, 403);
    assert.match(anon.json().message, /^events\.events\.cluster\.io is forbidden: User "system:anonymous" cannot list resource "events"/);
    const apis = (await s.request('GET', '/apis')).json();
    assert.equal(apis.groups[0].name, 'events.cluster.io');
    const rl = (await s.request('GET', BASE)).json();
    assert.deepEqual(rl.resources[0].shortNames, ['ev']);
    const ns = (await s.request('GET', '/api/v1/namespaces/anything')).json();
    assert.equal(ns.status.phase, 'Active');
    const unknown = await s.request('GET', `${BASE}/pods`);
    assert.equal(unknown.status, 404);
  });
});

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
