/**
 * The parent side of the bench's process protocol: spawn a TypeScript child with `node --import tsx`, wait for its
 * `@@tag` messages, bound it in time, and read any process's RSS from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const BENCH_DIR = resolve(import.meta.dirname, '..');
export const ROOT = resolve(BENCH_DIR, '..');

/** A running child process of the bench. */
export class Child {
  readonly proc: ChildProcess;
  readonly label: string;
  #messages = new Map<string, unknown[]>();
  #waiters = new Map<string, ((v: unknown) => void)[]>();
  #stderr = '';
  #exit: Promise<number | null>;

  constructor(proc: ChildProcess, label: string) {
    this.proc = proc;
    this.label = label;
    let buf = '';
    proc.stdout!.setEncoding('utf8');
    proc.stdout!.on('data', (d: string) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const m = /^@@(\w+) (.*)$/.exec(line);
        if (m) this.#deliver(m[1]!, JSON.parse(m[2]!));
      }
    });
    proc.stderr!.setEncoding('utf8');
    // Keep only the tail: enough to explain a failure, bounded for chatty children.
    proc.stderr!.on('data', (d: string) => (this.#stderr = (this.#stderr + d).slice(-4000)));
    this.#exit = new Promise((r) => proc.once('exit', (code, sig) => r(code ?? (sig ? -1 : null))));
  }

  get pid(): number {
    return this.proc.pid!;
  }

  get stderr(): string {
    return this.#stderr;
  }

  #deliver(tag: string, v: unknown): void {
    const w = this.#waiters.get(tag);
    if (w && w.length) w.shift()!(v);
    else this.#messages.set(tag, [...(this.#messages.get(tag) ?? []), v]);
  }

  /** The next `@@tag` message; rejects when the child exits first or after `timeoutMs`. */
  waitFor<T>(tag: string, timeoutMs: number): Promise<T> {
    const queued = this.#messages.get(tag);
    if (queued && queued.length) return Promise.resolve(queued.shift() as T);
    return new Promise<T>((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.kill();
        reject(new Error(`${this.label}: no @@${tag} within ${timeoutMs} ms; stderr: ${this.#stderr.slice(-1500)}`));
      }, timeoutMs);
      const list = this.#waiters.get(tag) ?? [];
      list.push((v) => {
        clearTimeout(timer);
        resolvePromise(v as T);
      });
      this.#waiters.set(tag, list);
      void this.#exit.then((code) => {
        // Let the stdout 'data' of the last message arrive before deciding the child died without it.
        setTimeout(() => {
          clearTimeout(timer);
          reject(new Error(`${this.label}: exited (${code}) before @@${tag}; stderr: ${this.#stderr.slice(-1500)}`));
        }, 50);
      });
    });
  }

  send(line: string): void {
    this.proc.stdin?.write(line + '\n');
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(signal);
  }

  /** Stops with `signal`, escalating to SIGKILL after `graceMs`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.kill(signal);
    const t = setTimeout(() => this.kill('SIGKILL'), graceMs);
    await this.#exit;
    clearTimeout(t);
  }

  get exited(): Promise<number | null> {
    return this.#exit;
  }
}

/** Starts `bench/<script>` (TypeScript) in its own node process with JSON arguments. */
export function spawnChild(script: string, args: unknown, opts: { label?: string; nodeArgs?: string[]; env?: Record<string, string> } = {}): Child {
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', resolve(BENCH_DIR, script)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env, BENCH_ARGS: JSON.stringify(args) },
  });
  return new Child(proc, opts.label ?? script);
}

/** Spawns a load child, waits for its `@@result` (bounded by `timeoutMs`) and returns it. */
export async function runChild<T>(script: string, args: unknown, timeoutMs: number, label?: string): Promise<T> {
  const c = spawnChild(script, args, { label: label ?? script });
  try {
    return await c.waitFor<T>('result', timeoutMs);
  } finally {
    c.kill();
  }
}

/** Resident set size of a process in bytes (VmRSS), or NaN when it is gone. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Samples a process's RSS every `intervalMs` until stopped; reports the peak and the last value. */
export function sampleRss(pid: number, intervalMs = 10): { start: number; stop(): { start: number; peak: number; last: number; samples: number } } {
  const start = rssOf(pid);
  let peak = start;
  let last = peak;
  let samples = 1;
  const t = setInterval(() => {
    last = rssOf(pid);
    samples++;
    if (last > peak) peak = last;
  }, intervalMs);
  return {
    start,
    stop: () => {
      clearInterval(t);
      last = rssOf(pid);
      if (last > peak) peak = last;
      return { start, peak, last, samples };
    },
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** CPU time (user + system) a process has used so far, in milliseconds (Linux clock ticks of 10 ms). */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * Waits until the processes use (nearly) no CPU: under 20 ms of CPU between them in each of two successive 250 ms
 * windows, or `maxMs` at most. Returns how long it waited. For a run that must not start while the last one's
 * aftermath (a server following a mass delete, say) still holds a core.
 */
export async function waitQuiet(pids: number[], maxMs = 10_000): Promise<number> {
  const t0 = performance.now();
  const cpu = () => pids.reduce((s, p) => s + cpuMsOf(p), 0);
  let calm = 0;
  let last = cpu();
  while (calm < 2 && performance.now() - t0 < maxMs) {
    await sleep(250);
    const now = cpu();
    calm = now - last < 20 ? calm + 1 : 0;
    last = now;
  }
  return performance.now() - t0;
}
