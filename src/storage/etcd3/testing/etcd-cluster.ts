/**
 * A real three-member (or n-member) etcd cluster for tests, on loopback with free ports and temporary data
 * directories. Members can be killed (SIGKILL, as a crash) and restarted on their data directory, where they rejoin
 * the cluster as the same member. Everything is removed by `stop()`, or when the test process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdClient } from '../client.ts';
import { ETCD_BIN, freePort } from './etcd-process.ts';

export interface EtcdMember {
  name: string;
  endpoint: string;
  peerUrl: string;
  proc: ChildProcess | undefined;
  stderr: string;
}

export class EtcdCluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'etcd-cluster-test-'));
  readonly members: EtcdMember[] = [];
  #initialCluster = '';
  readonly #killOnExit = () => {
    for (const m of this.members) m.proc?.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  };

  /** Every member's client URL, comma separated (what --etcd-servers takes). */
  get servers(): string {
    return this.members.map((m) => m.endpoint).join(',');
  }

  static async start(size = 3, timeoutMs = 30_000): Promise<EtcdCluster> {
    const c = new EtcdCluster();
    process.once('exit', c.#killOnExit);
    for (let i = 0; i < size; i++) {
      const [client, peer] = [await freePort(), await freePort()];
      c.members.push({ name: `m${i}`, endpoint: `http://127.0.0.1:${client}`, peerUrl: `http://127.0.0.1:${peer}`, proc: undefined, stderr: '' });
    }
    c.#initialCluster = c.members.map((m) => `${m.name}=${m.peerUrl}`).join(',');
    // All at once: a member waits for a quorum of its peers before it serves.
    for (const m of c.members) c.#spawn(m);
    try {
      await Promise.all(c.members.map((m) => c.waitReady(m, timeoutMs)));
    } catch (err) {
      await c.stop();
      throw err;
    }
    return c;
  }

  #spawn(m: EtcdMember): void {
    m.stderr = '';
    const proc = spawn(ETCD_BIN, [
      '--name', m.name,
      '--data-dir', join(this.dir, m.name),
      '--listen-client-urls', m.endpoint,
      '--advertise-client-urls', m.endpoint,
      '--listen-peer-urls', m.peerUrl,
      '--initial-advertise-peer-urls', m.peerUrl,
      '--initial-cluster', this.#initialCluster,
      '--initial-cluster-token', 'core-apiserver-test',
      '--initial-cluster-state', 'new',
      '--experimental-watch-progress-notify-interval', '1s',
      '--logger', 'zap',
      '--log-level', 'error',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    proc.stderr!.on('data', (d: Buffer) => {
      if (m.stderr.length < 20_000) m.stderr += d.toString();
    });
    proc.unref();
    (proc.stderr as unknown as { unref?: () => void }).unref?.();
    m.proc = proc;
  }

  /** Ready when a linearizable read through this member answers: it is part of a cluster with a leader. */
  async waitReady(m: EtcdMember, timeoutMs = 30_000): Promise<void> {
    const c = new EtcdClient({ endpoints: [m.endpoint] });
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        if (m.proc?.exitCode !== null && m.proc?.exitCode !== undefined) throw new Error(`etcd member ${m.name} exited:\n${m.stderr}`);
        try {
          await c.call('range', { key: Buffer.from('ready') }, 1000);
          return;
        } catch {
          if (Date.now() > deadline) throw new Error(`etcd member ${m.name} not ready in time:\n${m.stderr}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    } finally {
      c.close();
    }
  }

  /** Crashes member `i` (SIGKILL) and waits until it is gone. */
  async kill(i: number): Promise<void> {
    const p = this.members[i]!.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const gone = new Promise<void>((r) => p.once('exit', () => r()));
    // The process is unref'd (a failed test must not hang on it): hold the event loop until its exit arrives.
    p.ref();
    p.kill('SIGKILL');
    await gone;
  }

  /** Starts member `i` again on its data directory (it rejoins as itself) and waits until it serves. */
  async restart(i: number): Promise<void> {
    const m = this.members[i]!;
    this.#spawn(m);
    await this.waitReady(m);
  }

  async stop(): Promise<void> {
    await Promise.all(this.members.map((_, i) => this.kill(i)));
    process.off('exit', this.#killOnExit);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
