/**
 * End-to-end: core/v1 Events (`/api/v1`) over real HTTPS — the same stored objects as events.cluster.io/v1, read
 * and written through either API, one resourceVersion sequence, watches that see writes made through the other API.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventToCore } from '../src/apis/core/v1/conversion.ts';
import { CORE_EVENT, CORE_EVENTS_DEFS } from '../src/apis/core/v1/schema.ts';
import { encode } from '../src/apimachinery/codec/encode.ts';
import { TestServer, assertWatchListRefused, sampleCoreEvent, sampleEvent } from './helpers/server.ts';

const EV = '/apis/events.cluster.io/v1';
const CORE = '/api/v1';
const s = new TestServer();

before(async () => {
  await s.start();
});
after(async () => {
  await s.cleanup();
});

const coreEvent = sampleCoreEvent;

/** What core/v1 must answer for an events.cluster.io/v1 object (the conversion, in Go key order). */
const asCore = (eventsV1: unknown) => encode(eventToCore(eventsV1 as never), CORE_EVENTS_DEFS, CORE_EVENT).toString() + '\n';

describe('discovery and OpenAPI', () => {
  it('lists events in /api/v1 with the short name ev and the shared storage version', async () => {
    const list = (await s.request('GET', CORE)).json();
    const events = list.resources.find((r: { name: string }) => r.name === 'events');
    const groupList = (await s.request('GET', `${EV}`)).json();
    assert.deepEqual(events, {
      name: 'events',
      singularName: 'event',
      namespaced: true,
      kind: 'Event',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ev'],
      storageVersionHash: groupList.resources[0].storageVersionHash,
    });
    // kinds that `kubectl events --for` resolves, listed without verbs and not served
    const pods = list.resources.find((r: { name: string }) => r.name === 'pods');
    assert.deepEqual(pods.verbs, []);
    assert.equal((await s.request('GET', `${CORE}/namespaces/x/pods`)).status, 404);
  });

  it('serves the core Event schema at /openapi/v3/api/v1', async () => {
    const index = (await s.request('GET', '/openapi/v3')).json();
    const doc = (await s.request('GET', index.paths['api/v1'].serverRelativeURL)).json();
    const schema = doc.components.schemas['io.k8s.api.core.v1.Event'];
    assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Event', version: 'v1' }]);
    assert.deepEqual(Object.keys(schema.properties).slice(3, 6), ['involvedObject', 'reason', 'message']);
    assert.ok(doc.paths['/api/v1/namespaces/{namespace}/events/{name}'].patch);
    const v2 = (await s.request('GET', '/openapi/v2', undefined, { accept: 'application/json' })).json();
    assert.ok(v2.definitions['io.k8s.api.core.v1.Event']);
    assert.ok(v2.definitions['io.cluster.api.events.v1.Event']);
  });
});

describe('one object, two views', () => {
  it('an event created through core/v1 reads back identically through both APIs', async () => {
    const c = await s.request('POST', `${CORE}/namespaces/c1/events`, coreEvent('old', 'c1'));
    assert.equal(c.status, 201, c.body);
    const created = c.json();
    assert.equal(created.apiVersion, 'v1');
    assert.deepEqual(Object.keys(created), [
      'kind', 'apiVersion', 'metadata', 'involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp',
      'count', 'type', 'eventTime', 'reportingComponent', 'reportingInstance',
    ]);
    assert.equal(created.eventTime, null);
    const viaCore = await s.request('GET', `${CORE}/namespaces/c1/events/old`);
    assert.equal(viaCore.body, c.body);
    const viaEvents = await s.request('GET', `${EV}/namespaces/c1/events/old`);
    const ev = viaEvents.json();
    assert.equal(ev.apiVersion, 'events.cluster.io/v1');
    assert.deepEqual(ev.metadata, created.metadata);
    assert.deepEqual(ev.regarding, created.involvedObject);
    assert.equal(ev.note, 'Container image pulled');
    assert.deepEqual(ev.deprecatedSource, { component: 'kubelet', host: 'node-1' });
    assert.equal(ev.deprecatedFirstTimestamp, '2026-11-22T10:00:00Z');
    assert.equal(ev.deprecatedLastTimestamp, '2026-11-22T10:00:05Z');
    assert.equal(ev.deprecatedCount, 1);
    assert.equal(ev.eventTime, null);
    assert.equal(asCore(ev), viaCore.body);
  });

  it('an event created through events.cluster.io/v1 reads back through core/v1', async () => {
    const r = await s.request('POST', `${EV}/namespaces/c1/events`, sampleEvent('new', 'c1', { series: { count: 2, lastObservedTime: '2026-11-22T10:01:00.000000Z' } }));
    assert.equal(r.status, 201, r.body);
    const core = await s.request('GET', `${CORE}/namespaces/c1/events/new`);
    assert.equal(core.status, 200);
    assert.equal(core.body, asCore(r.json()));
    const ce = core.json();
    assert.equal(ce.reportingComponent, 'example.com/controller');
    assert.equal(ce.reportingInstance, 'controller-1');
    assert.equal(ce.message, 'Started container web');
    assert.deepEqual(ce.involvedObject, { kind: 'Pod', namespace: 'c1', name: 'web-1', apiVersion: 'v1' });
    assert.deepEqual(ce.series, { count: 2, lastObservedTime: '2026-11-22T10:01:00.000000Z' });
    assert.deepEqual(ce.source, {});
    assert.equal(ce.firstTimestamp, null);
  });

  it('shares resourceVersions: one sequence for writes through either API, same list RV', async () => {
    const a = (await s.request('POST', `${CORE}/namespaces/rv/events`, coreEvent('a', 'rv'))).json();
    const b = (await s.request('POST', `${EV}/namespaces/rv/events`, sampleEvent('b', 'rv'))).json();
    assert.ok(Number(b.metadata.resourceVersion) > Number(a.metadata.resourceVersion));
    const coreList = (await s.request('GET', `${CORE}/namespaces/rv/events`)).json();
    const evList = (await s.request('GET', `${EV}/namespaces/rv/events`)).json();
    assert.equal(coreList.kind, 'EventList');
    assert.equal(coreList.apiVersion, 'v1');
    assert.equal(coreList.metadata.resourceVersion, evList.metadata.resourceVersion);
    assert.deepEqual(
      coreList.items.map((i: { metadata: { name: string; resourceVersion: string } }) => [i.metadata.name, i.metadata.resourceVersion]),
      evList.items.map((i: { metadata: { name: string; resourceVersion: string } }) => [i.metadata.name, i.metadata.resourceVersion]),
    );
    // an update through core is visible through events.cluster.io at the new resourceVersion
    const u = await s.request('PUT', `${CORE}/namespaces/rv/events/a`, { ...coreEvent('a', 'rv', { message: 'changed', count: 2 }), metadata: a.metadata });
    assert.equal(u.status, 200, u.body);
    const back = (await s.request('GET', `${EV}/namespaces/rv/events/a`)).json();
    assert.equal(back.metadata.resourceVersion, u.json().metadata.resourceVersion);
    assert.equal(back.note, 'changed');
    assert.equal(back.deprecatedCount, 2);
  });

  it('a watch on one API sees writes through the other, in its own form', async () => {
    const list = (await s.request('GET', `${CORE}/namespaces/w/events`)).json();
    const rv = list.metadata.resourceVersion;
    const coreWatch = s.watch(`${CORE}/namespaces/w/events?watch=true&resourceVersion=${rv}`);
    const evWatch = s.watch(`${EV}/namespaces/w/events?watch=true&resourceVersion=${rv}`);
    await Promise.all([coreWatch.status, evWatch.status]);
    const created = (await s.request('POST', `${EV}/namespaces/w/events`, sampleEvent('from-events', 'w'))).json();
    await s.request('POST', `${CORE}/namespaces/w/events`, coreEvent('from-core', 'w'));
    await s.request('DELETE', `${CORE}/namespaces/w/events/from-events`);
    const deadline = Date.now() + 5000;
    while ((coreWatch.frames.length < 3 || evWatch.frames.length < 3) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    coreWatch.stop();
    evWatch.stop();
    const summary = (frames: { type: string; object: { apiVersion: string; metadata: { name: string } } }[]) =>
      frames.map((f) => [f.type, f.object.apiVersion, f.object.metadata.name]);
    assert.deepEqual(summary(coreWatch.frames), [
      ['ADDED', 'v1', 'from-events'],
      ['ADDED', 'v1', 'from-core'],
      ['DELETED', 'v1', 'from-events'],
    ]);
    assert.deepEqual(summary(evWatch.frames), [
      ['ADDED', 'events.cluster.io/v1', 'from-events'],
      ['ADDED', 'events.cluster.io/v1', 'from-core'],
      ['DELETED', 'events.cluster.io/v1', 'from-events'],
    ]);
    assert.equal(JSON.stringify(coreWatch.frames[0].object) + '\n', asCore(created));
    assert.equal(coreWatch.frames[1].object.message, 'Container image pulled');
  });

  it('core watch bookmarks are empty core Events', async () => {
    let w = s.watch(`${CORE}/namespaces/w/events?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`);
    await w.closed;
    if (s.watchListRefused) {
      // etcd before 3.4.31 / 3.5.13: no watch list (as upstream); a watch from a listed resourceVersion (one without
      // would be defaulted to a watch list) gets its bookmark 2 s before its timeout.
      assertWatchListRefused(w.frames);
      const rv = (await s.request('GET', `${CORE}/namespaces/w/events`)).json().metadata.resourceVersion;
      w = s.watch(`${CORE}/namespaces/w/events?watch=true&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion=${rv}`);
      await w.closed;
    }
    const bookmark = w.frames.find((f) => f.type === 'BOOKMARK');
    assert.deepEqual(Object.keys(bookmark.object), [
      'kind', 'apiVersion', 'metadata', 'involvedObject', 'source', 'firstTimestamp', 'lastTimestamp', 'eventTime', 'reportingComponent', 'reportingInstance',
    ]);
    assert.equal(bookmark.object.apiVersion, 'v1');
  });
});

describe('core field selectors', () => {
  before(async () => {
    await s.request('POST', `${CORE}/namespaces/fs/events`, coreEvent('k1', 'fs'));
    await s.request('POST', `${CORE}/namespaces/fs/events`, coreEvent('k2', 'fs', { involvedObject: { kind: 'Pod', namespace: 'fs', name: 'db-0' }, type: 'Warning' }));
    await s.request('POST', `${EV}/namespaces/fs/events`, sampleEvent('n1', 'fs'));
  });
  const names = async (path: string) => {
    const r = await s.request('GET', path);
    assert.equal(r.status, 200, r.body);
    return r.json().items.map((i: { metadata: { name: string } }) => i.metadata.name);
  };
  const sel = (q: string) => `${CORE}/namespaces/fs/events?fieldSelector=${encodeURIComponent(q)}`;

  it('filters by involvedObject.*, source (with the reporting fallback), reportingComponent, type and reason', async () => {
    assert.deepEqual(await names(sel('involvedObject.name=web-1')), ['k1', 'n1']);
    assert.deepEqual(await names(sel('involvedObject.name=db-0,involvedObject.kind=Pod')), ['k2']);
    assert.deepEqual(await names(sel('involvedObject.fieldPath=spec.containers{web}')), ['k1']);
    assert.deepEqual(await names(sel('source=kubelet')), ['k1', 'k2']);
    assert.deepEqual(await names(sel('source=example.com/controller')), ['n1']);
    assert.deepEqual(await names(sel('reportingComponent=example.com/controller')), ['n1']);
    assert.deepEqual(await names(sel('reportingComponent=')), ['k1', 'k2']);
    assert.deepEqual(await names(sel('type=Warning')), ['k2']);
    assert.deepEqual(await names(sel('reason!=Pulled')), ['n1']);
    assert.deepEqual(await names(sel('metadata.name=k2')), ['k2']);
    assert.deepEqual(await names(`${CORE}/events?fieldSelector=${encodeURIComponent('involvedObject.namespace=fs,type=Normal')}`), ['k1', 'n1']);
  });

  it('refuses the other API labels, each API its own', async () => {
    for (const [path, label] of [
      [sel('regarding.name=web-1'), 'regarding.name'],
      [sel('reportingController=x'), 'reportingController'],
      [`${EV}/namespaces/fs/events?fieldSelector=involvedObject.name%3Dweb-1`, 'involvedObject.name'],
      [`${EV}/namespaces/fs/events?fieldSelector=reportingComponent%3Dx`, 'reportingComponent'],
    ] as const) {
      const r = await s.request('GET', path);
      assert.equal(r.status, 400, path);
      assert.equal(r.json().message, `field label not supported: ${label}`);
    }
  });

  it('filters watches with core labels', async () => {
    const w = s.watch(`${CORE}/namespaces/fs/events?watch=true&fieldSelector=involvedObject.name%3Ddb-0&timeoutSeconds=1`);
    await w.closed;
    assert.deepEqual(w.frames.map((f) => f.object.metadata.name), ['k2']);
  });

  it('deletes a collection selected by core labels', async () => {
    const r = await s.request('DELETE', `${CORE}/namespaces/fs/events?fieldSelector=source%3Dkubelet`);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json().apiVersion, 'v1');
    assert.deepEqual(await names(`${CORE}/namespaces/fs/events`), ['n1']);
  });
});

describe('conformance (test/e2e/instrumentation) steps on core/v1', () => {
  it('§14.1 step 4: a core list with fieldSelector=source=test-controller finds the events/v1 event', async () => {
    const ev = {
      apiVersion: 'events.cluster.io/v1',
      kind: 'Event',
      metadata: { name: 'event-test', labels: { 'testevent-constant': 'true' } },
      regarding: { namespace: 'conf' },
      eventTime: '2017-09-19T13:49:16.000000Z',
      note: 'This is event-test',
      action: 'Do',
      reason: 'Test',
      type: 'Normal',
      reportingController: 'test-controller',
      reportingInstance: 'test-node',
    };
    assert.equal((await s.request('POST', `${EV}/namespaces/conf/events`, ev)).status, 201);
    const list = (await s.request('GET', `${CORE}/namespaces/conf/events?fieldSelector=source%3Dtest-controller`)).json();
    assert.deepEqual(list.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['event-test']);
  });

  it('§14.2: the core lifecycle (create with count 1, patch message, PUT series with cleared RV, delete, delete collection)', async () => {
    const ns = 'core-conf';
    const created = await s.request('POST', `${CORE}/namespaces/${ns}/events`, coreEvent('event-test', ns, { metadata: { name: 'event-test', labels: { 'testevent-set': 'true' } } }));
    assert.equal(created.status, 201, created.body);
    const got = (await s.request('GET', `${CORE}/namespaces/${ns}/events/event-test`)).json();
    // core requests get the legacy rules only: the message may change (upstream patches it)
    const patched = await s.request('PATCH', `${CORE}/namespaces/${ns}/events/event-test`, { message: 'This is event-test patched' }, {
      'content-type': 'application/strategic-merge-patch+json',
    });
    assert.equal(patched.status, 200, patched.body);
    assert.equal(patched.json().message, 'This is event-test patched');
    assert.equal(patched.json().apiVersion, 'v1');
    assert.equal((await s.request('GET', `${EV}/namespaces/${ns}/events/event-test`)).json().note, 'This is event-test patched');
    const series = { count: 100, lastObservedTime: '2017-09-19T13:49:56.000000Z' };
    const put = await s.request('PUT', `${CORE}/namespaces/${ns}/events/event-test`, { ...got, metadata: { ...got.metadata, resourceVersion: '' }, series });
    assert.equal(put.status, 200, put.body);
    const after = (await s.request('GET', `${CORE}/namespaces/${ns}/events/event-test`)).json();
    assert.deepEqual(after.series, series);
    assert.equal(after.metadata.uid, got.metadata.uid);
    assert.equal(after.metadata.creationTimestamp, got.metadata.creationTimestamp);
    const del = await s.request('DELETE', `${CORE}/namespaces/${ns}/events/event-test`);
    assert.equal(del.status, 200);
    assert.deepEqual(del.json().details, { name: 'event-test', kind: 'events', uid: got.metadata.uid });

    for (const n of ['test-event-1', 'test-event-2', 'test-event-3']) {
      await s.request('POST', `${CORE}/namespaces/${ns}/events`, coreEvent(n, ns, { metadata: { name: n, labels: { 'testevent-set': 'true' } } }));
    }
    const sel = `${CORE}/namespaces/${ns}/events?labelSelector=testevent-set%3Dtrue`;
    assert.equal((await s.request('GET', sel)).json().items.length, 3);
    assert.equal((await s.request('DELETE', sel)).status, 200);
    assert.equal((await s.request('GET', sel)).json().items.length, 0);
  });
});

describe('core errors name the core resource and fields', () => {
  it('NotFound and AlreadyExists without a group', async () => {
    const nf = await s.request('GET', `${CORE}/namespaces/err/events/x`);
    assert.equal(nf.status, 404);
    assert.deepEqual(nf.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'events "x" not found',
      reason: 'NotFound',
      details: { name: 'x', kind: 'events' },
      code: 404,
    });
    await s.request('POST', `${CORE}/namespaces/err/events`, coreEvent('dup', 'err'));
    const dup = await s.request('POST', `${CORE}/namespaces/err/events`, coreEvent('dup', 'err'));
    assert.equal(dup.status, 409);
    assert.equal(dup.json().message, 'events "dup" already exists');
  });

  it('Invalid with core field names; the strict events/v1 rules do not apply', async () => {
    const bad = await s.request('POST', `${CORE}/namespaces/err/events`, coreEvent('bad', 'err', { involvedObject: { kind: 'Pod', namespace: 'other', name: 'p' } }));
    assert.equal(bad.status, 422);
    assert.equal(bad.json().message, 'Event "bad" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace');
    assert.deepEqual(bad.json().details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "other": does not match event.namespace', field: 'involvedObject.namespace' }]);
    const newStyle = await s.request('POST', `${CORE}/namespaces/err/events`, coreEvent('ns', 'err', { eventTime: '2026-11-22T10:00:00.000000Z', reportingInstance: 'i', action: 'A' }));
    assert.equal(newStyle.status, 422);
    assert.match(newStyle.json().message, /^Event "ns" is invalid: \[reportingComponent: Required value, reportingComponent: Invalid value: "": name part must be non-empty, /);
  });

  it('decodes with core names: events/v1 fields are unknown, an events/v1 body is the wrong version', async () => {
    const strict = await s.request('POST', `${CORE}/namespaces/err/events?fieldValidation=Strict`, { ...coreEvent('st', 'err'), note: 'x' });
    assert.equal(strict.status, 400);
    assert.equal(strict.json().message, 'Event in version "v1" cannot be handled as a Event: strict decoding error: unknown field "note"');
    const wrong = await s.request('POST', `${CORE}/namespaces/err/events`, sampleEvent('wrong', 'err'));
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json().message, 'the API version in the data (events.cluster.io/v1) does not match the expected API version (v1)');
  });

  it('serves Tables with the event columns', async () => {
    const r = await s.request('GET', `${CORE}/namespaces/c1/events/old`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    const t = r.json();
    assert.equal(t.kind, 'Table');
    assert.deepEqual(t.columnDefinitions.map((c: { name: string }) => c.name), ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
    assert.deepEqual(t.rows[0].cells.slice(1, 7), ['Normal', 'Pulled', 'pod/web-1', 'spec.containers{web}', 'kubelet, node-1', 'Container image pulled']);
    assert.equal(t.rows[0].cells[8], 1);
    const withObject = (await s.request('GET', `${CORE}/namespaces/c1/events/old?includeObject=Object`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json();
    assert.equal(withObject.rows[0].object.apiVersion, 'v1');
    assert.equal(withObject.rows[0].object.message, 'Container image pulled');
  });
});
