/**
 * A single-member etcd (Debian's etcd-server) on loopback in a temporary data dir: the store any etcd-backed
 * API server writes to. Its raw put rate through the etcd3 client is the ceiling of such a server here.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../lib/apiserver.ts';
import { Child, sleep } from '../lib/proc.ts';

export interface RunningEtcd {
  endpoint: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startEtcd(extraArgs: string[] = []): Promise<RunningEtcd> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-etcd-'));
  const [client, peer] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${client}`;
  const proc = spawn(
    'etcd',
    [
      '--name=e1',
      `--data-dir=${join(dir, 'data')}`,
      `--listen-client-urls=${endpoint}`,
      `--advertise-client-urls=${endpoint}`,
      `--listen-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-cluster=e1=http://127.0.0.1:${peer}`,
      '--quota-backend-bytes=8589934592',
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const child = new Child(proc, 'etcd');
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`etcd exited (${proc.exitCode}): ${child.stderr}`);
    try {
      const r = await fetch(`${endpoint}/health`);
      if (r.ok && ((await r.json()) as { health?: string }).health === 'true') break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`etcd not healthy within 30 s: ${child.stderr}`);
    }
    await sleep(100);
  }
  return {
    endpoint,
    pid: proc.pid!,
    stop: async () => {
      await child.stop('SIGTERM', 5000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
