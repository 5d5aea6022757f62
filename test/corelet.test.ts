/**
 * The corelet end to end: a real agent process running static pods as real processes in real cgroups.
 * Skipped (with the reason) where the machine has no writable cgroup v2 hierarchy.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statfsSync, writeFileSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { discoverCgroups } from '../src/corelet/cgroups.ts';
import { until } from './helpers/until.ts';

const ROOT = resolve(import.meta.dirname, '..');
const env = discoverCgroups();
const skip = env.v2 ? false : 'no writable cgroup v2 hierarchy on this machine';

function get(port: number, path: string): Promise<any> {
  return new Promise((res, rej) => {
    request({ host: '127.0.0.1', port, path, rejectUnauthorized: false }, (r) => {
      let body = '';
      r.on('data', (d) => (body += d));
      r.on('end', () => (r.statusCode === 200 ? res(path === '/healthz' ? body : JSON.parse(body)) : rej(new Error(`${r.statusCode} ${body}`))));
    })
      .on('error', rej)
      .end();
  });
}


/** Whether a process still runs: a zombie (killed, waiting for pid 1 to reap it, which it does on its own schedule) does not. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

function pidsOf(dir: string): number[] {
  const out = spawnSync('sh', ['-c', `find ${dir} -name cgroup.procs -exec cat {} +`], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter(Boolean).map(Number);
}

describe('corelet', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'corelet-e2e-'));
  const cgroupRoot = `corelet-e2e-${process.pid}`;
  let agent: ChildProcess;
  let port = 0;
  let stderr = '';

  const pod = (name: string, command: string, extra = '') =>
    `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  terminationGracePeriodSeconds: 2\n${extra}  containers:\n  - name: main\n    command: [sh, -c, '${command}']\n    resources: {limits: {cpu: 500m, memory: 64Mi}}\n`;
  const podDir = async (name: string) => {
    const list = await get(port, '/pods');
    const p = list.items.find((i: any) => i.metadata.name === `${name}-e2e-node`);
    return p ? join(env.v2!, cgroupRoot, 'kubepods', `pod${p.metadata.uid}`) : undefined;
  };

  before(async () => {
    writeFileSync(join(dir, 'burn.yaml'), pod('burn', 'while :; do :; done'));
    writeFileSync(join(dir, 'broken.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: broken}\nspec: {containers: [{name: x}]}\n');
    agent = spawn(process.execPath, ['--import', 'tsx', 'src/cmd/corelet.ts', `--pod-manifest-path=${dir}`, '--port=0', '--hostname-override=e2e-node', `--cgroup-root=${cgroupRoot}`, `--root-dir=${join(dir, '.root')}`, '--v=2'], { cwd: ROOT });
    agent.stderr!.on('data', (d) => (stderr += d));
    port = await until('the corelet to serve', () => Number(/serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1]) || undefined, 30_000);
  });

  after(() => {
    if (agent.exitCode === null) agent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves /healthz, says once what the machine lacks, and skips a bad manifest without stopping', async () => {
    assert.equal(await get(port, '/healthz'), 'ok');
    assert.match(stderr, /static pod manifest .*broken\.yaml skipped: spec\.containers\[0\]\.command: Required value/);
    if (!env.v2Controllers.has('cpu')) assert.equal(stderr.match(/cgroup v2 has no cpu controller/g)?.length, 1);
  });

  it('runs the pod in its cgroup with limits; /stats/summary shows CPU rising and PSI', async () => {
    const cg = await until('the burn pod', () => podDir('burn'));
    const pids = await until('a process in the pod cgroup', () => (existsSync(cg) && pidsOf(cg).length ? pidsOf(cg) : undefined));
    assert.ok(pids.every(alive));
    if (!env.v2Controllers.has('cpu') && env.v1.cpu) {
      const v1 = cg.replace(env.v2!, env.v1.cpu);
      assert.equal(readFileSync(join(v1, 'cpu.cfs_quota_us'), 'utf8').trim(), '50000', 'the pod limit (500m) through cgroup v1');
    }
    if (!env.v2Controllers.has('memory') && env.v1.memory) {
      const v1 = cg.replace(env.v2!, env.v1.memory);
      assert.equal(readFileSync(join(v1, 'memory.limit_in_bytes'), 'utf8').trim(), String(64 * 1024 * 1024));
    }
    const container = async () => {
      const s = await get(port, '/stats/summary');
      const p = s.pods.find((x: any) => x.podRef.name === 'burn-e2e-node');
      return p?.containers[0]?.cpu ? { s, p, c: p.containers[0] } : undefined;
    };
    const first = await until('container stats', container);
    await new Promise((r) => setTimeout(r, 1500));
    const second = (await container())!;
    assert.ok(second.c.cpu.usageCoreNanoSeconds > first.c.cpu.usageCoreNanoSeconds, 'usageCoreNanoSeconds rises');
    assert.ok(second.c.cpu.usageNanoCores > 100_000_000, `a busy loop uses a good part of a core: ${second.c.cpu.usageNanoCores}`);
    assert.ok(second.p.cpu.usageCoreNanoSeconds >= second.c.cpu.usageCoreNanoSeconds);
    assert.equal(second.s.node.nodeName, 'e2e-node');
    assert.ok(second.s.node.cpu.usageCoreNanoSeconds > 0);
    assert.ok(second.p.process_stats.process_count >= 1);
    // The node fs is the filesystem of --root-dir, as statfs(2) gives it (`df` reads the same numbers).
    const fs = second.s.node.fs;
    const df = statfsSync(join(dir, '.root'));
    assert.equal(fs.capacityBytes, df.blocks * df.bsize);
    assert.equal(fs.inodes, df.files);
    assert.ok(fs.usedBytes > 0 && fs.availableBytes > 0 && fs.usedBytes + fs.availableBytes <= fs.capacityBytes, JSON.stringify(fs));
    assert.ok(fs.inodesUsed > 0 && fs.inodesUsed + fs.inodesFree === fs.inodes);
    if (existsSync('/proc/pressure/cpu')) {
      for (const o of [second.s.node.cpu, second.s.node.memory, second.s.node.io]) {
        assert.deepEqual(Object.keys(o.psi).sort(), ['full', 'some']);
        assert.deepEqual(Object.keys(o.psi.some).sort(), ['avg10', 'avg300', 'avg60', 'total']);
      }
    }
    if (existsSync(join(env.v2!, 'cpu.pressure'))) {
      assert.ok(second.c.cpu.psi.some.total >= 0 && typeof second.c.cpu.psi.full.avg10 === 'number');
      assert.ok(second.c.memory.psi && second.c.io.psi && second.p.cpu.psi);
    }
    if (env.v1.memory) {
      assert.ok(second.c.memory.usageBytes > 0 && second.c.memory.workingSetBytes <= second.c.memory.usageBytes);
      assert.ok(second.c.memory.availableBytes <= 64 * 1024 * 1024);
    }
  });

  it('removing the manifest stops the processes and removes the cgroup', async () => {
    const cg = (await podDir('burn'))!;
    const pids = pidsOf(cg);
    assert.ok(pids.length > 0);
    rmSync(join(dir, 'burn.yaml'));
    await until('the processes to end', () => pids.every((p) => !alive(p)) || undefined);
    await until('the pod cgroup to go', () => !existsSync(cg) || undefined);
    if (env.v1.cpu) assert.ok(!existsSync(cg.replace(env.v2!, env.v1.cpu)));
  });

  it('a changed manifest replaces the pod: the old processes stop, the new ones run', async () => {
    writeFileSync(join(dir, 'edit.yaml'), pod('edit', 'while :; do sleep 1; done'));
    const oldCg = await until('edit', () => podDir('edit'));
    const oldPids = await until('its process', () => (existsSync(oldCg) && pidsOf(oldCg).length ? pidsOf(oldCg) : undefined));
    writeFileSync(join(dir, 'edit.yaml'), pod('edit', 'while :; do sleep 2; done'));
    const newCg = await until('the new pod', async () => {
      const d = await podDir('edit');
      return d && d !== oldCg && existsSync(d) && pidsOf(d).length ? d : undefined;
    });
    assert.ok(!existsSync(oldCg));
    assert.deepEqual(oldPids.filter(alive), []);
    assert.ok(pidsOf(newCg).every(alive));
    rmSync(join(dir, 'edit.yaml'));
    await until('edit to stop', () => !existsSync(newCg) || undefined);
  });

  it('restarts an exiting restartPolicy Always container with back-off', async () => {
    writeFileSync(join(dir, 'crash.yaml'), pod('crash', 'exit 3'));
    const status = async () => (await get(port, '/pods')).items.find((i: any) => i.metadata.name === 'crash-e2e-node')?.status.containerStatuses[0];
    // The first restart is immediate; the next waits the 10 s back-off.
    const s = await until('CrashLoopBackOff', async () => {
      const st = await status();
      return st?.restartCount >= 1 && st.state.waiting?.reason === 'CrashLoopBackOff' ? st : undefined;
    });
    assert.equal(s.lastState.terminated.exitCode, 3);
    assert.match(s.state.waiting.message, /^back-off 10s restarting failed container=main pod=crash-e2e-node_default/);
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal((await status()).restartCount, s.restartCount, 'no restart during the back-off');
    rmSync(join(dir, 'crash.yaml'));
  });

  it('restartPolicy Never and OnFailure leave a container that ended as it ended', async () => {
    writeFileSync(join(dir, 'never.yaml'), pod('never', 'exit 4', '  restartPolicy: Never\n'));
    writeFileSync(join(dir, 'onfail.yaml'), pod('onfail', 'exit 0', '  restartPolicy: OnFailure\n'));
    const done = await until('both to end', async () => {
      const items = (await get(port, '/pods')).items;
      const n = items.find((i: any) => i.metadata.name === 'never-e2e-node')?.status;
      const o = items.find((i: any) => i.metadata.name === 'onfail-e2e-node')?.status;
      return n?.containerStatuses[0].state.terminated && o?.containerStatuses[0].state.terminated ? { n, o } : undefined;
    });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(done.n.phase, 'Failed');
    assert.equal(done.n.containerStatuses[0].state.terminated.exitCode, 4);
    assert.equal(done.o.phase, 'Succeeded');
    const again = (await get(port, '/pods')).items.filter((i: any) => ['never-e2e-node', 'onfail-e2e-node'].includes(i.metadata.name));
    assert.deepEqual(again.map((i: any) => i.status.containerStatuses[0].restartCount), [0, 0]);
    rmSync(join(dir, 'never.yaml'));
    rmSync(join(dir, 'onfail.yaml'));
  });

  it('SIGTERM stops every process it started and removes the cgroups', async () => {
    writeFileSync(join(dir, 'burn2.yaml'), pod('burn2', 'sh -c "while :; do :; done" & while :; do :; done'));
    const cg = await until('burn2', () => podDir('burn2'));
    const pids = await until('two processes', () => (existsSync(cg) && pidsOf(cg).length >= 2 ? pidsOf(cg) : undefined));
    const exited = new Promise<number | null>((r) => agent.once('exit', (code) => r(code)));
    agent.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.deepEqual(pids.filter(alive), [], 'no orphans');
    // The --cgroup-root it created goes too.
    assert.ok(!existsSync(join(env.v2!, cgroupRoot)));
    for (const root of Object.values(env.v1)) assert.ok(!existsSync(join(root, cgroupRoot)));
  });
});

describe('corelet after a kill', { skip }, () => {
  it('a restarted agent kills and removes the pods a killed one left behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corelet-orphan-'));
    const cgroupRoot = `corelet-orphan-${process.pid}`;
    const start = async () => {
      let err = '';
      const a = spawn(process.execPath, ['--import', 'tsx', 'src/cmd/corelet.ts', `--pod-manifest-path=${dir}`, '--port=0', '--hostname-override=orphan-node', `--cgroup-root=${cgroupRoot}`, '--v=2'], { cwd: ROOT });
      a.stderr!.on('data', (d) => (err += d));
      await until('the corelet to serve', () => /serving on/.test(err) || undefined, 30_000);
      return { a, log: () => err };
    };
    try {
      writeFileSync(join(dir, 'burn.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: burn}\nspec: {containers: [{name: c, command: [sh, -c, "while :; do sleep 1; done"]}]}\n');
      const first = await start();
      const kubepods = join(env.v2!, cgroupRoot, 'kubepods');
      const pids = await until('the pod process', () => (existsSync(kubepods) && pidsOf(kubepods).length ? pidsOf(kubepods) : undefined));
      first.a.kill('SIGKILL');
      await new Promise((r) => first.a.once('exit', r));
      assert.ok(pids.every(alive), 'SIGKILL leaves the pod running, as a killed kubelet does');
      rmSync(join(dir, 'burn.yaml'));
      const second = await start();
      assert.match(second.log(), /removing orphaned pod cgroup .*kubepods\/besteffort\/pod/);
      await until('the orphans to end', () => pids.every((p) => !alive(p)) || undefined);
      assert.ok(!existsSync(join(kubepods, 'besteffort')) || pidsOf(kubepods).length === 0);
      second.a.kill('SIGTERM');
      assert.equal(await new Promise((r) => second.a.once('exit', r)), 0);
      assert.ok(!existsSync(kubepods));
    } finally {
      rmSync(dir, { recursive: true, force: true });
      // The cgroup root existed when the second agent started (the first made it), so it was left as found.
      for (const root of [env.v2!, ...Object.values(env.v1)]) spawnSync('rmdir', [join(root, cgroupRoot)]);
    }
  });
});

describe('corelet flags', () => {
  it('a bad flag stops the start, naming the flag', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cmd/corelet.ts', '--port=abc'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /Error: invalid argument "abc" for "--port" flag/);
    const r2 = spawnSync(process.execPath, ['--import', 'tsx', 'src/cmd/corelet.ts', '--pod-manifest-path=/nonexistent'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r2.status, 1);
    assert.match(r2.stderr, /--pod-manifest-path: \/nonexistent is not a directory/);
    const r3 = spawnSync(process.execPath, ['--import', 'tsx', 'src/cmd/corelet.ts', '--feature-gates=Nope=true'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r3.status, 1);
    assert.match(r3.stderr, /unrecognized feature gate: Nope/);
  });
});
