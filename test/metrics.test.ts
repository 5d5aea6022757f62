/** End-to-end: /metrics of the CLI server in the text format, with the metrics that have a source so far. */
import { after, before, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { TEST_STORAGE, TestServer, assertWatchListRefused, sampleEvent } from './helpers/server.ts';
import { MetricFamilyType } from '../src/metrics/protobuf.ts';
import { versionInfo } from '../src/version.ts';

const s = new TestServer();
const disabled = new TestServer();
before(async () => {
  await Promise.all([s.start(), disabled.start(['--disabled-metrics=apiserver_storage_objects', '--feature-gates=NativeHistograms=true', '--allow-metric-labels=apiserver_request_total,verb=POST,GET'])]);
});
after(async () => {
  await Promise.all([s.cleanup(), disabled.cleanup()]);
});

describe('/metrics', () => {
  it('serves the text format 0.0.4 with build info, object counts and the registry\'s own counters', async () => {
    for (const name of ['m1', 'm2']) {
      const c = await s.request('POST', '/apis/events.cluster.io/v1/namespaces/met/events', sampleEvent(name, 'met'));
      assert.equal(c.status, 201, c.body);
    }
    const r = await s.request('GET', '/metrics');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8; escaping=underscores');
    let text = r.body;
    // On etcd the deprecated count is etcd's, polled (the test servers poll every second), and the watch cache hears
    // of a create just after it is acknowledged: wait for both.
    const counted = (t: string) => /^apiserver_storage_objects\{resource="events\.events\.cluster\.io"\} 2$/m.test(t) && /^apiserver_resource_objects\{group="events\.cluster\.io",resource="events"\} 2$/m.test(t);
    for (let i = 0; TEST_STORAGE === 'etcd3' && i < 50 && !counted(text); i++) {
      await new Promise((res) => setTimeout(res, 100));
      text = (await s.request('GET', '/metrics')).body;
    }
    assert.match(text, /^# HELP cluster_build_info \[BETA\] A metric with a constant '1' value/m);
    assert.ok(text.includes(`git_version="${versionInfo.gitVersion}"`));
    assert.match(text, /^apiserver_resource_objects\{group="events\.cluster\.io",resource="events"\} 2$/m);
    assert.match(text, /^apiserver_resource_objects\{group="",resource="events"\} 2$/m, 'the core/v1 view counts the same objects');
    assert.match(text, /^# HELP apiserver_storage_objects \[STABLE\] \(Deprecated since 1\.34\.0\) /m);
    assert.match(text, /^apiserver_storage_objects\{resource="events\.events\.cluster\.io"\} 2$/m);
    assert.match(text, /^registered_metrics_total\{deprecated_version="1\.34\.0",stability_level="STABLE"\} 1$/m);
    assert.match(text, /^disabled_metrics_total 0$/m);
    assert.match(text, /^cluster_feature_enabled\{name="NativeHistograms",stage="ALPHA"\} 0$/m);
    assert.match(text, /^cluster_feature_enabled\{name="ComponentSLIs",stage=""\} 1$/m, 'a GA gate has the empty stage');
    // apiserver_storage_db_total_size_in_bytes (ALPHA, deprecated in 1.28.0) and apiserver_request_slo_duration_seconds
    // (ALPHA, deprecated in 1.27.0) are registered hidden, as upstream does.
    assert.match(text, /^hidden_metrics_total 2$/m);
    assert.doesNotMatch(text, /^apiserver_request_slo_duration_seconds/m);
    // Every sample line is a name, optional labels and a number.
    for (const line of text.trimEnd().split('\n')) if (!line.startsWith('#')) assert.match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? (-?[0-9.e+-]+|\+Inf|-Inf|NaN)$/, line);
  });

  it('counts and times every REST request with upstream\'s verb, scope, dry_run and code labels', async () => {
    const base = '/apis/events.cluster.io/v1/namespaces/req/events';
    assert.equal((await s.request('POST', base, sampleEvent('r1', 'req'))).status, 201);
    assert.equal((await s.request('POST', `${base}?dryRun=All`, sampleEvent('r2', 'req'))).status, 201);
    assert.equal((await s.request('GET', base)).status, 200);
    assert.equal((await s.request('GET', '/apis/events.cluster.io/v1/events')).status, 200);
    assert.equal((await s.request('GET', `${base}/missing`)).status, 404);
    const apply = { apiVersion: 'events.cluster.io/v1', kind: 'Event', metadata: { name: 'r1', namespace: 'req' }, note: 'applied' };
    const a = await s.request('PATCH', `${base}/r1?fieldManager=t&force=true`, JSON.stringify(apply), { 'content-type': 'application/apply-patch+yaml' });
    assert.ok(a.status === 200 || a.status === 422, a.body);
    assert.equal((await s.request('DELETE', base)).status, 200);
    const text = (await s.request('GET', '/metrics')).body;
    const series = (verb: string, scope: string, code: string, dryRun = '') =>
      new RegExp(`^apiserver_request_total\\{code="${code}",component="apiserver",dry_run="${dryRun}",group="events\\.cluster\\.io",resource="events",scope="${scope}",subresource="",verb="${verb}",version="v1"\\} (\\d+)$`, 'm');
    assert.match(text, series('POST', 'resource', '201'));
    assert.match(text, series('POST', 'resource', '201', 'All'));
    assert.match(text, series('LIST', 'namespace', '200'));
    assert.match(text, series('LIST', 'cluster', '200'));
    assert.match(text, series('GET', 'resource', '404'));
    assert.match(text, series('APPLY', 'resource', String(a.status)));
    assert.match(text, series('DELETE', 'namespace', '200'), 'deletecollection is reported as DELETE');
    assert.match(text, /^# HELP apiserver_request_duration_seconds \[STABLE\] Response latency distribution/m);
    assert.match(text, /^apiserver_request_duration_seconds_bucket\{component="apiserver",dry_run="",group="events\.cluster\.io",resource="events",scope="resource",subresource="",verb="GET",version="v1",le="0\.005"\} \d+$/m);
    assert.match(text, /^apiserver_request_duration_seconds_count\{component="apiserver",dry_run="",group="events\.cluster\.io",resource="events",scope="namespace",subresource="",verb="LIST",version="v1"\} [1-9]/m);
  });

  it('a watch is a long-running request while it lasts, and its duration spans it', async () => {
    const watching = s.request('GET', '/apis/events.cluster.io/v1/namespaces/w/events?watch=1&timeoutSeconds=1');
    await new Promise((r) => setTimeout(r, 300));
    const during = (await s.request('GET', '/metrics')).body;
    assert.match(during, /^apiserver_longrunning_requests\{component="apiserver",group="events\.cluster\.io",resource="events",scope="namespace",subresource="",verb="WATCH",version="v1"\} 1$/m);
    assert.equal((await watching).status, 200);
    // The server records the watch when its side of the stream closes, which may come just after the client's end.
    let after = '';
    for (let i = 0; i < 50; i++) {
      after = (await s.request('GET', '/metrics')).body;
      if (/^apiserver_longrunning_requests\{.*verb="WATCH".*\} 0$/m.test(after)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(after, /^apiserver_longrunning_requests\{.*verb="WATCH".*\} 0$/m);
    assert.match(after, /^apiserver_request_total\{code="200",.*scope="namespace",subresource="",verb="WATCH",version="v1"\} 1$/m);
    // The watch lasted its timeoutSeconds: its observation is above the 0.8 s bucket.
    assert.match(after, /^apiserver_request_duration_seconds_bucket\{.*verb="WATCH",version="v1",le="0\.8"\} 0$/m);
  });

  it('storage, watch cache and watch metrics move on a create, a list and a WATCHLIST, labelled as upstream', async () => {
    const base = '/apis/events.cluster.io/v1/namespaces/sw/events';
    let w = s.watch(`${base}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`);
    assert.equal(await w.status, 200);
    // etcd before 3.4.31 / 3.5.13: the watch list is refused (as upstream), so a plain watch carries the frames.
    const refused = s.watchListRefused;
    if (refused) {
      await w.closed;
      assertWatchListRefused(w.frames);
      const rv = (await s.request('GET', base)).json().metadata.resourceVersion;
      w = s.watch(`${base}?watch=1&resourceVersion=${rv}`);
      assert.equal(await w.status, 200);
    }
    assert.equal((await s.request('POST', base, sampleEvent('sw1', 'sw'))).status, 201);
    assert.equal((await s.request('GET', base)).status, 200);
    // resourceVersion=0 is the cache's on every backend (a consistent list goes to etcd before 3.4.31, see below).
    assert.equal((await s.request('GET', `${base}?resourceVersion=0`)).status, 200);
    assert.equal((await s.request('GET', '/api/v1/namespaces/sw/events?limit=1')).status, 200);
    for (let i = 0; i < 50 && !w.frames.some((f) => f.type === 'ADDED'); i++) await new Promise((r) => setTimeout(r, 20));
    w.stop();
    const text = (await s.request('GET', '/metrics')).body;
    const gr = 'group="events\.cluster\.io",resource="events"';
    const positive = (name: string, labels: string) => assert.match(text, new RegExp(`^${name}\{${labels}\} [1-9][0-9.e+]*$`, 'm'), name);
    positive('kvstore_requests_total', 'group="events\.cluster\.io",operation="create",resource="events"');
    positive('kvstore_request_duration_seconds_count', 'group="events\.cluster\.io",operation="getCurrentResourceVersion",resource="events"');
    positive('apiserver_storage_list_total', gr);
    positive('apiserver_storage_events_received_total', gr);
    positive('apiserver_storage_size_bytes', `storage_cluster_id="${TEST_STORAGE === 'etcd3' ? 'etcd' : 'sqlite'}-0"`);
    positive('apiserver_cache_list_total', 'group="events\.cluster\.io",index="",resource="events"');
    positive('apiserver_cache_list_returned_objects_total', gr);
    positive('apiserver_watch_cache_events_received_total', gr);
    positive('apiserver_watch_cache_events_dispatched_total', gr);
    positive('apiserver_watch_cache_initializations_total', gr);
    positive('apiserver_watch_cache_resource_version', gr);
    // On etcd before 3.4.31 / 3.5.13 consistent lists are read from etcd, as upstream, and not counted as reads from
    // the cache; the server says so at start.
    if (/consistent reads \(lists without resourceVersion\) are served from etcd/.test(s.stderr)) {
      assert.doesNotMatch(text, /^apiserver_watch_cache_consistent_read_total\{[^}]*resource="events"[^}]*\} [1-9]/m);
    } else {
      positive('apiserver_watch_cache_consistent_read_total', 'fallback="false",group="events\.cluster\.io",resource="events",success="true"');
    }
    positive('apiserver_resource_size_estimate_bytes', gr);
    positive('watch_cache_capacity', gr);
    // The ADDED (and, for a watch list, the bookmark ending the initial events): frames written to the watch client.
    positive('apiserver_watch_events_total', 'group="events\.cluster\.io",resource="events",version="v1"');
    positive('apiserver_watch_events_sizes_count', 'group="events\.cluster\.io",resource="events",version="v1"');
    assert.match(text, /^apiserver_watch_events_sizes_bucket\{group="events\.cluster\.io",resource="events",version="v1",le="131072"\} [1-9]/m);
    if (refused) assert.doesNotMatch(text, /^apiserver_watch_list_duration_seconds_count\{/m);
    else positive('apiserver_watch_list_duration_seconds_count', 'group="events\.cluster\.io",resource="events",scope="namespace",version="v1"');
    assert.match(text, /^apiserver_terminated_watchers_total\{group="events\.cluster\.io",resource="events"\} 0$/m);
    assert.match(text, /^# HELP apiserver_storage_size_bytes \[STABLE\] /m);
    assert.match(text, /^# HELP kvstore_requests_total \[ALPHA\] /m);
  });

  const UPSTREAM_NAMES_WITHOUT_TOTAL = ['authenticated_user_requests', 'authentication_attempts'];
  /** Upstream's token cache gauge is named `…_count` (its catalogue name): promtool remarks on it, about upstream too. */
  const UPSTREAM_GAUGES_NAMED_COUNT = ['authentication_token_cache_active_fetch_count'];

  it('promtool check metrics finds nothing to say about either endpoint', (t) => {
    const which = spawnSync('promtool', ['--version']);
    if (which.error) return t.skip('promtool is not installed (.ci/run installs Debian\'s prometheus)');
    return (async () => {
      for (const path of ['/metrics', '/metrics/slis']) {
        const body = (await s.request('GET', path)).body;
        const r = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
        // Upstream's authentication counters carry no `_total` (their catalogue names): promtool says so, rightly,
        // about upstream too. Nothing else may draw a remark.
        const remarks = (r.stdout + r.stderr)
          .split('\n')
          .filter((l) => l.trim() !== '' && !UPSTREAM_NAMES_WITHOUT_TOTAL.some((n) => l.startsWith(`${n} counter metrics should have "_total" suffix`)))
          .filter((l) => !UPSTREAM_GAUGES_NAMED_COUNT.some((n) => l.startsWith(`${n} non-histogram and non-summary metrics should not have "_count" suffix`)));
        assert.deepEqual(remarks, [], path);
      }
    })();
  });

  it('the rest of the request family: SLI latency, response and body sizes, field validation, filter latency, health probes', async () => {
    const base = '/apis/events.cluster.io/v1/namespaces/fam/events';
    const body = sampleEvent('f1', 'fam');
    assert.equal((await s.request('POST', `${base}?fieldValidation=Strict`, body)).status, 201);
    const sizeSum = (text: string) => Number(/^apiserver_response_sizes_sum\{component="apiserver",group="events\.cluster\.io",resource="events",scope="namespace",subresource="",verb="LIST",version="v1"\} (\S+)$/m.exec(text)?.[1] ?? 0);
    const before = sizeSum((await s.request('GET', '/metrics')).body);
    const list = await s.request('GET', base);
    assert.equal((await s.request('GET', '/readyz', undefined, {}, false)).status, 200);
    const text = (await s.request('GET', '/metrics')).body;
    const labels = 'group="events\\.cluster\\.io",resource="events",scope="namespace",subresource="",verb="LIST",version="v1"';
    assert.match(text, new RegExp(`^apiserver_request_sli_duration_seconds_count\\{component="apiserver",${labels}\\} [1-9]`, 'm'));
    assert.equal(sizeSum(text) - before, Buffer.byteLength(list.body), 'the LIST observed its body size');
    assert.doesNotMatch(text, /^apiserver_response_sizes_count\{.*verb="POST"/m, 'only reads are sized');
    assert.match(text, new RegExp(`^apiserver_request_body_size_bytes_sum\\{group="events\\.cluster\\.io",resource="events",verb="create"\\} \\d+`, 'm'));
    assert.match(text, /^field_validation_request_duration_seconds_count\{field_validation="Strict"\} 1$/m);
    assert.match(text, /^apiserver_request_filter_duration_seconds_count\{filter="authentication"\} [1-9]/m);
    assert.match(text, /^apiserver_request_filter_duration_seconds_count\{filter="authorization"\} [1-9]/m);
    assert.match(text, /^apiserver_request_total\{code="200",component="",dry_run="",group="",resource="",scope="",subresource="\/readyz",verb="GET",version=""\} [1-9]/m);
    assert.match(text, /^apiserver_current_inflight_requests\{request_kind="readOnly"\} \d+$/m);
    // The max-in-flight filter's occupancy, a timing-ratio histogram counted in nanoseconds.
    assert.match(text, /^apiserver_flowcontrol_read_vs_write_current_requests_count\{phase="executing",request_kind="mutating"\} [1-9]/m);
    assert.match(text, /^apiserver_flowcontrol_read_vs_write_current_requests_bucket\{phase="executing",request_kind="readOnly",le="0"\} [1-9]/m);
    assert.match(text, /^apiserver_tls_handshake_errors_total 0$/m);
    assert.match(text, /^version_info\{binary="[^"]+",component="core",emulation="1\.36",min_compat="1\.35"\} 1$/m);
    assert.match(text, /^# HELP process_resident_memory_bytes Resident memory size in bytes\.$/m, 'process metrics are raw: no stability prefix');
    assert.match(text, /^nodejs_heap_size_used_bytes \S+$/m);
  });

  it('--allow-metric-labels lets only the listed values through; others read "unexpected"', async () => {
    await disabled.request('GET', '/apis/events.cluster.io/v1/events');
    await disabled.request('POST', '/apis/events.cluster.io/v1/namespaces/al/events', sampleEvent('a1', 'al'));
    const text = (await disabled.request('GET', '/metrics')).body;
    assert.match(text, /^apiserver_request_total\{code="201",.*verb="POST",version="v1"\} 1$/m);
    assert.match(text, /^apiserver_request_total\{code="200",.*scope="cluster",subresource="",verb="unexpected",version="v1"\} 1$/m);
    assert.doesNotMatch(text, /^apiserver_request_total\{.*verb="LIST"/m);
  });

  it('a TLS handshake that fails is counted', async () => {
    const { connect } = await import('node:tls');
    await new Promise<void>((resolve) => {
      // No client certificate is fine; a TLS version the server refuses is a handshake error on its side.
      const sock = connect({ host: '127.0.0.1', port: s.port, rejectUnauthorized: false, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' });
      sock.on('error', () => resolve());
      sock.on('secureConnect', () => (sock.destroy(), resolve()));
    });
    const text = (await s.request('GET', '/metrics')).body;
    assert.match(text, /^apiserver_tls_handshake_errors_total [1-9]\d*$/m);
  });

  it('answers Prometheus\'s protobuf Accept with delimited MetricFamily messages: the text format\'s families, native buckets only with the gate', async () => {
    const accept = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
    const decode = (raw: Buffer) => {
      const reader = protobuf.Reader.create(raw);
      const out: Record<string, any>[] = [];
      while (reader.pos < reader.len) out.push(MetricFamilyType.toObject(MetricFamilyType.decodeDelimited(reader), { longs: Number, enums: String }));
      return out;
    };
    for (const [server, gate] of [[s, false], [disabled, true]] as const) {
      assert.equal((await server.request('GET', '/apis/events.cluster.io/v1/namespaces/pb/events')).status, 200);
      const r = await server.request('GET', '/metrics', undefined, { accept });
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited; escaping=underscores');
      const families = decode(r.raw);
      const text = (await server.request('GET', '/metrics')).body;
      assert.deepEqual(families.map((f) => f.name), [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
      const duration = families.find((f) => f.name === 'apiserver_request_duration_seconds')!;
      assert.equal(duration.type, 'HISTOGRAM');
      const list = duration.metric.find((m: any) => m.label.some((l: any) => l.name === 'verb' && l.value === 'LIST'))!.histogram;
      assert.equal(list.bucket.length, 23, 'the 23 finite bounds; the count stands for +Inf');
      assert.equal(list.schema, gate ? 3 : undefined);
      assert.equal(list.zero_threshold, gate ? 2 ** -128 : undefined);
      assert.equal(list.positive_span !== undefined, gate);
    }
    const slis = await s.request('GET', '/metrics/slis', undefined, { accept });
    assert.deepEqual(decode(slis.raw).map((f) => f.name), ['cluster_healthcheck', 'cluster_healthchecks_total', 'process_start_time_seconds']);
    const om = await s.request('GET', '/metrics', undefined, { accept: 'application/openmetrics-text;version=1.0.0' });
    assert.equal(om.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8; escaping=underscores', 'never OpenMetrics');
  });

  it('--disabled-metrics leaves a metric out and counts it', async () => {
    const text = (await disabled.request('GET', '/metrics')).body;
    assert.doesNotMatch(text, /^apiserver_storage_objects/m);
    assert.match(text, /^apiserver_resource_objects\{/m);
    assert.match(text, /^disabled_metrics_total 1$/m);
    assert.match(text, /^cluster_feature_enabled\{name="NativeHistograms",stage="ALPHA"\} 1$/m, 'the gate turned on reads 1');
    assert.match(text, /^hidden_metrics_total 3$/m);
  });

  it('/metrics/slis: the last result and the count of every health check a probe ran, and nothing else', async () => {
    assert.equal((await s.request('GET', '/livez', undefined, {}, false)).status, 200);
    const r = await s.request('GET', '/metrics/slis');
    assert.equal(r.status, 200);
    assert.match(r.body, /^# HELP cluster_healthcheck \[STABLE\] This metric records the result of a single healthcheck\.$/m);
    assert.match(r.body, /^# TYPE cluster_healthcheck gauge$/m);
    assert.match(r.body, /^cluster_healthcheck\{name="ping",type="livez"\} 1$/m);
    assert.match(r.body, new RegExp(`^cluster_healthcheck\\{name="${TEST_STORAGE === 'etcd3' ? 'etcd' : 'sqlite'}",type="readyz"\\} 1$`, 'm'));
    assert.match(r.body, /^# HELP cluster_healthchecks_total \[STABLE\] This metric records the results of all healthcheck\.$/m);
    assert.match(r.body, /^cluster_healthchecks_total\{name="shutdown",status="success",type="readyz"\} [1-9][0-9]*$/m);
    const families = [...r.body.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
    assert.deepEqual(families, ['cluster_healthcheck', 'cluster_healthchecks_total', 'process_start_time_seconds']);
    assert.match(r.body, /^# HELP process_start_time_seconds \[ALPHA\] Start time of the process since unix epoch in seconds\.$/m);
    assert.doesNotMatch((await s.request('GET', '/metrics')).body, /cluster_healthcheck/);
  });

  it('answers other verbs with 405 and anonymous callers with 403', async () => {
    assert.equal((await s.request('POST', '/metrics', '')).status, 405);
    assert.equal((await s.request('GET', '/metrics', undefined, {}, false)).status, 403);
  });
});
