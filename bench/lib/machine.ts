/** What the run ran on: CPU count and model, RAM, Node version, kernel, load before the run. */
import { cpus, loadavg, release, totalmem } from 'node:os';
import { readFileSync } from 'node:fs';

export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  ramGiB: number;
  node: string;
  kernel: string;
  loadavg: string;
  date: string;
  fsync?: string;
}

export function machineInfo(): MachineInfo {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    model = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? model;
  } catch {
    // not Linux
  }
  return {
    nproc: cpus().length,
    cpuModel: model,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    kernel: release(),
    loadavg: loadavg().map((x) => x.toFixed(2)).join(' '),
    date: new Date().toISOString(),
  };
}

/** p50 / p99 of writing 4 KiB and fdatasync-ing it, 300 times in the temp dir: how cheap durability is here. */
export async function fsyncProbe(dir: string): Promise<string> {
  const { openSync, writeSync, fdatasyncSync, closeSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const f = join(dir, `fsync-probe-${process.pid}`);
  const fd = openSync(f, 'w');
  const buf = Buffer.alloc(4096, 1);
  const lat: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    writeSync(fd, buf, 0, buf.length, (i % 64) * 4096);
    fdatasyncSync(fd);
    lat.push(performance.now() - t0);
  }
  closeSync(fd);
  rmSync(f, { force: true });
  lat.sort((a, b) => a - b);
  return `p50 ${lat[149]!.toFixed(3)} ms, p99 ${lat[296]!.toFixed(3)} ms`;
}
