/**
 * Starting the real server the way a user does (`npm start -- --data-dir=DIR --secure-port=PORT`, i.e.
 * `node --import tsx src/cmd/core-apiserver.ts …`; spawned directly so the bench knows the server's own pid for
 * RSS), and the bare baseline server next to it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http2 from 'node:http2';
import { Child, ROOT, spawnChild, sleep } from './proc.ts';
import { kubeconfigCreds, type ClientCreds } from './certs.ts';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  child: Child;
  pid: number;
  port: number;
  origin: string;
  dataDir: string;
  kubeconfig: string;
  creds: ClientCreds;
  stop(): Promise<void>;
}

/** One request over a throwaway HTTP/2 session (setup and health checks, not measurements). */
export function h2Request(origin: string, method: string, path: string, o: { creds?: ClientCreds; body?: string; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(origin, o.creds ? { ca: o.creds.ca, cert: o.creds.cert, key: o.creds.key } : { rejectUnauthorized: false });
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`${method} ${path}: timeout`));
    }, o.timeoutMs ?? 5000);
    session.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    const headers: http2.OutgoingHttpHeaders = { ':method': method, ':path': path, accept: 'application/json', ...o.headers };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const req = session.request(headers, { endStream: o.body === undefined });
    let status = 0;
    let rh: Record<string, unknown> = {};
    const chunks: Buffer[] = [];
    req.on('response', (h) => {
      status = Number(h[':status']);
      rh = h;
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      clearTimeout(timer);
      session.close();
      resolve({ status, body: Buffer.concat(chunks).toString('utf8'), headers: rh });
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      session.destroy();
      reject(e);
    });
    if (o.body !== undefined) req.end(o.body);
  });
}

/** GET a path over a throwaway HTTP/2 session. */
export function h2Get(origin: string, path: string, creds?: ClientCreds, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  return h2Request(origin, 'GET', path, { ...(creds ? { creds } : {}), timeoutMs });
}

/** Starts core-apiserver on a fresh data dir and waits for /readyz 200. */
export async function startApiServer(extraArgs: string[] = [], label = 'core-apiserver', env?: Record<string, string>): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'core-apiserver-bench-'));
  const port = await freePort();
  // BENCH_SERVER_NODE_ARGS adds Node options for a diagnosis, e.g. `--heapsnapshot-signal=SIGUSR2`; `env` may set it
  // for one server, and BENCH_SERVER_ROOT (another checkout) too, for an A/B of two trees in one run.
  const nodeArgs = (env?.BENCH_SERVER_NODE_ARGS ?? process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const root = env?.BENCH_SERVER_ROOT ?? ROOT;
  // BENCH_SERVER_ARGS adds server flags to every server the bench starts, e.g. `--feature-gates=NativeHistograms=true`.
  const serverArgs = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(root, 'src/cmd/core-apiserver.ts'), `--data-dir=${dataDir}`, `--secure-port=${port}`, ...serverArgs, ...extraArgs], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  const child = new Child(proc, label);
  const origin = `https://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${label} exited (${proc.exitCode}): ${child.stderr}`);
    try {
      if ((await h2Get(origin, '/readyz', undefined, 2000)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`${label}: not ready within 60 s: ${child.stderr}`);
    }
    await sleep(100);
  }
  const kubeconfig = join(dataDir, 'admin.kubeconfig');
  return {
    child,
    pid: proc.pid!,
    port,
    origin,
    dataDir,
    kubeconfig,
    creds: kubeconfigCreds(kubeconfig),
    stop: async () => {
      await child.stop('SIGTERM', 20_000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface BareServer {
  child: Child;
  pid: number;
  origin: string;
  stop(): Promise<void>;
}

/** Starts the bare baseline server with the certificates of `dataDir` (a real server's data dir). */
export async function startBareServer(dataDir: string): Promise<BareServer> {
  const child = spawnChild('baselines/bare-server.ts', { dataDir, port: 0 }, { label: 'bare-server' });
  const { port } = await child.waitFor<{ port: number }>('ready', 30_000);
  return { child, pid: child.pid, origin: `https://127.0.0.1:${port}`, stop: () => child.stop('SIGTERM', 5000) };
}
