/**
 * End-to-end: `--tracing-config-file` with a real OTLP gRPC receiver on loopback (helpers/otlp-collector.ts).
 * A sampled W3C traceparent from system:masters continues the caller's trace with upstream's server span and its
 * children (authentication, authorization, handler, storage, serialization); an unsampled one yields nothing; an
 * identity outside system:masters and system:monitoring starts a new trace that links to the caller's. Bad
 * configuration files stop the start with upstream's texts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { importSigningKey, issueCertificate } from '../src/cmd/x509gen.ts';
import { OTLPCollector, type ReceivedSpan } from './helpers/otlp-collector.ts';
import { ROOT, TEST_STORAGE, TestServer, sampleEvent } from './helpers/server.ts';

/** Storage spans are named after the backend: `Create sqlite`, or upstream's `Create etcd3`. */
const BACKEND = TEST_STORAGE === 'etcd3' ? 'etcd3' : 'sqlite';

// The server inherits this: its batch processor exports every 50 ms instead of every 5 s.
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';

const EVENTS = '/apis/events.cluster.io/v1/namespaces/default/events';

function newTraceparent(sampled: boolean): { header: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`, traceId, spanId };
}

function writeConfig(s: TestServer, body: string): string {
  const path = `${s.dataDir}-tracing.yaml`;
  writeFileSync(path, body);
  return path;
}

async function startTraced(collector: OTLPCollector, extra = ''): Promise<TestServer> {
  const s = new TestServer();
  const cfg = writeConfig(s, `apiVersion: apiserver.config.cluster.io/v1\nkind: TracingConfiguration\nendpoint: ${collector.endpoint}\n${extra}`);
  await s.start([`--tracing-config-file=${cfg}`]);
  return s;
}

const inTrace = (traceId: string) => (sp: ReceivedSpan) => sp.traceId === traceId;
const one = (spans: ReceivedSpan[], name: string): ReceivedSpan => {
  const found = spans.filter((sp) => sp.name === name);
  assert.equal(found.length, 1, `${name} in ${spans.map((sp) => sp.name).join(', ')}`);
  return found[0]!;
};

/** Waits for the trace's server span named `name`, then for everything under it. */
async function traceOf(collector: OTLPCollector, traceId: string, serverSpan: string, count: number): Promise<ReceivedSpan[]> {
  return collector.waitFor(inTrace(traceId), (found) => found.some((sp) => sp.name === serverSpan) && found.length >= count);
}

describe('tracing with samplingRatePerMillion unset: the caller decides', () => {
  const collector = new OTLPCollector();
  let s: TestServer;
  before(async () => {
    await collector.start();
    s = await startTraced(collector);
  });
  after(async () => {
    // The collector first: a server that failed to start leaves `s` unset, and the collector would keep the file alive.
    await collector.stop();
    await s?.cleanup();
  });

  it('create: the server span continues the caller trace, with authentication, authorization, handler, storage and serialization under it', async () => {
    const tp = newTraceparent(true);
    const r = await s.request('POST', EVENTS, sampleEvent('traced'), { traceparent: tp.header, 'audit-id': 'audit-create-1', 'user-agent': 'tracing-test/1.0' });
    assert.equal(r.status, 201, r.body);
    const spans = await traceOf(collector, tp.traceId, 'POST /apis/events.cluster.io/v1/namespaces/{:namespace}/events', 6);

    const server = one(spans, 'POST /apis/events.cluster.io/v1/namespaces/{:namespace}/events');
    assert.equal(server.parentSpanId, tp.spanId);
    assert.equal(server.kind, 'SPAN_KIND_SERVER');
    assert.deepEqual(server.resource['service.name'], 'apiserver');
    assert.match(String(server.resource['service.instance.id']), /^apiserver-[0-9a-f-]{36}$/);
    const a = server.attributes;
    assert.equal(a['http.request.method'], 'POST');
    assert.equal(a['http.target'], EVENTS);
    assert.equal(a['url.path'], EVENTS);
    assert.equal(a['url.scheme'], 'https');
    assert.equal(a['http.response.status_code'], 201);
    assert.equal(a['audit-id'], 'audit-create-1');
    assert.equal(a['user_agent.original'], 'tracing-test/1.0');
    assert.equal(a['server.address'], '127.0.0.1');
    assert.equal(a['server.port'], s.port);
    assert.equal(a['network.peer.address'], '127.0.0.1');
    assert.ok(server.endNs >= server.startNs);

    const authn = one(spans, 'Authenticate');
    assert.equal(authn.parentSpanId, server.spanId);
    assert.equal(authn.attributes.authenticated, true);
    assert.ok(authn.startNs >= server.startNs && authn.endNs <= server.endNs);
    const authz = one(spans, 'Authorize');
    assert.equal(authz.parentSpanId, server.spanId);
    assert.deepEqual([authz.attributes.decision, authz.attributes.verb, authz.attributes.resource], ['Allow', 'create', 'events']);

    const handler = one(spans, 'Create');
    assert.equal(handler.parentSpanId, server.spanId);
    assert.deepEqual(
      Object.fromEntries(['audit-id', 'api-group', 'api-version', 'namespace', 'resource', 'scope', 'verb', 'protocol', 'url', 'user-agent', 'client'].map((k) => [k, handler.attributes[k]])),
      {
        'audit-id': 'audit-create-1',
        'api-group': 'events.cluster.io',
        'api-version': 'v1',
        namespace: 'default',
        resource: 'events',
        scope: 'resource',
        verb: 'POST',
        protocol: 'HTTP/1.1',
        url: EVENTS,
        'user-agent': 'tracing-test/1.0',
        client: '127.0.0.1',
      },
    );
    const storage = one(spans, `Create ${BACKEND}`);
    assert.equal(storage.parentSpanId, handler.spanId);
    assert.deepEqual(
      [storage.attributes.key, storage.attributes.group, storage.attributes.resource, storage.attributes.type, storage.attributes['audit-id']],
      ['/events/default/traced', 'events.cluster.io', 'events', 'Event', 'audit-create-1'],
    );
    const serialize = one(spans, 'SerializeObject');
    assert.equal(serialize.parentSpanId, handler.spanId);
    assert.equal(serialize.attributes.mediaType, 'application/json');
    assert.deepEqual(serialize.events.map((e) => e.name), ['About to start writing response', 'Write call finished']);
  });

  it('get, list, patch and delete: their handler spans over the storage or cache spans; core paths and non-resource paths by name', async () => {
    await s.request('POST', EVENTS, sampleEvent('traced-2'));
    const get = newTraceparent(true);
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/events/traced-2', undefined, { traceparent: get.header })).status, 200);
    const getSpans = await traceOf(collector, get.traceId, 'GET /api/v1/namespaces/{:namespace}/events/{:name}', 5);
    assert.equal(one(getSpans, `Get ${BACKEND}`).parentSpanId, one(getSpans, 'Get').spanId);

    const list = newTraceparent(true);
    assert.equal((await s.request('GET', `${EVENTS}?limit=1`, undefined, { traceparent: list.header })).status, 200);
    const listSpans = await traceOf(collector, list.traceId, 'GET /apis/events.cluster.io/v1/namespaces/{:namespace}/events', 5);
    const cacher = one(listSpans, 'cacher.GetList');
    assert.equal(cacher.parentSpanId, one(listSpans, 'List').spanId);
    assert.deepEqual([cacher.attributes.key, cacher.attributes.limit], ['/events/default/', 1]);

    const patch = newTraceparent(true);
    const p = await s.request('PATCH', `${EVENTS}/traced-2`, { metadata: { labels: { patched: 'yes' } } }, { traceparent: patch.header, 'content-type': 'application/merge-patch+json' });
    assert.equal(p.status, 200, p.body);
    const patchSpans = await traceOf(collector, patch.traceId, 'PATCH /apis/events.cluster.io/v1/namespaces/{:namespace}/events/{:name}', 5);
    assert.equal(one(patchSpans, `GuaranteedUpdate ${BACKEND}`).parentSpanId, one(patchSpans, 'Patch').spanId);

    const del = newTraceparent(true);
    assert.equal((await s.request('DELETE', `${EVENTS}/traced-2`, undefined, { traceparent: del.header })).status, 200);
    const delSpans = await traceOf(collector, del.traceId, 'DELETE /apis/events.cluster.io/v1/namespaces/{:namespace}/events/{:name}', 4);
    assert.equal(one(delSpans, `Delete ${BACKEND}`).parentSpanId, one(delSpans, 'Delete').spanId);

    const version = newTraceparent(true);
    assert.equal((await s.request('GET', '/version', undefined, { traceparent: version.header })).status, 200);
    const versionSpans = await traceOf(collector, version.traceId, 'GET', 1);
    assert.equal(one(versionSpans, 'GET').attributes['http.target'], '/version');
  });

  it('a watch: its WatchList span lasts until the watch ends', async () => {
    const tp = newTraceparent(true);
    const w = s.watch(`${EVENTS}?watch=true&timeoutSeconds=1`, { traceparent: tp.header });
    assert.equal(await w.status, 200);
    await w.closed;
    const spans = await traceOf(collector, tp.traceId, 'GET /apis/events.cluster.io/v1/namespaces/{:namespace}/events', 4);
    const watch = one(spans, 'WatchList');
    assert.equal(watch.attributes.verb, 'WATCH');
    assert.ok(watch.endNs - watch.startNs >= 900_000_000n, `watch span lasted ${watch.endNs - watch.startNs} ns`);
  });

  it('an unsampled traceparent, and no traceparent at all, produce no span', async () => {
    const unsampled = newTraceparent(false);
    assert.equal((await s.request('GET', EVENTS, undefined, { traceparent: unsampled.header })).status, 200);
    const before = collector.spans.length;
    assert.equal((await s.request('GET', EVENTS)).status, 200);
    // A sampled request after them: once its spans are in, theirs would have been exported too.
    const marker = newTraceparent(true);
    await s.request('GET', '/version', undefined, { traceparent: marker.header });
    await traceOf(collector, marker.traceId, 'GET', 1);
    assert.deepEqual(collector.spans.filter(inTrace(unsampled.traceId)), []);
    assert.deepEqual(collector.spans.slice(before).filter((sp) => sp.traceId !== marker.traceId).map((sp) => sp.name), []);
  });

  it('/flagz shows the flag; /configz the file', async () => {
    const f = (await s.request('GET', '/flagz', undefined, { accept: 'application/json;v=v1beta1;g=config.cluster.io;as=Flagz' })).json();
    assert.equal(f.flags['tracing-config-file'], `${s.dataDir}-tracing.yaml`);
    assert.equal((await s.request('GET', '/configz')).json()['core-apiserver'].tracingConfigFile, `${s.dataDir}-tracing.yaml`);
  });
});

describe('tracing with samplingRatePerMillion: 1000000: who may continue a trace', () => {
  const collector = new OTLPCollector();
  let s: TestServer;
  let clientCert: (org: string, cn: string) => Promise<{ cert: string; key: string }>;
  before(async () => {
    await collector.start();
    s = await startTraced(collector, 'samplingRatePerMillion: 1000000\n');
    const caPem = readFileSync(join(s.dataDir, 'pki/ca.crt'), 'utf8');
    const caKey = await importSigningKey(readFileSync(join(s.dataDir, 'pki/ca.key'), 'utf8'));
    clientCert = async (org, cn) => {
      const c = await issueCertificate({ subject: [{ O: [org] }, { CN: [cn] }], validDays: 1, clientAuth: true }, { certPem: caPem, key: caKey });
      return { cert: c.certPem, key: c.key.pem };
    };
  });
  after(async () => {
    // The collector first: a server that failed to start leaves `s` unset, and the collector would keep the file alive.
    await collector.stop();
    await s?.cleanup();
  });

  function get(path: string, cert: { cert: string; key: string }, headers: Record<string, string>): Promise<number> {
    return new Promise((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port: s.port, path, headers, cert: cert.cert, key: cert.key, rejectUnauthorized: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', reject);
    });
  }

  /** The server span of the request this audit ID marks (a new root's trace ID is not known in advance). */
  async function serverSpanOf(auditID: string, name: string): Promise<ReceivedSpan> {
    const [sp] = await collector.waitFor((x) => x.name === name && x.attributes['audit-id'] === auditID, (f) => f.length === 1);
    return sp!;
  }

  it('a request without traceparent starts a sampled trace', async () => {
    assert.equal((await s.request('GET', EVENTS, undefined, { 'audit-id': 'no-parent' })).status, 200);
    const server = await serverSpanOf('no-parent', 'GET /apis/events.cluster.io/v1/namespaces/{:namespace}/events');
    assert.equal(server.parentSpanId, '');
    assert.deepEqual(server.links, []);
  });

  it('outside system:masters and system:monitoring: a new trace, linked to the caller\'s', async () => {
    const alice = await clientCert('dev', 'alice');
    const tp = newTraceparent(true);
    assert.equal(await get(EVENTS, alice, { traceparent: tp.header, 'audit-id': 'alice-1' }), 403);
    const server = await serverSpanOf('alice-1', 'GET /apis/events.cluster.io/v1/namespaces/{:namespace}/events');
    assert.notEqual(server.traceId, tp.traceId);
    assert.equal(server.parentSpanId, '');
    assert.deepEqual(server.links, [{ traceId: tp.traceId, spanId: tp.spanId }]);
    assert.equal(server.attributes['http.response.status_code'], 403);
    const spans = await collector.waitFor(inTrace(server.traceId), (f) => f.some((x) => x.name === 'Authorize'));
    assert.equal(one(spans, 'Authorize').attributes.decision, 'NoOpinion');
    // Even an unsampled traceparent cannot keep an outsider's request out of the sample.
    const quiet = newTraceparent(false);
    assert.equal(await get(EVENTS, alice, { traceparent: quiet.header, 'audit-id': 'alice-2' }), 403);
    assert.deepEqual((await serverSpanOf('alice-2', 'GET /apis/events.cluster.io/v1/namespaces/{:namespace}/events')).links, [{ traceId: quiet.traceId, spanId: quiet.spanId }]);
  });

  it('system:monitoring continues the caller\'s trace', async () => {
    const prober = await clientCert('system:monitoring', 'prober');
    const tp = newTraceparent(true);
    assert.equal(await get('/readyz', prober, { traceparent: tp.header, 'audit-id': 'prober-1' }), 200);
    const server = await serverSpanOf('prober-1', 'GET');
    assert.equal(server.traceId, tp.traceId);
    assert.equal(server.parentSpanId, tp.spanId);
    assert.deepEqual(server.links, []);
  });

  it('system:masters\' unsampled traceparent is honoured over the rate', async () => {
    const tp = newTraceparent(false);
    assert.equal((await s.request('GET', EVENTS, undefined, { traceparent: tp.header, 'audit-id': 'masters-quiet' })).status, 200);
    const marker = newTraceparent(true);
    await s.request('GET', '/version', undefined, { traceparent: marker.header });
    await traceOf(collector, marker.traceId, 'GET', 1);
    assert.deepEqual(collector.spans.filter((x) => x.traceId === tp.traceId || x.attributes['audit-id'] === 'masters-quiet'), []);
  });
});

describe('--tracing-config-file at start-up', () => {
  function runCli(args: string[]) {
    return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cmd/core-apiserver.ts'), ...args], { encoding: 'utf8', timeout: 30_000 });
  }
  const s = new TestServer();
  after(() => s.cleanup());
  const head = 'apiVersion: apiserver.config.cluster.io/v1\nkind: TracingConfiguration\n';

  it('refuses a missing file, a bad rate, endpoint, kind or version and an empty file with upstream\'s texts, exit 1', () => {
    const missing = join(s.dataDir, 'nope.yaml');
    const cases: [string | null, string][] = [
      [null, `tracing-config-file ${missing} does not exist`],
      ['', 'failed to read tracing config: tracing config file was empty'],
      [`${head}samplingRatePerMillion: -1\n`, 'failed to validate tracing configuration: samplingRatePerMillion: Invalid value: -1: sampling rate must be positive'],
      [`${head}samplingRatePerMillion: 1000001\n`, 'failed to validate tracing configuration: samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million'],
      [`${head}endpoint: http://collector:4317\n`, 'failed to validate tracing configuration: endpoint: Invalid value: "http://collector:4317": unsupported scheme: http.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md'],
      ['apiVersion: apiserver.config.cluster.io/v1\nkind: AuthenticationConfiguration\n', 'failed to read tracing config: unable to decode tracing configuration data: no kind "AuthenticationConfiguration" is registered for version "apiserver.config.cluster.io/v1" in scheme "pkg/server/options/tracing.go:49"'],
      ['apiVersion: apiserver.config.cluster.io/v2\nkind: TracingConfiguration\n', 'failed to read tracing config: unable to decode tracing configuration data: no kind "TracingConfiguration" is registered for version "apiserver.config.cluster.io/v2" in scheme "pkg/server/options/tracing.go:49"'],
    ];
    for (const [i, [body, message]] of cases.entries()) {
      const file = body === null ? missing : join(s.dataDir, `tracing-${i}.yaml`);
      if (body !== null) writeFileSync(file, body);
      const r = runCli([`--data-dir=${s.dataDir}`, '--secure-port=0', `--tracing-config-file=${file}`]);
      assert.equal(r.status, 1, `${message}\n${r.stderr}`);
      assert.ok(r.stderr.endsWith(`Error: ${message}\n`), r.stderr);
    }
  });
});
