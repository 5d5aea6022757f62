/** End-to-end: PATCH over real HTTPS (JSON patch, merge patch, strategic merge patch), with upstream's errors. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TestServer, sampleEvent } from './helpers/server.ts';

const BASE = '/apis/events.cluster.io/v1';
const NS = 'patch';
const s = new TestServer();

const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const path = (name: string, query = '') => `${BASE}/namespaces/${NS}/events/${name}${query}`;
const patch = (name: string, type: string, body: unknown, query = '') =>
  s.request('PATCH', path(name, query), typeof body === 'string' ? body : JSON.stringify(body), { 'content-type': type });
const get = async (name: string) => (await s.request('GET', path(name))).json();

async function create(name: string, extra: Record<string, unknown> = {}) {
  const r = await s.request('POST', `${BASE}/namespaces/${NS}/events`, sampleEvent(name, NS, extra));
  assert.equal(r.status, 201, r.body);
  return r.json();
}

before(async () => {
  await s.start();
});
after(async () => {
  await s.cleanup();
});

describe('media types and options', () => {
  it('refuses other content types with 415 listing the four patch types', async () => {
    await create('mt');
    const r = await patch('mt', 'application/json', { metadata: { labels: { a: 'b' } } });
    assert.equal(r.status, 415);
    assert.equal(r.json().reason, 'UnsupportedMediaType');
    assert.equal(
      r.json().message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
    const ok = await patch('mt', `${MERGE}; charset=utf-8`, { metadata: { labels: { a: 'b' } } });
    assert.equal(ok.status, 200, ok.body);
  });

  it('validates PatchOptions in upstream order with upstream texts', async () => {
    const cases: [string, string, string][] = [
      [MERGE, '?force=false', 'force: Forbidden: may not be specified for non-apply patch'],
      ['application/apply-patch+yaml', '', 'fieldManager: Required value: is required for apply patch'],
      [MERGE, `?fieldManager=${'m'.repeat(129)}`, 'fieldManager: Too long: may not be more than 128 bytes'],
      [MERGE, '?fieldManager=ab%07c', 'fieldManager: Invalid value: "ab\\ac": invalid character U+0007 (at position 2)'],
      [MERGE, '?dryRun=foo', 'dryRun: Unsupported value: ["foo"]: supported values: "All"'],
      [MERGE, '?fieldValidation=x', 'fieldValidation: Unsupported value: "x": supported values: "", "Ignore", "Strict", "Warn"'],
      [MERGE, '?force=1&dryRun=x', '[force: Forbidden: may not be specified for non-apply patch, dryRun: Unsupported value: ["x"]: supported values: "All"]'],
    ];
    for (const [type, q, text] of cases) {
      const r = await patch('mt', type, {}, q);
      assert.equal(r.status, 422, `${q}: ${r.body}`);
      const st = r.json();
      assert.equal(st.message, `PatchOptions.meta.k8s.io "" is invalid: ${text}`);
      assert.equal(st.details.group, 'meta.k8s.io');
      assert.equal(st.details.kind, 'PatchOptions');
    }
  });

  it('answers 404 for a missing object, whatever the body', async () => {
    for (const [type, body] of [[MERGE, '{}'], [JSON_PATCH, 'not json'], [SMP, '{}']] as const) {
      const r = await patch('missing', type, body);
      assert.equal(r.status, 404);
      assert.equal(r.json().message, 'events.events.cluster.io "missing" not found');
      assert.deepEqual(r.json().details, { name: 'missing', group: 'events.cluster.io', kind: 'events' });
    }
  });
});

describe('JSON patch', () => {
  it('applies operations, honours a test precondition on the resourceVersion', async () => {
    const ev = await create('jp');
    const rv = ev.metadata.resourceVersion;
    const r = await patch('jp', JSON_PATCH, [
      { op: 'test', path: '/metadata/resourceVersion', value: rv },
      { op: 'add', path: '/metadata/labels/tier', value: 'web' },
      { op: 'add', path: '/metadata/finalizers', value: ['example.com/keep'] },
    ]);
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json().metadata.labels, { app: 'demo', tier: 'web' });
    assert.notEqual(r.json().metadata.resourceVersion, rv);
    const stale = await patch('jp', JSON_PATCH, [{ op: 'test', path: '/metadata/resourceVersion', value: rv }, { op: 'remove', path: '/metadata/labels/tier' }]);
    assert.equal(stale.status, 422);
    assert.deepEqual(stale.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
    const cleared = await patch('jp', JSON_PATCH, [{ op: 'remove', path: '/metadata/finalizers' }]);
    assert.equal(cleared.status, 200, cleared.body);
    assert.equal(cleared.json().metadata.finalizers, undefined);
  });

  it('413 beyond 10000 operations; 400 for a body that is not a patch', async () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'Event' }));
    const big = await patch('jp', JSON_PATCH, ops);
    assert.equal(big.status, 413);
    assert.equal(big.json().message, 'The allowed maximum operations in a JSON patch is 10000, got 10001');
    const bad = await patch('jp', JSON_PATCH, { op: 'add' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json().message, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp');
  });

  it('a replaced resourceVersion is the precondition; a removed one is an unconditional update', async () => {
    const stale = await patch('jp', JSON_PATCH, [{ op: 'replace', path: '/metadata/resourceVersion', value: '1' }, { op: 'add', path: '/metadata/labels/x', value: 'y' }]);
    assert.equal(stale.status, 409);
    assert.equal(stale.json().message, 'Operation cannot be fulfilled on events.events.cluster.io "jp": the object has been modified; please apply your changes to the latest version and try again');
    const free = await patch('jp', JSON_PATCH, [{ op: 'remove', path: '/metadata/resourceVersion' }, { op: 'add', path: '/metadata/labels/x', value: 'y' }]);
    assert.equal(free.status, 200, free.body);
    assert.equal(free.json().metadata.labels.x, 'y');
  });
});

describe('merge patch', () => {
  it('merges maps, deletes with null, and keeps the resourceVersion when nothing changes', async () => {
    await create('mp');
    const r = await patch('mp', MERGE, { metadata: { labels: { app: null, tier: 'db' }, annotations: { note: 'x' } } }, '?fieldManager=tester');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json().metadata.labels, { tier: 'db' });
    assert.deepEqual(r.json().metadata.annotations, { note: 'x' });
    const again = await patch('mp', MERGE, { metadata: { labels: { tier: 'db' } } });
    assert.equal(again.status, 200);
    assert.equal(again.json().metadata.resourceVersion, r.json().metadata.resourceVersion);
  });

  it('compare-and-swap with metadata.resourceVersion; identity checks', async () => {
    const cur = await get('mp');
    const swapped = await patch('mp', MERGE, { metadata: { resourceVersion: cur.metadata.resourceVersion, labels: { cas: '1' } } });
    assert.equal(swapped.status, 200, swapped.body);
    const stale = await patch('mp', MERGE, { metadata: { resourceVersion: cur.metadata.resourceVersion, labels: { cas: '2' } } });
    assert.equal(stale.status, 409);
    assert.deepEqual(stale.json().details, { name: 'mp', group: 'events.cluster.io', kind: 'events' });
    const renamed = await patch('mp', MERGE, { metadata: { name: 'other' } });
    assert.equal(renamed.status, 400);
    assert.equal(renamed.json().message, 'the name of the object (other) does not match the name on the URL (mp)');
    const moved = await patch('mp', MERGE, { metadata: { namespace: 'elsewhere' } });
    assert.equal(moved.status, 400);
    assert.equal(moved.json().message, 'the namespace of the provided object does not match the namespace sent on the request');
    const uid = await patch('mp', MERGE, { metadata: { uid: 'abc' } });
    assert.equal(uid.status, 422);
    assert.equal(uid.json().message, 'Event "mp" is invalid: metadata.uid: Invalid value: "abc": field is immutable');
    const note = await patch('mp', MERGE, { note: 'changed' });
    assert.equal(note.status, 422);
    assert.match(note.json().message, /^Event "mp" is invalid: note: Invalid value: "changed": field is immutable/);
  });

  it('fieldValidation: Strict refuses unknown fields as an invalid patch, Warn warns, Ignore is silent', async () => {
    const strict = await patch('mp', MERGE, { foo: 1, metadata: { bar: 2 } }, '?fieldValidation=Strict');
    assert.equal(strict.status, 422);
    const st = strict.json();
    assert.match(st.message, /^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: (.*)$/);
    assert.deepEqual(st.message.replace(/.*strict decoding error: /, '').split(', ').sort(), ['unknown field "foo"', 'unknown field "metadata.bar"']);
    assert.equal(st.details.kind, undefined);
    assert.equal(st.details.causes[0].field, 'patch');
    assert.equal(st.details.causes[0].reason, 'FieldValueInvalid');
    const warn = await patch('mp', MERGE, '{"foo":1,"metadata":{"labels":{"w":"1","w":"2"}}}');
    assert.equal(warn.status, 200, warn.body);
    // Node joins repeated Warning headers with ", ".
    assert.equal(warn.headers.warning, '299 - "duplicate field \\"metadata.labels.w\\"", 299 - "unknown field \\"foo\\""');
    assert.equal(warn.json().metadata.labels.w, '2');
    const ignore = await patch('mp', MERGE, { foo: 1, metadata: { labels: { i: '1' } } }, '?fieldValidation=Ignore');
    assert.equal(ignore.status, 200);
    assert.equal(ignore.headers.warning, undefined);
  });

  it('a result of the wrong type is an invalid patch; null and scalars are not merge patches', async () => {
    const wrong = await patch('mp', MERGE, { series: 'often' });
    assert.equal(wrong.status, 422);
    assert.match(wrong.json().message, /^ "" is invalid: patch: Invalid value: ".*": json: cannot unmarshal string into Go struct field Event\.series of type v1\.EventSeries$/);
    for (const body of ['null', '5']) {
      const r = await patch('mp', MERGE, body, '?fieldValidation=Ignore');
      assert.equal(r.status, 400);
      assert.equal(r.json().message, 'Invalid JSON Patch');
    }
    const arr = await patch('mp', MERGE, '[1]');
    assert.equal(arr.status, 400);
    assert.equal(arr.json().message, 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}');
  });

  it('dryRun returns the patched object and stores nothing', async () => {
    const before = await get('mp');
    const r = await patch('mp', MERGE, { metadata: { labels: { dry: 'run' } } }, '?dryRun=All');
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json().metadata.labels.dry, 'run');
    const after = await get('mp');
    assert.deepEqual(after, before);
  });

  it('series may change and is validated', async () => {
    const ok = await patch('mp', MERGE, { series: { count: 2, lastObservedTime: '2026-11-22T10:05:00.000000Z' } });
    assert.equal(ok.status, 200, ok.body);
    assert.equal(ok.json().series.count, 2);
    const bad = await patch('mp', MERGE, { series: { count: 1 } });
    assert.equal(bad.status, 422);
    assert.match(bad.json().message, /^Event "mp" is invalid: /);
  });
});

describe('strategic merge patch', () => {
  const owner = (uid: string, name: string) => ({ apiVersion: 'v1', kind: 'Pod', name, uid });

  it('merges ownerReferences by uid and finalizers as a set, with directives', async () => {
    await create('smp', {});
    const first = await patch('smp', SMP, { metadata: { ownerReferences: [owner('u1', 'a'), owner('u2', 'b')], finalizers: ['x/a'] } });
    assert.equal(first.status, 200, first.body);
    const r = await patch('smp', SMP, { metadata: { ownerReferences: [owner('u2', 'b2'), owner('u3', 'c')], finalizers: ['x/b', 'x/a'] } });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json().metadata.ownerReferences.map((o: { uid: string; name: string }) => `${o.uid}=${o.name}`), ['u1=a', 'u2=b2', 'u3=c']);
    // Items named in the patch take the patch's order (upstream normalizeElementOrder).
    assert.deepEqual(r.json().metadata.finalizers, ['x/b', 'x/a']);
    const d = await patch('smp', SMP, { metadata: { ownerReferences: [{ uid: 'u1', $patch: 'delete' }], '$deleteFromPrimitiveList/finalizers': ['x/a'] } });
    assert.equal(d.status, 200, d.body);
    assert.deepEqual(d.json().metadata.ownerReferences.map((o: { uid: string }) => o.uid), ['u2', 'u3']);
    assert.deepEqual(d.json().metadata.finalizers, ['x/b']);
    const order = await patch('smp', SMP, { metadata: { '$setElementOrder/ownerReferences': [{ uid: 'u3' }, { uid: 'u2' }] } });
    assert.deepEqual(order.json().metadata.ownerReferences.map((o: { uid: string }) => o.uid), ['u3', 'u2']);
    const cleared = await patch('smp', SMP, { metadata: { finalizers: null, labels: { $patch: 'replace', only: 'me' } } });
    assert.equal(cleared.status, 200, cleared.body);
    assert.deepEqual(cleared.json().metadata.labels, { only: 'me' });
    assert.equal(cleared.json().metadata.finalizers, undefined);
  });

  it('maps directive errors to 400 and lists of lists to 422; strict problems name the %v patch', async () => {
    const retain = await patch('smp', SMP, { metadata: { labels: { $retainKeys: ['a'], b: 'c' } } });
    assert.equal(retain.status, 400);
    assert.equal(retain.json().message, 'invalid patch format of retainKeys');
    const order = await patch('smp', SMP, { metadata: { '$setElementOrder/finalizers': 'x' } });
    assert.equal(order.status, 400);
    assert.equal(order.json().message, 'invalid patch format of setElementOrder list');
    const strict = await patch('smp', SMP, { metadata: { labels: { z: '1' } }, extra: true }, '?fieldValidation=Strict');
    assert.equal(strict.status, 422);
    assert.equal(strict.json().message, ' "" is invalid: patch: Invalid value: "map[extra:true metadata:map[labels:map[z:1]]]": strict decoding error: unknown field "extra"');
    const body = await patch('smp', SMP, '[]');
    assert.equal(body.status, 400);
    assert.equal(body.json().message, 'json: cannot unmarshal array into Go value of type map[string]interface {}');
  });
});

describe('server-side apply', () => {
  const APPLY = 'application/apply-patch+yaml';
  const config = (name: string, labels: Record<string, string>) => ({ ...sampleEvent(name, NS), metadata: { name, namespace: NS, labels } });

  it('creates (201), re-applies without writing, prunes what the applier stops sending', async () => {
    const c = await patch('ssa', APPLY, config('ssa', { a: '1', b: '2' }), '?fieldManager=alice');
    assert.equal(c.status, 201, c.body);
    const mf = c.json().metadata.managedFields;
    assert.equal(mf.length, 1);
    assert.deepEqual({ manager: mf[0].manager, operation: mf[0].operation, apiVersion: mf[0].apiVersion, fieldsType: mf[0].fieldsType }, {
      manager: 'alice',
      operation: 'Apply',
      apiVersion: 'events.cluster.io/v1',
      fieldsType: 'FieldsV1',
    });
    assert.deepEqual(mf[0].fieldsV1['f:metadata'], { 'f:labels': { 'f:a': {}, 'f:b': {} } });
    const again = await patch('ssa', APPLY, config('ssa', { a: '1', b: '2' }), '?fieldManager=alice');
    assert.equal(again.status, 200);
    assert.equal(again.json().metadata.resourceVersion, c.json().metadata.resourceVersion);
    const pruned = await patch('ssa', APPLY, config('ssa', { a: '1' }), '?fieldManager=alice');
    assert.deepEqual(pruned.json().metadata.labels, { a: '1' });
  });

  it('409 on a field another manager owns, with one cause per field; force takes it over', async () => {
    const label = await patch('ssa', MERGE, { metadata: { labels: { owner: 'bob' } } }, '?fieldManager=bob');
    assert.equal(label.status, 200, label.body);
    const conflict = await patch('ssa', APPLY, config('ssa', { a: '1', owner: 'alice' }), '?fieldManager=alice');
    assert.equal(conflict.status, 409);
    assert.deepEqual(conflict.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "bob" using events.cluster.io/v1: .metadata.labels.owner',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "bob" using events.cluster.io/v1', field: '.metadata.labels.owner' }] },
      code: 409,
    });
    const forced = await patch('ssa', APPLY, config('ssa', { a: '1', owner: 'alice' }), '?fieldManager=alice&force=true');
    assert.equal(forced.status, 200, forced.body);
    assert.equal(forced.json().metadata.labels.owner, 'alice');
    assert.deepEqual(forced.json().metadata.managedFields.map((e: { manager: string }) => e.manager), ['alice']);
  });

  it('refuses a foreign type, managedFields in the body, a uid on create, bad YAML', async () => {
    const wrongType = await patch('ssa', APPLY, { ...config('ssa', {}), apiVersion: 'v1' }, '?fieldManager=alice');
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.json().message, 'invalid object type: /v1, Kind=Event');
    const none = await patch('ssa', APPLY, { metadata: { name: 'ssa' } }, '?fieldManager=alice');
    assert.equal(none.json().message, 'invalid object type: /, Kind=');
    const mf = await patch('ssa', APPLY, { ...config('ssa', {}), metadata: { name: 'ssa', managedFields: [] } }, '?fieldManager=alice');
    assert.equal(mf.status, 400);
    assert.equal(mf.json().message, 'metadata.managedFields must be nil');
    const uid = await patch('ssa-new', APPLY, { ...config('ssa-new', {}), metadata: { name: 'ssa-new', uid: 'u-1' } }, '?fieldManager=alice');
    assert.equal(uid.status, 409);
    assert.equal(uid.json().message, 'Operation cannot be fulfilled on events.events.cluster.io "ssa-new": uid mismatch: the provided object specified uid u-1, and no existing object was found');
    const yaml = await patch('ssa', APPLY, 'metadata: [', '?fieldManager=alice');
    assert.equal(yaml.status, 400);
    assert.match(yaml.json().message, /^error decoding YAML: error converting YAML to JSON: yaml: /);
    const dup = 'apiVersion: events.cluster.io/v1\nkind: Event\nmetadata:\n  name: ssa\n  labels:\n    a: "1"\n    a: "1"\n';
    const strict = await patch('ssa', APPLY, dup, '?fieldManager=alice&fieldValidation=Strict');
    assert.equal(strict.status, 400);
    assert.equal(strict.json().message, 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map');
  });

  it('dryRun creates nothing; an apply that would drop a required field is invalid', async () => {
    const dry = await patch('ssa-dry', APPLY, config('ssa-dry', {}), '?fieldManager=alice&dryRun=All');
    assert.equal(dry.status, 201, dry.body);
    assert.equal((await s.request('GET', path('ssa-dry'))).status, 404);
    const partial = await patch('ssa-part', APPLY, { apiVersion: 'events.cluster.io/v1', kind: 'Event', metadata: { name: 'ssa-part' } }, '?fieldManager=alice');
    assert.equal(partial.status, 422);
    assert.match(partial.json().message, /^Event "ssa-part" is invalid: /);
  });
});

describe('managedFields on every write', () => {
  it('records Update entries for create, update and patch; defaults the manager from the User-Agent; resets on [{}]', async () => {
    const c = await s.request('POST', `${BASE}/namespaces/${NS}/events`, sampleEvent('mf', NS), { 'user-agent': 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)' });
    assert.equal(c.status, 201, c.body);
    const entry = c.json().metadata.managedFields[0];
    assert.equal(entry.manager, 'node-fetch');
    assert.equal(entry.operation, 'Update');
    assert.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(entry.fieldsV1['f:metadata'], { 'f:labels': { '.': {}, 'f:app': {} } });
    const cur = c.json();
    cur.metadata.labels.tier = 'x';
    const put = await s.request('PUT', path('mf', '?fieldManager=replacer'), cur);
    assert.equal(put.status, 200, put.body);
    const p = await patch('mf', MERGE, { metadata: { annotations: { k: 'v' } } }, '?fieldManager=patcher');
    type Entry = { manager: string; operation: string; time: string; fieldsV1: Record<string, unknown> };
    const entries: Entry[] = p.json().metadata.managedFields;
    assert.deepEqual(Object.fromEntries(entries.map((e) => [e.manager, e.fieldsV1['f:metadata']])), {
      'node-fetch': { 'f:labels': { '.': {}, 'f:app': {} } },
      patcher: { 'f:annotations': { '.': {}, 'f:k': {} } },
      replacer: { 'f:labels': { 'f:tier': {} } },
    });
    // Upstream's order: by operation, then time (whole seconds), then manager — the PUT and the PATCH fall in one
    // second or in two, so the order of replacer and patcher depends on the clock.
    const sorted = [...entries].sort((a, b) => a.operation.localeCompare(b.operation) || a.time.localeCompare(b.time) || a.manager.localeCompare(b.manager));
    assert.deepEqual(entries.map((e) => e.manager), sorted.map((e) => e.manager));
    assert.equal(entries[0]!.manager, 'node-fetch');
    const reset = await patch('mf', MERGE, { metadata: { managedFields: [{}] } });
    assert.equal(reset.status, 200, reset.body);
    assert.equal(reset.json().metadata.managedFields, undefined);
  });
});
