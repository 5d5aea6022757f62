import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { httpProbe, PROBE_USER_AGENT } from './probe-http.ts';
import { tcpProbe } from './probe-tcp.ts';
import { execProbe } from './probe-exec.ts';
import { resolvePort } from './prober.ts';
import { parseManifest } from './manifest.ts';
import { PodRunner } from './runtime.ts';
import { ProbeMetrics } from './probe-metrics.ts';
import { discoverCgroups } from './cgroups.ts';
import { writeText } from '../metrics/text.ts';
import type { EventSink } from './event-sink.ts';

async function until<T>(what: string, fn: () => T | undefined | false, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('probe handlers', () => {
  let server: Server;
  let port = 0;
  let seen: Record<string, string | undefined> = {};
  before(async () => {
    server = createServer((req, res) => {
      const u = new URL(req.url!, 'http://x');
      seen = { ua: req.headers['user-agent'], accept: req.headers.accept, custom: String(req.headers['x-custom']), host: req.headers.host };
      if (u.pathname === '/ok') return res.end('fine');
      if (u.pathname === '/fail') return res.writeHead(503).end('down');
      if (u.pathname === '/hop') return res.writeHead(302, { Location: '/ok' }).end();
      if (u.pathname === '/away') return res.writeHead(301, { Location: `http://localhost:${port}/ok` }).end('moved');
      if (u.pathname === '/loop') return res.writeHead(302, { Location: `/loop?n=${Number(u.searchParams.get('n') ?? 0) + 1}` }).end();
      if (u.pathname === '/big') return res.end('x'.repeat(100_000));
      if (u.pathname === '/slow') return void setTimeout(() => res.end('late'), 3000);
      return void res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = (p: string) => new URL(`http://127.0.0.1:${port}${p}`);

  it('httpGet: 2xx is success with the body; the request carries the prober agent and the given headers', async () => {
    assert.deepEqual(await httpProbe({ url: url('/ok'), headers: [{ name: 'X-Custom', value: 'v' }], timeoutMs: 1000 }), { result: 'success', output: 'fine' });
    assert.equal(seen.ua, PROBE_USER_AGENT);
    assert.equal(seen.accept, '*/*');
    assert.equal(seen.custom, 'v');
    await httpProbe({ url: url('/ok'), headers: [{ name: 'Host', value: 'example.test' }], timeoutMs: 1000 });
    assert.equal(seen.host, 'example.test');
  });

  it('httpGet: another status fails with upstream text; a refused connection fails as Go words it', async () => {
    assert.deepEqual(await httpProbe({ url: url('/fail'), headers: [], timeoutMs: 1000 }), { result: 'failure', output: 'HTTP probe failed with statuscode: 503' });
    const closed = createNetServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const p = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = await httpProbe({ url: new URL(`http://127.0.0.1:${p}/`), headers: [], timeoutMs: 1000 });
    assert.deepEqual(r, { result: 'failure', output: `Get "http://127.0.0.1:${p}/": dial tcp 127.0.0.1:${p}: connect: connection refused` });
  });

  it('httpGet: same-host redirects are followed (at most 10); one to another host stops with a warning', async () => {
    assert.deepEqual(await httpProbe({ url: url('/hop'), headers: [], timeoutMs: 1000 }), { result: 'success', output: 'fine' });
    assert.deepEqual(await httpProbe({ url: url('/away'), headers: [], timeoutMs: 1000 }), { result: 'warning', output: 'Probe terminated redirects, Response body: moved' });
    const loop = await httpProbe({ url: url('/loop'), headers: [], timeoutMs: 2000 });
    assert.deepEqual(loop, { result: 'failure', output: `Get "http://127.0.0.1:${port}/loop?n=10": stopped after 10 redirects` });
  });

  it('httpGet: the body kept is at most 10 KiB; the timeout fails the probe', async () => {
    const big = await httpProbe({ url: url('/big'), headers: [], timeoutMs: 2000 });
    assert.equal(big.result, 'success');
    assert.equal(big.output.length, 10 * 1024);
    const slow = await httpProbe({ url: url('/slow'), headers: [], timeoutMs: 300 });
    assert.equal(slow.result, 'failure');
    assert.match(slow.output, /^Get "http:\/\/127\.0\.0\.1:\d+\/slow": context deadline exceeded/);
  });

  it('tcpSocket: an open port succeeds, a closed one fails with the dial error', async () => {
    assert.deepEqual(await tcpProbe('127.0.0.1', port, 1000), { result: 'success', output: '' });
    const closed = createNetServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const p = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    assert.deepEqual(await tcpProbe('127.0.0.1', p, 1000), { result: 'failure', output: `dial tcp 127.0.0.1:${p}: connect: connection refused` });
  });

  it('exec: exit 0 succeeds, another fails with the output; a command past its timeout is killed and fails', async () => {
    const run = (script: string, timeoutMs = 2000) => execProbe({ command: ['sh', '-c', script], env: { PATH: process.env.PATH!, MODE: 'prod' }, cwd: '/', argv: ['sh', ['-c', script]], timeoutMs });
    assert.deepEqual(await run('echo "mode $MODE"'), { result: 'success', output: 'mode prod\n' });
    assert.deepEqual(await run('echo broken >&2; exit 3'), { result: 'failure', output: 'broken\n' });
    const t0 = Date.now();
    const slow = await run('sleep 30', 300);
    assert.deepEqual(slow, { result: 'failure', output: 'command "sh -c sleep 30" timed out' });
    assert.ok(Date.now() - t0 < 20_000);
  });

  it('resolves a port by number, by container port name, or a name that is a number', () => {
    const spec = parseManifest('apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, command: [x], ports: [{name: web, containerPort: 8080}]}]}\n', 'f', 'n').containers[0]!;
    assert.equal(resolvePort(81, spec), 81);
    assert.equal(resolvePort('web', spec), 8080);
    assert.equal(resolvePort('9090', spec), 9090);
    assert.throws(() => resolvePort('nope', spec), /port nope not found/);
  });
});

const env = discoverCgroups();

describe('prober on running containers', { skip: env.v2 ? false : 'no writable cgroup v2 hierarchy on this machine', concurrency: true }, () => {
  const cgroupRoot = `corelet-prober-${process.pid}`;
  const metrics = new ProbeMetrics();
  const runners: PodRunner[] = [];
  after(async () => {
    await Promise.all(runners.map((r) => r.stop()));
    rmSync(`/tmp/corelet-prober-ready-${process.pid}`, { force: true });
    for (const d of [join(env.v2!, cgroupRoot, 'kubepods', 'besteffort'), join(env.v2!, cgroupRoot, 'kubepods'), join(env.v2!, cgroupRoot)]) {
      try {
        rmdirSync(d);
      } catch {
        // Another test's pod still there, or never made.
      }
    }
  });

  function start(name: string, container: string, extra = '') {
    const events: Array<{ type: string; reason: string; note: string; fieldPath?: string }> = [];
    const sink: EventSink = { eventf: (regarding, _rel, type, reason, _action, note) => events.push({ type, reason, note, fieldPath: regarding.fieldPath }) };
    const pod = parseManifest(`apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  terminationGracePeriodSeconds: 2\n${extra}  containers:\n${container}`, name, 'unit');
    const logs: string[] = [];
    // Started long before: no start-up jitter, so the first probe is immediate.
    const r = new PodRunner(pod, env, cgroupRoot, (_l, m) => logs.push(m), sink, metrics, 0);
    runners.push(r);
    r.start();
    const st = () => r.status() as any;
    return { r, events, logs, st, cs: () => st().containerStatuses[0] };
  }

  it('readiness is false until the probe succeeds; exec probes run in the container cgroup with its env', async () => {
    // The container writes its own cgroup down once it runs; the probe passes only from that same cgroup, with its env.
    const mine = `/tmp/corelet-prober-ready-${process.pid}`;
    const p = start(
      'ready',
      `  - name: main\n    command: [sh, -c, 'sleep 1; grep ^0:: /proc/self/cgroup > ${mine}; exec sleep 60']\n    env: [{name: MODE, value: prod}]\n    readinessProbe: {periodSeconds: 1, exec: {command: [sh, -c, 'test "$MODE" = prod && grep ^0:: /proc/self/cgroup | grep -q kubepods/besteffort/pod && grep ^0:: /proc/self/cgroup | cmp -s - ${mine}']}}\n`,
    );
    const first = p.st();
    assert.equal(first.containerStatuses[0].ready, false);
    assert.equal(first.containerStatuses[0].started, true);
    const ready = first.conditions.find((c: any) => c.type === 'Ready');
    assert.deepEqual([ready.status, ready.reason, ready.message], ['False', 'ContainersNotReady', 'containers with unready status: [main]']);
    await until('ready', () => p.cs().ready);
    const conds = Object.fromEntries(p.st().conditions.map((c: any) => [c.type, c.status]));
    assert.deepEqual(conds, { Initialized: 'True', Ready: 'True', ContainersReady: 'True' });
    assert.equal(p.cs().restartCount, 0);
  });

  it('a failing liveness probe kills the container, which restarts not ready and not started until probed again', async () => {
    const p = start('live', `  - name: main\n    command: [sleep, '60']\n    livenessProbe: {periodSeconds: 1, failureThreshold: 2, exec: {command: [sh, -c, 'echo sick; exit 1']}}\n    startupProbe: {periodSeconds: 1, exec: {command: ['true']}}\n`);
    await until('a restart', () => p.cs().restartCount >= 1);
    const killing = p.events.filter((e) => e.reason === 'Killing');
    assert.deepEqual(killing[0], { type: 'Normal', reason: 'Killing', note: 'Container main failed liveness probe, will be restarted', fieldPath: 'spec.containers{main}' });
    const unhealthy = p.events.filter((e) => e.reason === 'Unhealthy');
    assert.ok(unhealthy.length >= 2);
    assert.deepEqual(unhealthy[0], { type: 'Warning', reason: 'Unhealthy', note: 'Liveness probe failed: sick\n', fieldPath: 'spec.containers{main}' });
    assert.equal(p.cs().lastState.terminated.exitCode, 143, 'SIGTERM ended it');
    const text = writeText(metrics.registry.collect());
    assert.match(text, new RegExp(`prober_probe_total\\{container="main",namespace="default",pod="live-unit",pod_uid="${p.r.pod.uid}",probe_type="Liveness",result="failed"\\} [2-9]`));
    assert.match(text, /prober_probe_duration_seconds_count\{container="main",namespace="default",pod="live-unit",probe_type="Startup"\} [1-9]/);
  });

  it('the startup probe gates liveness and readiness; a failing startup probe kills the container', async () => {
    const p = start(
      'startup',
      `  - name: main\n    command: [sleep, '60']\n    startupProbe: {periodSeconds: 1, failureThreshold: 2, exec: {command: [sh, -c, 'echo starting; exit 1']}}\n    livenessProbe: {periodSeconds: 1, exec: {command: ['false']}}\n    readinessProbe: {periodSeconds: 1, exec: {command: ['true']}}\n`,
    );
    await until('a restart', () => p.cs().restartCount >= 1);
    assert.deepEqual(
      p.events.filter((e) => e.reason === 'Killing').map((e) => e.note),
      ['Container main failed startup probe, will be restarted'],
    );
    assert.ok(p.events.some((e) => e.note === 'Startup probe failed: starting\n'));
    assert.ok(!p.events.some((e) => /^(Liveness|Readiness) probe/.test(e.note)), JSON.stringify(p.events));
    assert.equal(p.cs().started, false);
    assert.equal(p.cs().ready, false);
  });

  it('a failing readiness probe leaves the container running, not ready; readiness needs successThreshold successes', async () => {
    const p = start('unready', `  - name: main\n    command: [sleep, '60']\n    readinessProbe: {periodSeconds: 1, tcpSocket: {port: 1}}\n`);
    await until('two Unhealthy events', () => p.events.filter((e) => e.reason === 'Unhealthy').length >= 2);
    assert.equal(p.events.find((e) => e.reason === 'Unhealthy')!.note, 'Readiness probe failed: dial tcp 127.0.0.1:1: connect: connection refused');
    assert.equal(p.cs().ready, false);
    assert.equal(p.cs().restartCount, 0);
    assert.ok(p.cs().state.running);
    const q = start('twice', `  - name: main\n    command: [sleep, '60']\n    readinessProbe: {periodSeconds: 1, successThreshold: 2, exec: {command: ['true']}}\n`);
    const series = () => writeText(metrics.registry.collect()).match(/prober_probe_total\{container="main",namespace="default",pod="twice-unit",[^}]*result="successful"\} (\d+)/)?.[1];
    await until('one success', () => series() === '1');
    assert.equal(q.cs().ready, false, 'one success is not enough');
    await until('ready', () => q.cs().ready);
  });
});
