/**
 * The corelet's metrics and debugging endpoints end to end: a real agent process running a CPU-burning pod in real
 * cgroups, scraped over HTTPS. Skipped (with the reason) where the machine has no writable cgroup v2 hierarchy.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import protobuf from 'protobufjs';
import { discoverCgroups } from '../src/corelet/cgroups.ts';
import { MetricFamilyType } from '../src/metrics/protobuf.ts';
import { until } from './helpers/until.ts';
import { stopProcess } from './helpers/process.ts';

const ROOT = resolve(import.meta.dirname, '..');
const env = discoverCgroups();
const skip = env.v2 ? false : 'no writable cgroup v2 hierarchy on this machine';
const NODE = 'metrics-e2e-node';
const POD = `burn-${NODE}`;
const PROTOBUF = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.6,text/plain;version=0.0.4;q=0.2,*/*;q=0.1';

interface Reply {
  status: number;
  type: string;
  body: Buffer;
  text: string;
}

function get(port: number, path: string, accept?: string): Promise<Reply> {
  return new Promise((res, rej) => {
    request({ host: '127.0.0.1', port, path, rejectUnauthorized: false, headers: accept ? { accept } : {} }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (d: Buffer) => chunks.push(d));
      r.on('end', () => {
        const body = Buffer.concat(chunks);
        res({ status: r.statusCode ?? 0, type: String(r.headers['content-type'] ?? ''), body, text: body.toString('utf8') });
      });
    })
      .on('error', rej)
      .end();
  });
}


interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
  timestampMs?: number;
}

/** The samples of a text exposition (the label values this test meets carry no escapes). */
function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)(?: (\d+))?$/.exec(l);
      assert.ok(m, `a sample line: ${l}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1]!, x[2]!]));
      return { name: m[1]!, labels, value: Number(m[3]), ...(m[4] ? { timestampMs: Number(m[4]) } : {}) };
    });
}

const find = (all: Sample[], name: string, labels: Record<string, string> = {}) => all.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

describe('corelet metrics endpoints', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'corelet-metrics-e2e-'));
  const cgroupRoot = `corelet-metrics-e2e-${process.pid}`;
  let agent: ChildProcess;
  let port = 0;
  let stderr = '';

  before(async () => {
    writeFileSync(
      join(dir, 'burn.yaml'),
      "apiVersion: v1\nkind: Pod\nmetadata: {name: burn}\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n  - name: main\n    command: [sh, -c, 'while :; do :; done']\n    resources: {limits: {cpu: 500m, memory: 64Mi}}\n",
    );
    agent = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cmd/corelet.ts', `--pod-manifest-path=${dir}`, '--port=0', `--hostname-override=${NODE}`, `--cgroup-root=${cgroupRoot}`, '--feature-gates=NativeHistograms=true'],
      { cwd: ROOT },
    );
    agent.stderr!.on('data', (d) => (stderr += d));
    port = await until('the corelet to serve', () => Number(/serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1]) || undefined, 30_000);
  });

  after(async () => {
    await stopProcess(agent);
    rmSync(dir, { recursive: true, force: true });
  });

  const scrape = async (path: string) => {
    const r = await get(port, path);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    assert.equal(r.type, 'text/plain; version=0.0.4; charset=utf-8; escaping=underscores', path);
    return samples(r.text);
  };

  it('/metrics/resource: real node, pod and container usage with timestamps; the CPU counter rises', async () => {
    const first = await until('the burning container\'s series', async () => {
      const all = await scrape('/metrics/resource');
      return find(all, 'container_cpu_usage_seconds_total', { pod: POD, container: 'main', namespace: 'default' }) ? all : undefined;
    });
    const cpu1 = find(first, 'container_cpu_usage_seconds_total', { pod: POD })!;
    const later = await until('the CPU counter to rise', async () => {
      const all = await scrape('/metrics/resource');
      return find(all, 'container_cpu_usage_seconds_total', { pod: POD })!.value > cpu1.value ? all : undefined;
    });
    const cpu2 = find(later, 'container_cpu_usage_seconds_total', { pod: POD })!;
    assert.ok(cpu2.timestampMs! > cpu1.timestampMs!, 'each scrape stamps the time of its reading');
    assert.ok(Math.abs(cpu2.timestampMs! - Date.now()) < 60_000);
    const podCpu = find(later, 'pod_cpu_usage_seconds_total', { pod: POD, namespace: 'default' })!;
    assert.ok(podCpu.value >= cpu2.value * 0.99, 'the pod holds its container');
    assert.ok(find(later, 'node_cpu_usage_seconds_total')!.value > podCpu.value);
    assert.ok(find(later, 'node_memory_working_set_bytes')!.value > 0);
    if (env.v1.memory || env.v2Controllers.has('memory')) {
      assert.ok(find(later, 'container_memory_working_set_bytes', { pod: POD, container: 'main' })!.value > 0);
      assert.ok(find(later, 'pod_memory_working_set_bytes', { pod: POD })!.value > 0);
    }
    // The container's start time is the one /pods reports.
    const pods = JSON.parse((await get(port, '/pods')).text);
    const startedAt = Date.parse(pods.items.find((p: any) => p.metadata.name === POD).status.containerStatuses[0].state.running.startedAt);
    const start = find(later, 'container_start_time_seconds', { pod: POD, container: 'main' })!;
    assert.equal(start.value, startedAt / 1000);
    assert.equal(start.timestampMs, startedAt);
    assert.deepEqual(find(later, 'resource_scrape_error'), { name: 'resource_scrape_error', labels: {}, value: 0 });
  });

  it('/metrics/containerstats: pressure totals and cAdvisor\'s CPU series per container, with cAdvisor\'s labels', async () => {
    const all = await until('the container\'s series', async () => {
      const s = await scrape('/metrics/containerstats');
      return find(s, 'container_cpu_usage_seconds_total', { pod: POD }) ? s : undefined;
    });
    const usage = find(all, 'container_cpu_usage_seconds_total', { pod: POD })!;
    assert.deepEqual(Object.keys(usage.labels).sort(), ['container', 'cpu', 'id', 'image', 'name', 'namespace', 'pod']);
    assert.equal(usage.labels.cpu, 'total');
    assert.match(usage.labels.id!, new RegExp(`^/${cgroupRoot}/kubepods/pod[0-9a-f-]+/[0-9a-f]{64}$`));
    assert.ok(usage.value > 0 && usage.timestampMs! > 0);
    assert.ok(find(all, 'container_cpu_cfs_periods_total', { pod: POD })!.value > 0, 'a container with a CPU limit has CFS periods');
    if (existsSync(join(env.v2!, 'cpu.pressure'))) {
      // A loop under a 500m quota waits for CPU: its `some` total grows; `full` is there too (0 or more).
      const waiting = await until('CPU pressure', async () => {
        const w = find(await scrape('/metrics/containerstats'), 'container_pressure_cpu_waiting_seconds_total', { pod: POD });
        return w && w.value > 0 ? w : undefined;
      });
      assert.ok(waiting.value > 0);
      for (const r of ['cpu', 'memory', 'io']) {
        for (const k of ['waiting', 'stalled']) assert.ok(find(all, `container_pressure_${r}_${k}_seconds_total`, { pod: POD })!.value >= 0, `${r} ${k}`);
      }
    }
  });

  it('/metrics: the corelet\'s own metrics from real sources, and the meta metrics', async () => {
    await get(port, '/healthz');
    const all = await scrape('/metrics');
    assert.equal(find(all, 'corelet_node_name', { node: NODE })?.value, 1);
    assert.equal(find(all, 'corelet_cgroup_version')?.value, 2);
    assert.equal(find(all, 'corelet_desired_pods', { static: 'true' })?.value, 1);
    assert.equal(find(all, 'corelet_active_pods', { static: 'true' })?.value, 1);
    assert.equal(find(all, 'corelet_running_pods')?.value, 1);
    assert.equal(find(all, 'corelet_running_containers', { container_state: 'running' })?.value, 1);
    assert.ok(find(all, 'corelet_started_containers_total', { container_type: 'container' })!.value >= 1);
    assert.equal(find(all, 'corelet_pod_start_duration_seconds_count')?.value, 1);
    assert.equal(find(all, 'corelet_started_pods_total')?.value, 1);
    assert.equal(find(all, 'corelet_started_pods_errors_total')?.value, 0);
    assert.equal(find(all, 'corelet_containers_per_pod_count_bucket', { le: '1' })?.value, 1);
    assert.equal(find(all, 'corelet_cgroup_manager_duration_seconds_count', { operation_type: 'create' })?.value, 1);
    // The PLEG relists every second from the start: timed, and seen active within the last few seconds.
    assert.ok(find(all, 'corelet_pleg_relist_duration_seconds_count')!.value >= 1);
    assert.ok(Math.abs(find(all, 'corelet_pleg_last_seen_seconds')!.value - Date.now() / 1000) < 30);
    assert.equal(find(all, 'corelet_pleg_discard_events')?.value, 0);
    assert.ok(find(all, 'corelet_http_requests_total', { path: 'healthz', method: 'GET', server_type: 'readwrite', long_running: 'false' })!.value >= 1);
    assert.equal(find(all, 'corelet_http_inflight_requests', { path: 'metrics' })?.value, 1, 'this very scrape');
    assert.ok(find(all, 'corelet_http_requests_duration_seconds_count', { path: 'healthz' })!.value >= 1);
    assert.ok(find(all, 'cluster_build_info'));
    assert.equal(find(all, 'cluster_feature_enabled', { name: 'NativeHistograms', stage: 'ALPHA' })?.value, 1);
    assert.ok(find(all, 'registered_metrics_total', { stability_level: 'ALPHA' })!.value > 5);
    assert.ok(find(all, 'process_start_time_seconds'));
    assert.ok(find(all, 'process_resident_memory_bytes')!.value > 0);
    // An unknown path is counted as `other`, so clients cannot grow the label set.
    assert.equal((await get(port, '/no/such/path')).status, 404);
    assert.ok(find(await scrape('/metrics'), 'corelet_http_requests_total', { path: 'other' }));
  });

  it('/healthz and /metrics/slis: the checks and their SLIs', async () => {
    assert.equal((await get(port, '/healthz')).text, 'ok');
    assert.match((await get(port, '/healthz?verbose')).text, /^\[\+\]ping ok\n\[\+\]syncloop ok\nhealthz check passed\n$/);
    const all = await scrape('/metrics/slis');
    assert.equal(find(all, 'cluster_healthcheck', { name: 'syncloop', type: 'healthz' })?.value, 1);
    assert.ok(find(all, 'cluster_healthchecks_total', { name: 'ping', status: 'success', type: 'healthz' })!.value >= 2);
    assert.ok(find(all, 'process_start_time_seconds'));
  });

  it('promtool check metrics finds nothing to say about any metrics endpoint but an upstream name', async (t) => {
    if (spawnSync('promtool', ['--version']).error) return t.skip('promtool is not installed (.ci/run installs Debian\'s prometheus)');
    for (const path of ['/metrics', '/metrics/resource', '/metrics/containerstats', '/metrics/slis']) {
      const r = spawnSync('promtool', ['check', 'metrics'], { input: (await get(port, path)).body, encoding: 'utf8' });
      // kubelet's PLEG discard counter carries no `_total` (its catalogue name): promtool says so about kubelet too.
      const remarks = (r.stdout + r.stderr).split('\n').filter((l) => l.trim() !== '' && !l.startsWith('corelet_pleg_discard_events counter metrics should have "_total" suffix'));
      assert.deepEqual(remarks, [], path);
    }
  });

  it('Prometheus\'s protobuf Accept gets delimited MetricFamily messages, with native buckets (NativeHistograms is on)', async () => {
    const r = await get(port, '/metrics', PROTOBUF);
    assert.equal(r.type, 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited; escaping=underscores');
    const reader = protobuf.Reader.create(r.body);
    const families: Record<string, any>[] = [];
    while (reader.pos < reader.len) families.push(MetricFamilyType.toObject(MetricFamilyType.decodeDelimited(reader), { longs: Number, enums: String }));
    const start = families.find((f) => f.name === 'corelet_pod_start_duration_seconds')!;
    assert.equal(start.type, 'HISTOGRAM');
    assert.equal(start.metric[0].histogram.schema, 3, 'native buckets at factor 1.1');
    assert.equal(start.metric[0].histogram.sample_count, 1);
    const res = await get(port, '/metrics/resource', PROTOBUF);
    const rr = protobuf.Reader.create(res.body);
    const resource: Record<string, any>[] = [];
    while (rr.pos < rr.len) resource.push(MetricFamilyType.toObject(MetricFamilyType.decodeDelimited(rr), { longs: Number, enums: String }));
    const node = resource.find((f) => f.name === 'node_cpu_usage_seconds_total')!;
    assert.equal(node.type, 'COUNTER');
    assert.ok(node.metric[0].counter.value > 0 && node.metric[0].timestamp_ms > 0, 'the sample keeps its timestamp');
  });

  it('/statusz and /flagz: the corelet\'s facts and flags, as text or as the structured kinds; 406 otherwise', async () => {
    const text = (await get(port, '/statusz')).text;
    assert.match(text, /^\ncorelet statusz\nWarning: This endpoint is not meant to be machine parseable/);
    assert.match(text, /^Paths(?::|: |=| ) \/flagz \/healthz \/metrics \/pods \/stats \/statusz$/m);
    const s = JSON.parse((await get(port, '/statusz', 'application/json;v=v1beta1;g=config.cluster.io;as=Statusz')).text);
    assert.equal(s.kind, 'Statusz');
    assert.equal(s.apiVersion, 'config.cluster.io/v1beta1');
    assert.equal(s.metadata.name, 'corelet');
    assert.equal(s.emulationVersion, '1.36');
    assert.ok(s.uptimeSeconds >= 0);
    const flagzText = (await get(port, '/flagz')).text;
    assert.match(flagzText, /^\ncorelet flagz\n/);
    assert.match(flagzText, new RegExp(`^hostname-override(?::|: |=| ) ${NODE}$`, 'm'));
    const f = JSON.parse((await get(port, '/flagz', 'application/json;v=v1beta1;g=config.cluster.io;as=Flagz')).text);
    assert.equal(f.kind, 'Flagz');
    assert.equal(f.flags['feature-gates'], 'NativeHistograms=true');
    assert.equal(f.flags['pod-manifest-path'], dir);
    assert.equal(f.flags.port, '0');
    const yaml = await get(port, '/flagz', 'application/yaml;v=v1beta1;g=config.cluster.io;as=Flagz');
    assert.equal(yaml.type, 'application/yaml');
    assert.match(yaml.text, /^kind: Flagz$/m);
    const refused = await get(port, '/statusz', 'application/json');
    assert.equal(refused.status, 406);
    assert.equal(JSON.parse(refused.text).message, 'only the following media types are accepted: application/json, application/yaml, text/plain');
  });
});
