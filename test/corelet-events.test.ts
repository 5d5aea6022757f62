/**
 * The corelet's Events end to end: a real API server (Node authorizer, RBAC) and a real corelet with --kubeconfig
 * as its node identity, running a crashing pod, a pod the kernel OOM-kills at its memory limit, and a sleeper.
 * The Events are read back through the events API and `kubectl events`; OOMKilled through the corelet's /pods.
 * Skipped (with the reason) where the machine has no writable cgroup v2 hierarchy or no memory controller.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { kubeconfigYAML } from '../src/client/kubeconfig.ts';
import { importSigningKey, issueCertificate } from '../src/cmd/x509gen.ts';
import { discoverCgroups } from '../src/corelet/cgroups.ts';
import { TestServer } from './helpers/server.ts';
import { stopProcess } from './helpers/process.ts';
import { until } from './helpers/until.ts';

const ROOT = resolve(import.meta.dirname, '..');
const env = discoverCgroups();
const skip = !env.v2
  ? 'no writable cgroup v2 hierarchy on this machine: the corelet cannot run pods here'
  : !env.v2Controllers.has('memory') && !env.v1.memory
    ? 'no memory controller in cgroup v2 or v1: no memory limit, so no OOM kill to record'
    : false;
const NODE = 'ev-node';

function pods(port: number): Promise<any> {
  return new Promise((res, rej) => {
    request({ host: '127.0.0.1', port, path: '/pods', rejectUnauthorized: false }, (r) => {
      let body = '';
      r.on('data', (d) => (body += d));
      r.on('end', () => (r.statusCode === 200 ? res(JSON.parse(body)) : rej(new Error(`${r.statusCode} ${body}`))));
    })
      .on('error', rej)
      .end();
  });
}


describe('corelet events', { skip }, () => {
  const s = new TestServer();
  const dir = mkdtempSync(join(tmpdir(), 'corelet-events-'));
  const cgroupRoot = `corelet-events-${process.pid}`;
  let agent: ChildProcess;
  let port = 0;
  let stderr = '';

  const manifest = (name: string, command: string, memory = '64Mi') =>
    `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n  - name: main\n    command: [sh, -c, '${command}']\n    resources: {limits: {cpu: 500m, memory: ${memory}}}\n`;

  const events = async (): Promise<any[]> => {
    const r = await s.request('GET', '/apis/events.cluster.io/v1/namespaces/default/events');
    assert.equal(r.status, 200, r.body);
    return r.json().items;
  };
  const find = (list: any[], name: string, reason: string) => list.filter((e) => e.regarding.name === name && e.reason === reason);

  before(async () => {
    await s.start(['--authorization-mode=Node,RBAC']);
    // The node's identity, as kubelet's client certificate: system:node:<name> in system:nodes.
    const caPem = readFileSync(join(s.dataDir, 'pki/ca.crt'), 'utf8');
    const caKey = await importSigningKey(readFileSync(join(s.dataDir, 'pki/ca.key'), 'utf8'));
    const c = await issueCertificate({ subject: [{ O: ['system:nodes'] }, { CN: [`system:node:${NODE}`] }], validDays: 1, clientAuth: true }, { certPem: caPem, key: caKey });
    const kubeconfig = join(dir, 'node.kubeconfig');
    writeFileSync(kubeconfig, kubeconfigYAML({ name: 'core-apiserver', user: NODE, server: s.url, caPem, certPem: c.certPem, keyPem: c.key.pem }), { mode: 0o600 });
    const pods = join(dir, 'pods');
    mkdirSync(pods);
    writeFileSync(join(pods, 'crash.yaml'), manifest('crash', 'sleep 0.2; exit 3'));
    // Really allocates: the shell holds 200 MB of command output in memory, far over the 32Mi limit.
    writeFileSync(join(pods, 'hog.yaml'), manifest('hog', 'x=$(head -c 200000000 /dev/zero | tr "\\0" a); echo ${#x}', '32Mi'));
    writeFileSync(join(pods, 'sleeper.yaml'), manifest('sleeper', 'sleep 1000'));
    writeFileSync(join(pods, 'nowhere.yaml'), manifest('nowhere', 'true').replace('  containers:\n  - name: main\n', '  restartPolicy: Never\n  containers:\n  - name: main\n    workingDir: /nonexistent-dir\n'));
    writeFileSync(join(pods, 'broken.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: broken}\nspec: {containers: [{name: x}]}\n');
    agent = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cmd/corelet.ts', `--kubeconfig=${kubeconfig}`, `--pod-manifest-path=${pods}`, '--port=0', `--hostname-override=${NODE}`, `--cgroup-root=${cgroupRoot}`, '--v=2'],
      { cwd: ROOT },
    );
    agent.stderr!.on('data', (d) => (stderr += d));
    port = await until('the corelet to serve', () => Number(/serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1]) || undefined, 30_000);
  });

  after(async () => {
    await stopProcess(agent);
    await s.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the node Starting and NodeReady, and the manifest it cannot read', async () => {
    const list = await until('Starting, NodeReady, FailedValidation', async () => {
      const l = await events();
      return ['Starting', 'NodeReady', 'FailedValidation'].every((r) => find(l, NODE, r).length) && l;
    });
    const [starting] = find(list, NODE, 'Starting');
    assert.equal(starting.note, 'Starting corelet.');
    assert.equal(starting.type, 'Normal');
    assert.deepEqual(starting.regarding, { kind: 'Node', name: NODE, uid: NODE, apiVersion: 'v1' });
    assert.equal(starting.reportingController, 'corelet');
    assert.equal(starting.reportingInstance, NODE);
    assert.equal(starting.metadata.managedFields[0].manager, 'corelet');
    assert.equal(find(list, NODE, 'NodeReady')[0].note, `Node ${NODE} status is now: NodeReady`);
    const [invalid] = find(list, NODE, 'FailedValidation');
    assert.equal(invalid.type, 'Warning');
    assert.match(invalid.note, /^Could not process manifest file .*broken\.yaml: spec\.containers\[0\]\.command: Required value/);
  });

  it('records Created, Started and a BackOff series for a crashing container', async () => {
    const name = `crash-${NODE}`;
    const list = await until('BackOff with series count 2', async () => {
      const l = await events();
      return find(l, name, 'BackOff').some((e) => e.series?.count >= 2) && l;
    });
    const [backoff] = find(list, name, 'BackOff');
    assert.equal(backoff.type, 'Warning');
    const uid = backoff.regarding.uid;
    assert.equal(backoff.note, `Back-off restarting failed container main in pod ${name}_default(${uid})`);
    assert.deepEqual(backoff.regarding, { kind: 'Pod', namespace: 'default', name, uid, apiVersion: 'v1', fieldPath: 'spec.containers{main}' });
    const [created] = find(list, name, 'Created');
    assert.equal(created.note, 'Created container: main');
    const [started] = find(list, name, 'Started');
    assert.equal(started.note, 'Started container main');
    // Each restart starts the container again: one Event each, counted in a series.
    assert.ok(created.series?.count >= 2 && started.series?.count >= 2, JSON.stringify([created.series, started.series]));
  });

  it('records Failed for a container that cannot start, which ends StartError (128)', async () => {
    const name = `nowhere-${NODE}`;
    const [failed] = await until('Failed', async () => find(await events(), name, 'Failed').length > 0 && find(await events(), name, 'Failed'));
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.action, 'StartContainer');
    assert.match(failed.note, /^Error: spawn \/bin\/sh ENOENT/);
    assert.equal(find(await events(), name, 'Started').length, 0);
    const st = (await pods(port)).items.find((i: any) => i.metadata.name === name).status.containerStatuses[0];
    assert.deepEqual([st.state.terminated?.reason, st.state.terminated?.exitCode], ['StartError', 128]);
  });

  it('the container killed at its memory limit ends OOMKilled (137), is restarted with back-off, and kubectl events shows it all', async () => {
    const name = `hog-${NODE}`;
    const status = await until('OOMKilled in /pods', async () => {
      const p = (await pods(port)).items.find((i: any) => i.metadata.name === name);
      const st = p?.status.containerStatuses[0];
      const t = st?.state.terminated?.reason === 'OOMKilled' ? st.state.terminated : st?.lastState?.terminated;
      return t?.reason === 'OOMKilled' && { st, t };
    });
    assert.equal(status.t.exitCode, 137);
    await until('the hog restarted and backing off', async () => find(await events(), name, 'BackOff').length > 0);
    const list = await events();
    assert.ok(find(list, name, 'Started').length > 0);
    const k = await s.kubectl(['events', '-n', 'default'], { version: '1.33' });
    assert.equal(k.code, 0, k.stderr);
    assert.match(k.stdout, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m);
    assert.match(k.stdout, new RegExp(`Warning\\s+BackOff\\s+Pod/crash-${NODE}\\s+Back-off restarting failed container main in pod crash-${NODE}_default\\(`));
    assert.match(k.stdout, new RegExp(`Warning\\s+BackOff\\s+Pod/hog-${NODE}\\s+Back-off restarting failed container main`));
    assert.match(k.stdout, new RegExp(`Normal\\s+Created\\s+Pod/sleeper-${NODE}\\s+Created container: main`));
    assert.match(k.stdout, new RegExp(`Normal\\s+Starting\\s+Node/${NODE}\\s+Starting corelet\\.`));
    assert.match(k.stdout, new RegExp(`Normal\\s+NodeReady\\s+Node/${NODE}\\s+Node ${NODE} status is now: NodeReady`));
    // A series shows its count.
    assert.match(k.stdout, new RegExp(`\\(x\\d+ over \\S+\\)\\s+Warning\\s+BackOff\\s+Pod/crash-${NODE}`));
  });

  it('on SIGTERM the Killing events are written before the corelet exits', async () => {
    const exited = new Promise<number | null>((r) => agent.once('exit', (code) => r(code)));
    agent.kill('SIGTERM');
    assert.equal(await exited, 0);
    const killing = find(await events(), `sleeper-${NODE}`, 'Killing');
    assert.equal(killing.length, 1, stderr);
    assert.equal(killing[0].note, 'Stopping container main');
    assert.equal(killing[0].action, 'KillContainer');
  });
});
