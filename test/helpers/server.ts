/**
 * Starts the real server (`npm start` equivalent) as a child process on a fresh data dir and a free port, and gives
 * tests an HTTPS client with the generated admin certificate, the kubeconfig path, and a kubectl runner.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess, execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import https from 'node:https';
import { parse as parseYAML } from 'yaml';
import { startEtcd, type EtcdProcess } from '../../src/storage/etcd3/testing/etcd-process.ts';

export const ROOT = resolve(import.meta.dirname, '..', '..');

/** The one frame of a refused watch-list request (upstream's cacher errWatcher), the watch then ended. */
export function assertWatchListRefused(frames: { type: string; object: Record<string, unknown> }[]): void {
  assert.deepEqual(frames, [
    {
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'a watch stream was requested by the client but the required storage feature RequestWatchProgress is disabled',
        reason: 'InternalError',
        code: 500,
      },
    },
  ]);
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => res(port));
    });
  });
}

/**
 * CORE_APISERVER_TEST_STORAGE=etcd3 runs every test server on etcd (--storage-backend=etcd3): one etcd per data
 * directory, started with the server's first start, kept across its restarts (the data lives there) and stopped by
 * cleanup() (or, by startEtcd, when the test process exits).
 */
export const TEST_STORAGE = process.env.CORE_APISERVER_TEST_STORAGE ?? 'sqlite';
const etcds = new Map<string, Promise<EtcdProcess>>();

async function storageArgs(dataDir: string, extraArgs: string[]): Promise<string[]> {
  if (TEST_STORAGE !== 'etcd3' || extraArgs.some((a) => a.startsWith('--storage-backend'))) return [];
  let e = etcds.get(dataDir);
  if (!e) {
    e = startEtcd();
    etcds.set(dataDir, e);
  }
  // Object counts polled every second rather than every minute, so a test can see them move.
  return ['--storage-backend=etcd3', `--etcd-servers=${(await e).endpoint}`, '--etcd-count-metric-poll-period=1s'];
}

/**
 * The etcd a test server on `dataDir` keeps its objects in (CORE_APISERVER_TEST_STORAGE=etcd3, once started), for
 * tests that look at the stored data itself; undefined on SQLite.
 */
export async function testEtcd(dataDir: string): Promise<EtcdProcess | undefined> {
  return etcds.get(dataDir);
}

/** Stops the etcd of `dataDir` and removes its data (for tests that bring their own data directory). */
export async function stopEtcd(dataDir: string): Promise<void> {
  const e = etcds.get(dataDir);
  etcds.delete(dataDir);
  if (e) await (await e).stop();
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body's bytes (binary responses: protobuf). */
  raw: Buffer;
  json<T = any>(): T;
}

export class TestServer {
  readonly dataDir: string;
  port = 0;
  proc: ChildProcess | undefined;
  stderr = '';
  #agent: https.Agent | undefined;
  #ownsDir: boolean;

  constructor(dataDir?: string) {
    this.#ownsDir = !dataDir;
    this.dataDir = dataDir ?? mkdtempSync(join(tmpdir(), 'core-apiserver-test-'));
  }

  get kubeconfig(): string {
    return join(this.dataDir, 'admin.kubeconfig');
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  async start(extraArgs: string[] = []): Promise<void> {
    // TEST_SERVER_NODE_ARGS adds Node options, e.g. `--stack-size=300` to see what stack the limits leave unused.
    const nodeArgs = (process.env.TEST_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    extraArgs = [...(await storageArgs(this.dataDir, extraArgs)), ...extraArgs];
    // The port is free when asked for and bound seconds later: another test process may take it in between (each
    // freePort is one of some 14,000 ports, and the suite asks hundreds of times). Such a start is tried again on a
    // new port; any other exit is the test's failure.
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      this.stderr = '';
      const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(ROOT, 'src/cmd/core-apiserver.ts'), `--data-dir=${this.dataDir}`, `--secure-port=${this.port}`, ...extraArgs], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      this.proc = proc;
      proc.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
      proc.stdout!.on('data', (d: Buffer) => (this.stderr += d.toString()));
      const ready = await this.#waitReady(proc);
      if (ready) break;
      if (/EADDRINUSE/.test(this.stderr) && attempt < 4) continue;
      throw new Error(proc.exitCode !== null ? `server exited with ${proc.exitCode}: ${this.stderr}` : `server did not get ready in 30 s: ${this.stderr}`);
    }
    const kc = parseYAML(readFileSync(this.kubeconfig, 'utf8'));
    const user = kc.users[0].user;
    const cluster = kc.clusters[0].cluster;
    this.#agent = new https.Agent({
      keepAlive: true,
      ca: Buffer.from(cluster['certificate-authority-data'], 'base64'),
      cert: Buffer.from(user['client-certificate-data'], 'base64'),
      key: Buffer.from(user['client-key-data'], 'base64'),
    });
  }

  /**
   * Until the child says it listens and then answers /readyz (false if it exits or 30 s pass). Its own "Serving
   * securely" line comes first: whoever else holds a port taken under us would answer /readyz as well.
   */
  async #waitReady(proc: ChildProcess): Promise<boolean> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null || proc.signalCode !== null) return false;
      if (this.stderr.includes('"Serving securely"')) {
        try {
          const r = await this.request('GET', '/readyz', undefined, {}, false);
          // 401: up, with anonymous requests disabled (storage is open before the server listens)
          if (r.status === 200 || r.status === 401) return true;
        } catch {
          // not answering yet
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  }

  request(method: string, path: string, body?: string | Buffer | object, headers: Record<string, string> = {}, auth = true): Promise<HttpResult> {
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    return new Promise((resolvePromise, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path,
          headers: { ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}), ...headers },
          ...(auth && this.#agent ? { agent: this.#agent } : { rejectUnauthorized: false, agent: false }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            const text = raw.toString('utf8');
            resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body: text, raw, json: () => JSON.parse(text) });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  /** Opens a watch and collects its frames until `stop()`. */
  /**
   * True when the server said at start that its etcd answers progress requests early (before 3.4.31 / 3.5.13): it then
   * refuses watch-list requests (sendInitialEvents with bookmarks) as upstream does, with one ERROR event.
   */
  get watchListRefused(): boolean {
    return /watch-list requests \(sendInitialEvents with bookmarks\) are refused/.test(this.stderr);
  }

  watch(path: string, headers: Record<string, string> = {}): { frames: any[]; lines: string[]; closed: Promise<void>; stop(): void; status: Promise<number> } {
    const frames: any[] = [];
    const lines: string[] = [];
    let stopFn = () => {};
    let statusResolve: (n: number) => void = () => {};
    const status = new Promise<number>((r) => (statusResolve = r));
    const closed = new Promise<void>((resolveClosed) => {
      const req = https.request({ host: '127.0.0.1', port: this.port, method: 'GET', path, headers, agent: this.#agent }, (res) => {
        statusResolve(res.statusCode ?? 0);
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          buf += d;
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            lines.push(line);
            try {
              frames.push(JSON.parse(line));
            } catch {
              // not JSON: kept in lines
            }
          }
        });
        res.on('end', () => resolveClosed());
        res.on('close', () => resolveClosed());
      });
      req.on('error', () => resolveClosed());
      req.end();
      stopFn = () => req.destroy();
    });
    return { frames, lines, closed, stop: () => stopFn(), status };
  }

  kubectl(args: string[], opts: { version?: string; input?: string; env?: Record<string, string> } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
    const bin = opts.version ? kubectlBinary(opts.version) : 'kubectl';
    return new Promise((resolveRun) => {
      const child = execFile(
        bin,
        [`--kubeconfig=${this.kubeconfig}`, `--cache-dir=${join(this.dataDir, 'kubectl-cache')}`, ...args],
        { env: { ...process.env, ...opts.env }, timeout: 60_000 },
        (err, stdout, stderr) => resolveRun({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      if (opts.input !== undefined) {
        child.stdin!.write(opts.input);
        child.stdin!.end();
      }
    });
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    this.#agent?.destroy();
    const p = this.proc;
    // Killed by a signal (kill()): exitCode stays null and 'exit' has been emitted already.
    if (!p || p.exitCode !== null || p.signalCode !== null) return p?.exitCode ?? null;
    const exited = new Promise<number | null>((r) => p.once('exit', (code) => r(code)));
    p.kill(signal);
    return exited;
  }

  /** Crashes the server (SIGKILL, unless it already exited) and waits until it is gone; then drops the client agent. */
  async kill(): Promise<void> {
    const p = this.proc;
    if (p && p.exitCode === null && p.signalCode === null) {
      const exited = new Promise<void>((r) => p.once('exit', () => r()));
      p.kill('SIGKILL');
      await exited;
    }
    this.#agent?.destroy();
  }

  async cleanup(): Promise<void> {
    await this.stop();
    if (this.#ownsDir) {
      await stopEtcd(this.dataDir);
      rmSync(this.dataDir, { recursive: true, force: true });
    }
  }
}

/** The pinned kubectl of a minor version, next to the dispatcher on PATH. */
export function kubectlBinary(version: string): string {
  const real = execFileSync('readlink', ['-f', execFileSync('which', ['kubectl']).toString().trim()]).toString().trim();
  return join(resolve(real, '..'), `kubectl.${version}`);
}

export { sampleEvent, sampleCoreEvent } from './samples.ts';
