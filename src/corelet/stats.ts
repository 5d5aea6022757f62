/**
 * Readings for `/stats/summary` (kubelet's stats/v1alpha1 Summary shape): CPU, memory, processes and pressure
 * stall information of the node (from /proc and the v2 root) and of each pod and container cgroup. A value the
 * machine does not give is left out, never estimated: the JSON omits the field as upstream's `omitempty` does.
 */
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import type { Cgroup } from './cgroups.ts';

export interface PSIData {
  total: number;
  avg10: number;
  avg60: number;
  avg300: number;
}
export interface PSIStats {
  full: PSIData;
  some: PSIData;
}
export interface CPUStats {
  time: string;
  usageNanoCores?: number;
  usageCoreNanoSeconds?: number;
  psi?: PSIStats;
}
export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
  psi?: PSIStats;
}
export interface FsStats {
  time: string;
  availableBytes: number;
  capacityBytes: number;
  usedBytes: number;
  inodesFree: number;
  inodes: number;
  inodesUsed: number;
}
export interface IOStats {
  time: string;
  psi?: PSIStats;
}

function read(path: string | undefined): string | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** `key value` lines (cpu.stat, memory.stat) into numbers. */
export function parseFlatKeyed(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [k, v] = line.trim().split(/\s+/);
    if (k && v !== undefined && /^\d+$/.test(v)) out.set(k, Number(v));
  }
  return out;
}

/**
 * A PSI file (`/proc/pressure/cpu`, `<cgroup>/memory.pressure`): `some avg10=… avg60=… avg300=… total=…` and a
 * `full` line. Old kernels have no `full` line for cpu; upstream reports zeros for it then, as the kernel does
 * since 5.13 (cpu `full` is defined and always 0 at the system level).
 */
export function parsePSI(text: string): PSIStats | undefined {
  const kinds: Partial<Record<'some' | 'full', PSIData>> = {};
  for (const line of text.split('\n')) {
    const [kind, ...fields] = line.trim().split(/\s+/);
    if (kind !== 'some' && kind !== 'full') continue;
    const f = Object.fromEntries(fields.map((x) => x.split('=') as [string, string]));
    if (f.avg10 === undefined || f.total === undefined) continue;
    kinds[kind] = { total: Number(f.total), avg10: Number(f.avg10), avg60: Number(f.avg60), avg300: Number(f.avg300) };
  }
  if (!kinds.some) return undefined;
  return { some: kinds.some, full: kinds.full ?? { total: 0, avg10: 0, avg60: 0, avg300: 0 } };
}

/** Cumulative CPU time and the instant it was read, for a usage rate between two samples. */
interface CpuSample {
  ns: number;
  at: number;
}

/**
 * Keeps the previous CPU sample of each cgroup so usageNanoCores is the rate between two readings (kubelet's
 * cadvisor does the same on its housekeeping interval). The first reading has no rate: the field is left out.
 */
export class CpuRates {
  readonly #last = new Map<string, CpuSample>();
  rate(key: string, ns: number, at = process.hrtime.bigint()): number | undefined {
    const now = Number(at);
    const prev = this.#last.get(key);
    this.#last.set(key, { ns, at: now });
    if (!prev || now <= prev.at || ns < prev.ns) return undefined;
    return Math.round(((ns - prev.ns) / (now - prev.at)) * 1e9);
  }
  forget(key: string): void {
    this.#last.delete(key);
  }
}

/** CPU usage of a cgroup in nanoseconds: v2 cpu.stat `usage_usec` (present without the cpu controller), else v1 cpuacct.usage. */
function cgroupCpuNs(cg: Cgroup): number | undefined {
  const v2 = read(cg.v2Dir && join(cg.v2Dir, 'cpu.stat'));
  if (v2 !== undefined) {
    const usec = parseFlatKeyed(v2).get('usage_usec');
    if (usec !== undefined) return usec * 1000;
  }
  const v1 = read(cg.v1Dir('cpuacct') && join(cg.v1Dir('cpuacct')!, 'cpuacct.usage'));
  return v1 !== undefined && /^\d+/.test(v1.trim()) ? Number(v1.trim()) : undefined;
}

function psiOf(dir: string | undefined, resource: 'cpu' | 'memory' | 'io'): PSIStats | undefined {
  const text = read(dir && join(dir, `${resource}.pressure`));
  return text === undefined ? undefined : parsePSI(text);
}

export function cgroupCpu(cg: Cgroup, rates: CpuRates, time: string): CPUStats | undefined {
  const ns = cgroupCpuNs(cg);
  const psi = psiOf(cg.v2Dir, 'cpu');
  if (ns === undefined && !psi) return undefined;
  const out: CPUStats = { time };
  if (ns !== undefined) {
    const rate = rates.rate(cg.name, ns);
    if (rate !== undefined) out.usageNanoCores = rate;
    out.usageCoreNanoSeconds = ns;
  }
  if (psi) out.psi = psi;
  return out;
}

/**
 * Memory of a cgroup. v2: memory.current and memory.stat (`anon`, `inactive_file`, `pgfault`, `pgmajfault`);
 * v1: memory.usage_in_bytes and memory.stat's `total_*` (hierarchical) counters. Working set = usage − inactive
 * file pages, as cadvisor computes it. availableBytes = limit − working set, only when a limit is set.
 */
export function cgroupMemory(cg: Cgroup, time: string, limitBytes?: number): MemoryStats | undefined {
  const out: MemoryStats = { time };
  const v2cur = read(cg.v2Dir && join(cg.v2Dir, 'memory.current'));
  let usage: number | undefined;
  let stat: Map<string, number> | undefined;
  let prefix = '';
  if (v2cur !== undefined) {
    usage = Number(v2cur.trim());
    const s = read(join(cg.v2Dir!, 'memory.stat'));
    if (s) stat = parseFlatKeyed(s);
  } else {
    const d = cg.v1Dir('memory');
    const cur = read(d && join(d, 'memory.usage_in_bytes'));
    if (cur !== undefined) {
      usage = Number(cur.trim());
      const s = read(join(d!, 'memory.stat'));
      if (s) stat = parseFlatKeyed(s);
      prefix = 'total_';
    }
  }
  if (usage !== undefined) {
    out.usageBytes = usage;
    const inactive = stat?.get(`${prefix}inactive_file`);
    if (inactive !== undefined) {
      out.workingSetBytes = Math.max(0, usage - inactive);
      if (limitBytes !== undefined) out.availableBytes = Math.max(0, limitBytes - out.workingSetBytes);
    }
  }
  const rss = prefix ? stat?.get('total_rss') : stat?.get('anon');
  if (rss !== undefined) out.rssBytes = rss;
  const pf = stat?.get(`${prefix}pgfault`);
  if (pf !== undefined) out.pageFaults = pf;
  const mpf = stat?.get(`${prefix}pgmajfault`);
  if (mpf !== undefined) out.majorPageFaults = mpf;
  const psi = psiOf(cg.v2Dir, 'memory');
  if (psi) out.psi = psi;
  return Object.keys(out).length > 1 ? out : undefined;
}

export function cgroupIO(cg: Cgroup, time: string): IOStats | undefined {
  const psi = psiOf(cg.v2Dir, 'io');
  return psi ? { time, psi } : undefined;
}

/** Node CPU: the v2 root's cpu.stat (the whole machine) or /proc/stat's busy jiffies; PSI from /proc/pressure. */
export function nodeCpu(rates: CpuRates, time: string, v2Root?: string): CPUStats | undefined {
  let ns: number | undefined;
  const root = read(v2Root && join(v2Root, 'cpu.stat'));
  const usec = root === undefined ? undefined : parseFlatKeyed(root).get('usage_usec');
  if (usec !== undefined) ns = usec * 1000;
  else {
    const stat = read('/proc/stat');
    const cpu = stat?.split('\n').find((l) => l.startsWith('cpu '));
    if (cpu) {
      // user nice system idle iowait irq softirq steal: busy = all but idle and iowait, in USER_HZ (100/s).
      const f = cpu.trim().split(/\s+/).slice(1).map(Number);
      const busy = f.slice(0, 8).reduce((a, b, i) => (i === 3 || i === 4 ? a : a + b), 0);
      ns = busy * 10_000_000;
    }
  }
  const out: CPUStats = { time };
  if (ns !== undefined) {
    const rate = rates.rate('<node>', ns);
    if (rate !== undefined) out.usageNanoCores = rate;
    out.usageCoreNanoSeconds = ns;
  }
  const psi = existsSync('/proc/pressure/cpu') ? parsePSI(read('/proc/pressure/cpu') ?? '') : undefined;
  if (psi) out.psi = psi;
  return out;
}

/** Node memory from /proc/meminfo; available = capacity − working set, as kubelet's eviction signal. */
export function nodeMemory(time: string): MemoryStats | undefined {
  const text = read('/proc/meminfo');
  if (!text) return undefined;
  const kb = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\S+):\s+(\d+)/.exec(line);
    if (m) kb.set(m[1]!, Number(m[2]) * 1024);
  }
  const total = kb.get('MemTotal');
  const free = kb.get('MemFree');
  const out: MemoryStats = { time };
  if (total !== undefined && free !== undefined) {
    out.usageBytes = total - free;
    const inactive = kb.get('Inactive(file)');
    if (inactive !== undefined) {
      out.workingSetBytes = Math.max(0, out.usageBytes - inactive);
      out.availableBytes = Math.max(0, total - out.workingSetBytes);
    }
  }
  const vm = read('/proc/vmstat');
  if (vm) {
    const s = parseFlatKeyed(vm);
    if (s.has('pgfault')) out.pageFaults = s.get('pgfault');
    if (s.has('pgmajfault')) out.majorPageFaults = s.get('pgmajfault');
  }
  const anon = kb.get('AnonPages');
  if (anon !== undefined) out.rssBytes = anon;
  const psi = parsePSI(read('/proc/pressure/memory') ?? '');
  if (psi) out.psi = psi;
  return out;
}

export function nodeIO(time: string): IOStats | undefined {
  const psi = parsePSI(read('/proc/pressure/io') ?? '');
  return psi ? { time, psi } : undefined;
}

/** rlimit: kernel.pid_max and the number of processes (threads count, as upstream reads /proc/loadavg's). */
export function nodeRlimit(time: string): { time: string; maxpid?: number; curproc?: number } {
  const out: { time: string; maxpid?: number; curproc?: number } = { time };
  const max = read('/proc/sys/kernel/pid_max');
  if (max) out.maxpid = Number(max.trim());
  const load = read('/proc/loadavg');
  const m = load && /\s\d+\/(\d+)\s/.exec(load);
  if (m) out.curproc = Number(m[1]);
  return out;
}

/**
 * The filesystem holding `dir` (kubelet's node `fs`: the one of its root dir), from statfs(2) as cadvisor reads it:
 * available = blocks free to unprivileged users, used = blocks - free blocks. Undefined when the path is unreadable.
 */
export function nodeFs(dir: string, time: string): FsStats | undefined {
  try {
    const s = statfsSync(dir);
    return {
      time,
      availableBytes: s.bavail * s.bsize,
      capacityBytes: s.blocks * s.bsize,
      usedBytes: (s.blocks - s.bfree) * s.bsize,
      inodesFree: s.ffree,
      inodes: s.files,
      inodesUsed: s.files - s.ffree,
    };
  } catch {
    return undefined;
  }
}
