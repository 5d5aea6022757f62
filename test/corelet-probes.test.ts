/**
 * The corelet's probes end to end: a real agent process running static pods in real cgroups, probed over real
 * sockets and by commands run in the containers. Skipped (with the reason) where the machine has no writable
 * cgroup v2 hierarchy.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { discoverCgroups } from '../src/corelet/cgroups.ts';
import { until } from './helpers/until.ts';
import { stopProcess } from './helpers/process.ts';

const ROOT = resolve(import.meta.dirname, '..');
const env = discoverCgroups();
const skip = env.v2 ? false : 'no writable cgroup v2 hierarchy on this machine';

function get(port: number, path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((res, rej) => {
    request({ host: '127.0.0.1', port, path, rejectUnauthorized: false }, (r) => {
      let body = '';
      r.on('data', (d) => (body += d));
      r.on('end', () => res({ status: r.statusCode!, type: String(r.headers['content-type']), body }));
    })
      .on('error', rej)
      .end();
  });
}


async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const p = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return p;
}

describe('corelet probes', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'corelet-probes-'));
  const marker = join(dir, '.started');
  const cgroupRoot = `corelet-probes-${process.pid}`;
  let agent: ChildProcess;
  let port = 0;
  let webPort = 0;
  let stderr = '';

  const podStatus = async (name: string) => {
    const list = JSON.parse((await get(port, '/pods')).body);
    return list.items.find((i: any) => i.metadata.name === `${name}-probe-node`) as any;
  };
  const metric = async (pod: string, type: string, result: string) => {
    const text = (await get(port, '/metrics/probes')).body;
    const re = new RegExp(`^prober_probe_total\\{container="main",namespace="default",pod="${pod}-probe-node",pod_uid="[0-9a-f-]+",probe_type="${type}",result="${result}"\\} (\\d+)$`, 'm');
    return Number(re.exec(text)?.[1] ?? 0);
  };

  before(async () => {
    webPort = await freePort();
    const server = `require("http").createServer((q, r) => r.end(q.url === "/healthz" ? "ok" : "")).listen(${webPort}, "127.0.0.1")`;
    const pods: Record<string, string> = {
      // An HTTP server: ready through httpGet on its named port, alive through tcpSocket, started through exec.
      'good.yaml': `apiVersion: v1\nkind: Pod\nmetadata: {name: good}\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n  - name: main\n    command: [${JSON.stringify(process.execPath)}, -e, ${JSON.stringify(server)}]\n    ports: [{name: web, containerPort: ${webPort}}]\n    startupProbe: {periodSeconds: 1, failureThreshold: 30, exec: {command: [sh, -c, 'test -n "$WEB"']}}\n    readinessProbe: {periodSeconds: 1, httpGet: {path: /healthz, port: web}}\n    livenessProbe: {periodSeconds: 1, tcpSocket: {port: ${webPort}}}\n    env: [{name: WEB, value: "yes"}]\n`,
      'sick.yaml': `apiVersion: v1\nkind: Pod\nmetadata: {name: sick}\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n  - name: main\n    command: [sleep, '600']\n    livenessProbe: {periodSeconds: 1, failureThreshold: 2, exec: {command: [sh, -c, 'echo sick; exit 1']}}\n`,
      'unready.yaml': `apiVersion: v1\nkind: Pod\nmetadata: {name: unready}\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n  - name: main\n    command: [sleep, '600']\n    readinessProbe: {periodSeconds: 1, tcpSocket: {port: 1}}\n`,
      'slow.yaml': `apiVersion: v1\nkind: Pod\nmetadata: {name: slow}\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n  - name: main\n    command: [sleep, '600']\n    startupProbe: {periodSeconds: 1, failureThreshold: 60, exec: {command: [test, -e, ${JSON.stringify(marker)}]}}\n`,
      'badprobe.yaml': `apiVersion: v1\nkind: Pod\nmetadata: {name: badprobe}\nspec:\n  containers:\n  - name: main\n    command: [sleep, '600']\n    livenessProbe: {successThreshold: 2, exec: {command: ['true']}}\n`,
    };
    for (const [f, text] of Object.entries(pods)) writeFileSync(join(dir, f), text);
    agent = spawn(process.execPath, ['--import', 'tsx', 'src/cmd/corelet.ts', `--pod-manifest-path=${dir}`, '--port=0', '--hostname-override=probe-node', `--cgroup-root=${cgroupRoot}`, '--v=2'], { cwd: ROOT });
    agent.stderr!.on('data', (d) => (stderr += d));
    port = await until('the corelet to serve', () => Number(/serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1]) || undefined);
  });

  after(async () => {
    await stopProcess(agent);
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports a manifest with an invalid probe in upstream words and runs the rest', async () => {
    await until('the report', () => /badprobe\.yaml skipped: spec\.containers\[0\]\.livenessProbe\.successThreshold: Invalid value: 2: must be 1/.test(stderr));
    assert.equal(await podStatus('badprobe'), undefined);
  });

  it('a pod whose probes pass is started and ready, with the Ready conditions true', async () => {
    const st = await until('good to be ready', async () => {
      const p = await podStatus('good');
      return p?.status.containerStatuses[0].ready ? p.status : undefined;
    });
    assert.equal(st.containerStatuses[0].started, true);
    assert.equal(st.containerStatuses[0].restartCount, 0);
    assert.equal(st.podIP, '127.0.0.1');
    const conds = Object.fromEntries(st.conditions.map((c: any) => [c.type, c.status]));
    assert.deepEqual(conds, { Initialized: 'True', Ready: 'True', ContainersReady: 'True' });
    await until('liveness successes', async () => (await metric('good', 'Liveness', 'successful')) >= 2);
    assert.ok((await metric('good', 'Readiness', 'successful')) >= 1);
    assert.equal(await metric('good', 'Startup', 'successful'), 1, 'the startup probe stops once it succeeded');
  });

  it('a failing liveness probe restarts the container, saying why', async () => {
    const st = await until('sick to be restarted', async () => {
      const p = await podStatus('sick');
      return p?.status.containerStatuses[0].restartCount >= 1 ? p.status.containerStatuses[0] : undefined;
    });
    assert.equal(st.lastState.terminated.exitCode, 143, 'SIGTERM ended it');
    assert.match(stderr, /pod default\/sick-probe-node container main: Unhealthy: Liveness probe failed: sick/);
    assert.match(stderr, /pod default\/sick-probe-node container main: Killing: Container main failed liveness probe, will be restarted/);
    assert.ok((await metric('sick', 'Liveness', 'failed')) >= 2);
  });

  it('a failing readiness probe leaves the container running and not ready', async () => {
    await until('readiness failures', async () => (await metric('unready', 'Readiness', 'failed')) >= 3);
    const st = (await podStatus('unready')).status;
    const c = st.containerStatuses[0];
    assert.deepEqual([c.ready, c.started, c.restartCount, Boolean(c.state.running)], [false, true, 0, true]);
    const ready = st.conditions.find((x: any) => x.type === 'Ready');
    assert.deepEqual([ready.status, ready.reason, ready.message], ['False', 'ContainersNotReady', 'containers with unready status: [main]']);
    assert.match(stderr, /unready-probe-node container main: Unhealthy: Readiness probe failed: dial tcp 127\.0\.0\.1:1: connect: connection refused/);
  });

  it('a container is not started until its startup probe succeeds', async () => {
    await until('startup failures', async () => (await metric('slow', 'Startup', 'failed')) >= 1);
    const before = (await podStatus('slow')).status.containerStatuses[0];
    assert.deepEqual([before.started, before.ready, Boolean(before.state.running)], [false, false, true]);
    writeFileSync(marker, '');
    const after = await until('slow to start', async () => {
      const c = (await podStatus('slow')).status.containerStatuses[0];
      return c.started ? c : undefined;
    });
    assert.equal(after.ready, true, 'no readiness probe: ready once started');
    assert.equal(after.restartCount, 0);
  });

  it('/metrics/probes counts rise with upstream labels and pass promtool', async (t) => {
    const before = await metric('unready', 'Readiness', 'failed');
    await until('the count to rise', async () => (await metric('unready', 'Readiness', 'failed')) > before);
    const r = await get(port, '/metrics/probes');
    assert.equal(r.status, 200);
    assert.match(r.type, /^text\/plain; version=0\.0\.4/);
    assert.match(r.body, /^# HELP prober_probe_total \[BETA\] Cumulative number of a liveness, readiness or startup probe for a container by result\.$/m);
    assert.match(r.body, /^# TYPE prober_probe_total counter$/m);
    assert.match(r.body, /^# TYPE prober_probe_duration_seconds histogram$/m);
    assert.match(r.body, /^prober_probe_duration_seconds_bucket\{container="main",namespace="default",pod="good-probe-node",probe_type="Readiness",le="\+Inf"\} \d+$/m);
    assert.doesNotMatch(r.body, /^registered_metrics_total/m, 'the meta counters are /metrics\' own');
    if (spawnSync('promtool', ['--version']).error) return t.skip('promtool is not installed (.ci/run installs Debian\'s prometheus)');
    const check = spawnSync('promtool', ['check', 'metrics'], { input: r.body, encoding: 'utf8' });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.equal((check.stdout + check.stderr).trim(), '');
  });

  it('stopping the agent stops the probes with the pods and leaves no cgroups', async () => {
    const exited = new Promise<number | null>((r) => agent.once('exit', (code) => r(code)));
    agent.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.ok(!existsSync(join(env.v2!, cgroupRoot)));
  });
});
