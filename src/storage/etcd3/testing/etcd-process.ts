/**
 * A real etcd for tests: `etcd` (Debian's etcd-server, /usr/bin/etcd; ETCD_BIN overrides) started on loopback with
 * free ports and a temporary data directory, stopped and removed by `stop()`. Single member.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdClient } from '../client.ts';

export const ETCD_BIN = process.env.ETCD_BIN ?? '/usr/bin/etcd';

export function etcdAvailable(): boolean {
  return existsSync(ETCD_BIN);
}

/** A free TCP port on 127.0.0.1 (asked of the OS, then released for etcd to take). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface EtcdProcess {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  dataDir: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Client TLS for etcd: serving certificate and key, and the CA that client certificates must chain to. */
export interface EtcdServerTls {
  certFile: string;
  keyFile: string;
  caFile: string;
  /** The client certificate the readiness check presents. */
  clientCertFile: string;
  clientKeyFile: string;
}

export async function startEtcd(opts: { extraArgs?: string[]; timeoutMs?: number; tls?: EtcdServerTls } = {}): Promise<EtcdProcess> {
  const tls = opts.tls;
  const dataDir = mkdtempSync(join(tmpdir(), 'etcd-test-'));
  for (let attempt = 0; ; attempt++) {
    const [client, peer] = [await freePort(), await freePort()];
    const endpoint = `${tls ? 'https' : 'http'}://127.0.0.1:${client}`;
    const peerUrl = `http://127.0.0.1:${peer}`;
    const args = [
      '--name', 'test',
      '--data-dir', join(dataDir, 'data'),
      '--listen-client-urls', endpoint,
      '--advertise-client-urls', endpoint,
      '--listen-peer-urls', peerUrl,
      '--initial-advertise-peer-urls', peerUrl,
      '--initial-cluster', `test=${peerUrl}`,
      '--logger', 'zap',
      '--log-level', 'error',
      ...(tls ? ['--cert-file', tls.certFile, '--key-file', tls.keyFile, '--trusted-ca-file', tls.caFile, '--client-cert-auth'] : []),
      ...(opts.extraArgs ?? []),
    ];
    const proc = spawn(ETCD_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 20_000) stderr += d.toString();
    });
    let exited = false;
    proc.on('exit', () => (exited = true));
    // A test that fails before its cleanup must not be kept alive by its etcd: the test process may exit, and takes
    // the etcd with it (below).
    proc.unref();
    (proc.stderr as unknown as { unref?: () => void }).unref?.();
    const killOnExit = () => {
      proc.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    };
    process.once('exit', killOnExit);
    proc.once('exit', () => process.off('exit', killOnExit));
    const stop = async () => {
      if (!exited) {
        const gone = new Promise<void>((r) => proc.once('exit', () => r()));
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await gone;
        clearTimeout(t);
      }
      rmSync(dataDir, { recursive: true, force: true });
    };
    // Ready when it answers a Status call.
    const c = new EtcdClient({ endpoints: [endpoint], ...(tls ? { caFile: tls.caFile, certFile: tls.clientCertFile, keyFile: tls.clientKeyFile } : {}) });
    const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
    try {
      for (;;) {
        if (exited) break;
        try {
          await c.call('status', {}, 500);
          return { endpoint, dataDir, proc, stop };
        } catch {
          if (Date.now() > deadline) {
            await stop();
            throw new Error(`etcd did not become ready in time:\n${stderr}`);
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    } finally {
      c.close();
    }
    // Exited early: most likely a port taken between asking and binding; try again with new ports.
    if (attempt >= 3) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`etcd exited at start:\n${stderr}`);
    }
    rmSync(join(dataDir, 'data'), { recursive: true, force: true });
  }
}
