/**
 * Issue 8: every body and recursively parsed query value nested exactly at the limit (100) goes through the whole
 * path — decode, validation, managedFields, storage, encoding as JSON, YAML and Table, watch — and one level more
 * is a 400 that says so. The deep part of a stored Event is managedFields[].fieldsV1, the one free-form field
 * that survives decoding; elsewhere (unknown fields, apply, DeleteOptions) a body at the limit gets the answer a
 * shallow one gets. Last, issue 8's reproduction: the server lives.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type http2 from 'node:http2';
import { parse as parseYAML, stringify as toYAML } from 'yaml';
import { TestServer, sampleCoreEvent, sampleEvent } from './helpers/server.ts';
import { clientTls, connectH2, h2Request } from './helpers/client.ts';

const LIMIT = 100;
const NS = 'deep';
const EVENTS = `/apis/events.cluster.io/v1/namespaces/${NS}/events`;
const TOO_DEEP = 'exceeded max depth of 100';

/** A FieldsV1-shaped object `depth` levels deep (`{}` is 1). */
function deepFields(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) v = { 'f:a': v };
  return v;
}

/** How deep a value nests (`{}` is 1), iteratively. */
function depthOf(v: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    max = Math.max(max, d + 1);
    for (const c of Object.values(x)) stack.push([c, d + 1]);
  }
  return max;
}

/** An Event whose JSON nests exactly `depth` levels: root, metadata, managedFields, entry, then fieldsV1. */
function deepEvent(name: string, depth: number): Record<string, unknown> {
  const ev = sampleEvent(name, NS) as { metadata: Record<string, unknown> };
  ev.metadata.managedFields = [
    { manager: 'deep-writer', operation: 'Update', apiVersion: 'events.cluster.io/v1', time: '2026-11-22T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: deepFields(depth - 4) },
  ];
  assert.equal(depthOf(ev), depth);
  return ev;
}

const fieldsOf = (obj: any, manager = 'deep-writer') => obj.metadata.managedFields.find((m: any) => m.manager === manager)?.fieldsV1;

describe(`request bodies nested at the limit (${LIMIT}) and one past it`, () => {
  const s = new TestServer();
  let watch: ReturnType<TestServer['watch']>;
  let tableWatch: ReturnType<TestServer['watch']>;
  before(async () => {
    await s.start();
    watch = s.watch(`/apis/events.cluster.io/v1/watch/namespaces/${NS}/events`);
    tableWatch = s.watch(`/apis/events.cluster.io/v1/watch/namespaces/${NS}/events`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.equal(await watch.status, 200);
  });
  after(async () => {
    watch.stop();
    tableWatch.stop();
    await s.cleanup();
  });

  const badRequest = (r: { status: number; body: string }, message: string) => {
    assert.equal(r.status, 400, r.body);
    const st = JSON.parse(r.body);
    assert.equal(st.reason, 'BadRequest');
    assert.ok(st.message.includes(message), st.message);
  };

  it('create (JSON and YAML) at the limit is stored whole and served as JSON, YAML and Table; one more is 400', async () => {
    const created = await s.request('POST', EVENTS, deepEvent('json-100', LIMIT));
    assert.equal(created.status, 201, created.body);
    assert.equal(depthOf(fieldsOf(created.json())), LIMIT - 4);
    const yaml = await s.request('POST', EVENTS, toYAML(deepEvent('yaml-100', LIMIT)), { 'content-type': 'application/yaml' });
    assert.equal(yaml.status, 201, yaml.body);

    const got = await s.request('GET', `${EVENTS}/json-100`);
    assert.equal(depthOf(got.json()), LIMIT);
    const asYAML = await s.request('GET', `${EVENTS}/yaml-100`, undefined, { accept: 'application/yaml' });
    assert.equal(asYAML.status, 200);
    assert.equal(depthOf(parseYAML(asYAML.body)), LIMIT);
    const table = await s.request('GET', EVENTS, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.equal(table.status, 200);
    assert.equal(table.json().rows.length, 2);
    const list = await s.request('GET', EVENTS, undefined, { accept: 'application/yaml' });
    assert.equal(depthOf(parseYAML(list.body)), LIMIT + 2); // list, items

    badRequest(await s.request('POST', EVENTS, deepEvent('json-101', LIMIT + 1)), `json parse error: invalid character '{' ${TOO_DEEP}`);
    badRequest(await s.request('POST', EVENTS, toYAML(deepEvent('yaml-101', LIMIT + 1)), { 'content-type': 'application/yaml' }), `yaml: ${TOO_DEEP}`);
  });

  it('the core/v1 view takes and serves the same Events at the limit; one more is 400', async () => {
    const core = (name: string, depth: number) => sampleCoreEvent(name, NS, { metadata: { name, namespace: NS, managedFields: (deepEvent(name, depth).metadata as any).managedFields } });
    const created = await s.request('POST', `/api/v1/namespaces/${NS}/events`, core('core-100', LIMIT));
    assert.equal(created.status, 201, created.body);
    assert.equal(depthOf(created.json()), LIMIT);
    const viaGroup = await s.request('GET', `${EVENTS}/core-100`);
    assert.equal(depthOf(fieldsOf(viaGroup.json())), LIMIT - 4);
    badRequest(await s.request('POST', `/api/v1/namespaces/${NS}/events`, core('core-101', LIMIT + 1)), TOO_DEEP);
    assert.equal((await s.request('DELETE', `/api/v1/namespaces/${NS}/events/core-100`)).status, 200);
  });

  it('update, merge patch, strategic merge patch and JSON patch at the limit are applied; one more is 400', async () => {
    const put = deepEvent('json-100', LIMIT);
    (put.metadata as any).labels = { app: 'demo', put: 'yes' };
    const updated = await s.request('PUT', `${EVENTS}/json-100`, put);
    assert.equal(updated.status, 200, updated.body);
    assert.equal(updated.json().metadata.labels.put, 'yes');
    badRequest(await s.request('PUT', `${EVENTS}/json-100`, deepEvent('json-100', LIMIT + 1)), TOO_DEEP);

    // {"metadata":{"managedFields":[{…"fieldsV1": …}]}}: the patch is as deep as the Event it makes.
    const patchBody = (depth: number) => ({ metadata: { labels: { patched: String(depth) }, managedFields: (deepEvent('x', depth).metadata as any).managedFields } });
    for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      const r = await s.request('PATCH', `${EVENTS}/yaml-100`, patchBody(LIMIT), { 'content-type': type });
      assert.equal(r.status, 200, `${type}: ${r.body}`);
      assert.equal(depthOf(fieldsOf(r.json())), LIMIT - 4);
      badRequest(await s.request('PATCH', `${EVENTS}/yaml-100`, patchBody(LIMIT + 1), { 'content-type': type }), TOO_DEEP);
    }

    // [{"op":…,"value":…}] adds two levels to its value; a value that makes the object 101 deep is refused too.
    const op = (fieldsDepth: number) => [
      { op: 'add', path: '/metadata/labels/patched', value: String(fieldsDepth) },
      { op: 'replace', path: '/metadata/managedFields/0/fieldsV1', value: deepFields(fieldsDepth) },
    ];
    const jp = { 'content-type': 'application/json-patch+json' };
    const ok = await s.request('PATCH', `${EVENTS}/json-100`, op(LIMIT - 4), jp);
    assert.equal(ok.status, 200, ok.body);
    assert.equal(depthOf(ok.json()), LIMIT);
    badRequest(await s.request('PATCH', `${EVENTS}/json-100`, op(LIMIT - 2), jp), `the patched object ${TOO_DEEP}`);
    badRequest(await s.request('PATCH', `${EVENTS}/json-100`, op(LIMIT - 1), jp), `error decoding patch: invalid character '{' ${TOO_DEEP}`);
  });

  it('unknown fields, apply and DeleteOptions at the limit get the answer a shallow body gets; one more is 400', async () => {
    const withUnknown = (depth: number) => ({ ...sampleEvent('unknown', NS), zz: deepFields(depth - 1) });
    const strict = await s.request('POST', `${EVENTS}?fieldValidation=Strict`, withUnknown(LIMIT));
    badRequest(strict, 'strict decoding error: unknown field "zz"');
    badRequest(await s.request('POST', `${EVENTS}?fieldValidation=Strict`, withUnknown(LIMIT + 1)), TOO_DEEP);

    const applyPath = `${EVENTS}/applied?fieldManager=deep`;
    const yamlType = { 'content-type': 'application/apply-patch+yaml' };
    badRequest(await s.request('PATCH', applyPath, toYAML(withUnknown(LIMIT)), yamlType), '.zz: field not declared in schema');
    badRequest(await s.request('PATCH', applyPath, toYAML(withUnknown(LIMIT + 1)), yamlType), `error decoding YAML: error converting YAML to JSON: yaml: ${TOO_DEEP}`);
    const applied = await s.request('PATCH', applyPath, toYAML({ ...sampleEvent('applied', NS), metadata: { name: 'applied', labels: { a: 'b' } } }), yamlType);
    assert.equal(applied.status, 201, applied.body);

    const opts = (depth: number) => ({ kind: 'DeleteOptions', apiVersion: 'v1', zz: deepFields(depth - 1) });
    badRequest(await s.request('DELETE', `${EVENTS}/applied`, opts(LIMIT + 1)), TOO_DEEP);
    const deleted = await s.request('DELETE', `${EVENTS}/applied`, opts(LIMIT));
    assert.equal(deleted.status, 200, deleted.body);
  });

  it('a shardSelector and a continue token nested at the limit are parsed; one more is 400', async () => {
    const range = "shardRange(object.metadata.uid, '0x0', '0x10000000000000000')";
    const nested = (depth: number) => '('.repeat(depth - 1) + range + ')'.repeat(depth - 1);
    const gate = new TestServer();
    try {
      await gate.start(['--feature-gates=ShardedListAndWatch=true']);
      const ok = await gate.request('GET', `${EVENTS}?shardSelector=${encodeURIComponent(nested(LIMIT))}`);
      assert.equal(ok.status, 200, ok.body);
      badRequest(await gate.request('GET', `${EVENTS}?shardSelector=${encodeURIComponent(nested(LIMIT + 1))}`), `expression ${TOO_DEEP}`);
    } finally {
      await gate.cleanup();
    }
    const token = (depth: number) => Buffer.from('['.repeat(depth) + ']'.repeat(depth)).toString('base64url');
    badRequest(await s.request('GET', `${EVENTS}?limit=1&continue=${token(LIMIT)}`), 'invalid continue token');
    badRequest(await s.request('GET', `${EVENTS}?limit=1&continue=${token(LIMIT + 1)}`), TOO_DEEP);
  });

  it('the watches saw every write at the limit, as JSON and as Table rows', async () => {
    const deadline = Date.now() + 5_000;
    while (watch.frames.length < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const json100 = watch.frames.filter((f) => f.object?.metadata?.name === 'json-100');
    assert.deepEqual(json100.map((f) => f.type), ['ADDED', 'MODIFIED', 'MODIFIED'], JSON.stringify(watch.frames.map((f) => [f.type, f.object?.metadata?.name])));
    assert.equal(depthOf(json100.at(-1).object), LIMIT);
    assert.ok(watch.frames.every((f) => f.type !== 'ERROR'), JSON.stringify(watch.frames.find((f) => f.type === 'ERROR')));
    assert.ok(tableWatch.frames.some((f) => f.object?.rows?.[0]?.object?.metadata?.name === 'yaml-100'));
  });

  it("issue 8's reproduction: YAML flow sequences 200 to 3,000 deep on one HTTP/2 connection are 400, and the server lives", async () => {
    let session: http2.ClientHttp2Session | undefined;
    try {
      session = await connectH2(s.port, clientTls(s.kubeconfig));
      for (let n = 200; n <= 3000; n += 200) {
        const body = Buffer.from('['.repeat(n) + '"x\ny"');
        const r = await h2Request(session, { method: 'POST', path: `/apis/events.cluster.io/v1/namespaces/f/events`, headers: { 'content-type': 'application/yaml', 'content-length': String(body.length) }, body, timeoutMs: 10_000 });
        assert.equal(r.status, 400, `n=${n}: ${r.body}`);
        assert.match(JSON.parse(r.body.toString()).message, /^the object provided is unrecognized \(must be of type Event\): yaml: exceeded max depth of 100 /);
      }
      assert.equal(s.proc!.exitCode, null);
      assert.equal((await s.request('GET', '/readyz')).status, 200);
      assert.doesNotMatch(s.stderr, /FATAL|RangeError|Maximum call stack/);
    } finally {
      session?.destroy();
    }
  });
});
