import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isStatusError } from '../../apimachinery/errors.ts';
import { eventDefinition } from '../../registry/events/storage.ts';
import { openAPIResourceOf } from './types.ts';

const EVENTS_RESOURCE = openAPIResourceOf(eventDefinition(0));
import { OpenAPIService, negotiate } from './handler.ts';
import { swaggerV2, swaggerV2Protobuf } from './v2.ts';

const service = new OpenAPIService([EVENTS_RESOURCE]);
let server: http.Server;
let base = '';

before(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://localhost');
    try {
      if (!service.handle(req, res, url.pathname, url.searchParams)) {
        res.statusCode = 418;
        res.end('not mine');
      }
    } catch (e) {
      assert.ok(isStatusError(e));
      res.statusCode = e.code;
      res.end(JSON.stringify({ reason: e.reason, message: e.message }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => fetch(base + path, { headers, method, redirect: 'manual' });

async function v3Url(): Promise<string> {
  const index = (await (await get('/openapi/v3')).json()) as { paths: Record<string, { serverRelativeURL: string }> };
  assert.deepEqual(Object.keys(index.paths), ['apis/events.cluster.io/v1']);
  return index.paths['apis/events.cluster.io/v1']!.serverRelativeURL;
}

test('index → hashed URL → immutable document with ETag; 304 on If-None-Match', async () => {
  const url = await v3Url();
  assert.match(url, /^\/openapi\/v3\/apis\/events\.cluster\.io\/v1\?hash=[0-9A-F]{128}$/);
  const res = await get(`${url}&timeout=32s`, { accept: 'application/json' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.equal(res.headers.get('cache-control'), 'public, immutable');
  const hash = url.split('hash=')[1]!;
  assert.equal(res.headers.get('etag'), `"${hash}"`);
  const doc = (await res.json()) as { components: { schemas: Record<string, unknown> } };
  assert.ok(doc.components.schemas['io.cluster.api.events.v1.Event']);
  const again = await get(url, { 'if-none-match': `"${hash}"` });
  assert.equal(again.status, 304);
  assert.equal((await again.arrayBuffer()).byteLength, 0);
});

test('a stale hash redirects (301) to the current one; no hash is served uncached', async () => {
  const url = await v3Url();
  const res = await get('/openapi/v3/apis/events.cluster.io/v1?hash=0123');
  assert.equal(res.status, 301);
  assert.equal(res.headers.get('location'), url);
  const plain = await get('/openapi/v3/apis/events.cluster.io/v1');
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get('cache-control'), 'no-cache, private');
});

test('/openapi/v2: JSON by default, gnostic protobuf for either protobuf media type', async () => {
  const json = await get('/openapi/v2', { accept: 'application/json' });
  assert.equal(json.headers.get('content-type'), 'application/json');
  assert.equal(json.headers.get('vary'), 'Accept');
  assert.deepEqual(await json.json(), swaggerV2([EVENTS_RESOURCE]));
  const expected = swaggerV2Protobuf(swaggerV2([EVENTS_RESOURCE]));
  for (const accept of [
    'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
    'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
  ]) {
    const res = await get('/openapi/v2?timeout=32s', { accept });
    assert.equal(res.status, 200);
    // kubectl's Go mime parser rejects '@', so kube always answers with the dotted name.
    assert.equal(res.headers.get('content-type'), 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), expected);
  }
  assert.equal((await get('/openapi/v2')).headers.get('content-type'), 'application/json');
});

test('/swagger-2.0.0.pb-v1 and /swagger.json; HEAD sends no body', async () => {
  const pb = await get('/swagger-2.0.0.pb-v1');
  assert.equal(pb.headers.get('content-type'), 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  const json = await get('/swagger.json');
  assert.equal(((await json.json()) as { swagger: string }).swagger, '2.0');
  const head = await get('/swagger.json', {}, 'HEAD');
  assert.equal(head.status, 200);
  assert.ok(Number(head.headers.get('content-length')) > 1000);
  assert.equal((await head.arrayBuffer()).byteLength, 0);
});

test('errors: 406 for unacceptable types, 405 for writes; other paths are left to the caller', async () => {
  const na = await get('/openapi/v2', { accept: 'text/html' });
  assert.equal(na.status, 406);
  assert.deepEqual(await na.json(), {
    reason: 'NotAcceptable',
    message:
      'only the following media types are accepted: application/json, application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
  });
  assert.equal((await get('/openapi/v3', {}, 'POST')).status, 405);
  for (const p of ['/openapi/v3/apis/other.io/v1', '/openapi/v4', '/apis']) assert.equal((await get(p)).status, 418, p);
});

test('negotiate honours order, wildcards and q=0', () => {
  const offers = ['application/json', 'application/x'];
  assert.equal(negotiate(undefined, offers), 'application/json');
  assert.equal(negotiate('application/x, application/json', offers), 'application/x');
  assert.equal(negotiate('application/x;q=0, */*', offers), 'application/json');
  assert.equal(negotiate('text/plain, application/*', offers), 'application/json');
  assert.throws(() => negotiate('text/plain', offers), /only the following media types are accepted/);
});
