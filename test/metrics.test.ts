/** End-to-end: /metrics of the CLI server in the text format, with the metrics that have a source so far. */
import { after, before, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { TestServer, sampleEvent } from './helpers/server.ts';
import { versionInfo } from '../src/version.ts';

const s = new TestServer();
const disabled = new TestServer();
before(async () => {
  await Promise.all([s.start(), disabled.start(['--disabled-metrics=apiserver_storage_objects', '--feature-gates=NativeHistograms=true'])]);
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
    const text = r.body;
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
    assert.match(text, /^hidden_metrics_total 0$/m);
    // Every sample line is a name, optional labels and a number.
    for (const line of text.trimEnd().split('\n')) if (!line.startsWith('#')) assert.match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? (-?[0-9.e+-]+|\+Inf|-Inf|NaN)$/, line);
  });

  it('promtool check metrics finds nothing to say about either endpoint', (t) => {
    const which = spawnSync('promtool', ['--version']);
    if (which.error) return t.skip('promtool is not installed (.ci/run installs Debian\'s prometheus)');
    return (async () => {
      for (const path of ['/metrics', '/metrics/slis']) {
        const body = (await s.request('GET', path)).body;
        const r = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
        assert.equal(r.status, 0, `${path}: ${r.stdout}${r.stderr}`);
        assert.equal(r.stdout + r.stderr, '', path);
      }
    })();
  });

  it('--disabled-metrics leaves a metric out and counts it', async () => {
    const text = (await disabled.request('GET', '/metrics')).body;
    assert.doesNotMatch(text, /^apiserver_storage_objects/m);
    assert.match(text, /^apiserver_resource_objects\{/m);
    assert.match(text, /^disabled_metrics_total 1$/m);
    assert.match(text, /^cluster_feature_enabled\{name="NativeHistograms",stage="ALPHA"\} 1$/m, 'the gate turned on reads 1');
    assert.match(text, /^hidden_metrics_total 1$/m);
  });

  it('/metrics/slis: the last result and the count of every health check a probe ran, and nothing else', async () => {
    assert.equal((await s.request('GET', '/livez', undefined, {}, false)).status, 200);
    const r = await s.request('GET', '/metrics/slis');
    assert.equal(r.status, 200);
    assert.match(r.body, /^# HELP cluster_healthcheck \[STABLE\] This metric records the result of a single healthcheck\.$/m);
    assert.match(r.body, /^# TYPE cluster_healthcheck gauge$/m);
    assert.match(r.body, /^cluster_healthcheck\{name="ping",type="livez"\} 1$/m);
    assert.match(r.body, /^cluster_healthcheck\{name="sqlite",type="readyz"\} 1$/m);
    assert.match(r.body, /^# HELP cluster_healthchecks_total \[STABLE\] This metric records the results of all healthcheck\.$/m);
    assert.match(r.body, /^cluster_healthchecks_total\{name="shutdown",status="success",type="readyz"\} [1-9][0-9]*$/m);
    const families = [...r.body.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
    assert.deepEqual(families, ['cluster_healthcheck', 'cluster_healthchecks_total']);
    assert.doesNotMatch((await s.request('GET', '/metrics')).body, /cluster_healthcheck/);
  });

  it('answers other verbs with 405 and anonymous callers with 401', async () => {
    assert.equal((await s.request('POST', '/metrics', '')).status, 405);
    assert.equal((await s.request('GET', '/metrics', undefined, {}, false)).status, 401);
  });
});
