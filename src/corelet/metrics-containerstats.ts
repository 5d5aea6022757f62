/**
 * `/metrics/containerstats` (kubelet's cAdvisor endpoint for what the corelet can read itself): per running
 * container, the pressure stall totals (`container_pressure_{cpu,memory,io}_{waiting,stalled}_seconds_total`: the
 * kernel's `some` and `full` totals in µs, as seconds) and cAdvisor's CPU and memory series, read from the
 * container's cgroup v2 files at scrape time and stamped with the time of the reading. The labels are cAdvisor's
 * as kubelet sets them (container, id = cgroup path, image, name = runtime's container id, namespace, pod); the
 * corelet runs commands, not images, so `image` is empty. A file the machine lacks leaves its series out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { featureGates } from '../features.ts';
import { SampleSeries, type MetricVec } from '../metrics/metric.ts';
import { Registry } from '../metrics/registry.ts';
import { versionInfo } from '../version.ts';
import type { Cgroup } from './cgroups.ts';
import { parseFlatKeyed, parsePSI } from './stats.ts';

export interface RunningContainer {
  pod: string;
  namespace: string;
  container: string;
  /** The runtime's container id. */
  id: string;
  cgroup: Cgroup;
}

const LABELS = ['container', 'id', 'image', 'name', 'namespace', 'pod'];

function read(dir: string | undefined, file: string): string | undefined {
  if (dir === undefined) return undefined;
  try {
    return readFileSync(join(dir, file), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * CFS bandwidth counters, for a container with a CPU quota (cAdvisor reports them only then): v2 `cpu.max` and
 * `cpu.stat` where the cpu controller is on, else v1's `cpu.cfs_quota_us` and `cpu.stat`.
 */
function cfsStats(cg: Cgroup): { periods?: number; throttledPeriods?: number; throttledSeconds?: number } | undefined {
  const v2 = cg.v2Dir;
  if (v2 && /^\d+/.test(read(v2, 'cpu.max') ?? '')) {
    const s = parseFlatKeyed(read(v2, 'cpu.stat') ?? '');
    return { periods: s.get('nr_periods'), throttledPeriods: s.get('nr_throttled'), throttledSeconds: s.has('throttled_usec') ? s.get('throttled_usec')! / 1e6 : undefined };
  }
  const v1 = cg.v1Dir('cpu');
  if (v1 && Number(read(v1, 'cpu.cfs_quota_us')?.trim() ?? '-1') > 0) {
    const s = parseFlatKeyed(read(v1, 'cpu.stat') ?? '');
    return { periods: s.get('nr_periods'), throttledPeriods: s.get('nr_throttled'), throttledSeconds: s.has('throttled_time') ? s.get('throttled_time')! / 1e9 : undefined };
  }
  return undefined;
}

/**
 * Memory as cAdvisor reads it: v2 `memory.current` and `memory.stat` (anon, file), else v1's `memory.usage_in_bytes`
 * and the hierarchical `total_*` counters of `memory.stat`; working set = usage − inactive file pages, at least 0.
 */
function memoryStats(cg: Cgroup): { usage: number; workingSet?: number; rss?: number; cache?: number; pgfault?: number; pgmajfault?: number } | undefined {
  const v2 = cg.v2Dir;
  const current = v2 ? read(v2, 'memory.current') : undefined;
  let usage: number;
  let stat: Map<string, number>;
  let p = '';
  if (current !== undefined) {
    usage = Number(current.trim());
    stat = parseFlatKeyed(read(v2!, 'memory.stat') ?? '');
  } else {
    const v1 = cg.v1Dir('memory');
    const u = v1 ? read(v1, 'memory.usage_in_bytes') : undefined;
    if (u === undefined) return undefined;
    usage = Number(u.trim());
    stat = parseFlatKeyed(read(v1!, 'memory.stat') ?? '');
    p = 'total_';
  }
  const inactive = stat.get(`${p}inactive_file`);
  return {
    usage,
    ...(inactive !== undefined ? { workingSet: Math.max(0, usage - inactive) } : {}),
    rss: stat.get(p ? 'total_rss' : 'anon'),
    cache: stat.get(p ? 'total_cache' : 'file'),
    pgfault: stat.get(`${p}pgfault`),
    pgmajfault: stat.get(`${p}pgmajfault`),
  };
}

export function containerStatsMetrics(containers: () => Iterable<RunningContainer>): Registry {
  const r = new Registry({ version: versionInfo.gitVersion, path: '/metrics/containerstats', nativeHistograms: featureGates.enabled('NativeHistograms') });
  const vecs: MetricVec<SampleSeries>[] = [];
  // cAdvisor's collectors are raw Prometheus collectors: HELP without a stability level.
  const add = (name: string, help: string, type: 'counter' | 'gauge', extra: string[] = []) => {
    const v = r.raw(name, help, type, [...LABELS, ...extra], () => new SampleSeries());
    vecs.push(v);
    return v;
  };
  const cpuUsage = add('container_cpu_usage_seconds_total', 'Cumulative cpu time consumed in seconds.', 'counter', ['cpu']);
  const cpuUser = add('container_cpu_user_seconds_total', 'Cumulative user cpu time consumed in seconds.', 'counter');
  const cpuSystem = add('container_cpu_system_seconds_total', 'Cumulative system cpu time consumed in seconds.', 'counter');
  const cfsPeriods = add('container_cpu_cfs_periods_total', 'Number of elapsed enforcement period intervals.', 'counter');
  const cfsThrottledPeriods = add('container_cpu_cfs_throttled_periods_total', 'Number of throttled period intervals.', 'counter');
  const cfsThrottledSeconds = add('container_cpu_cfs_throttled_seconds_total', 'Total time duration the container has been throttled.', 'counter');
  const memUsage = add('container_memory_usage_bytes', 'Current memory usage in bytes, including all memory regardless of when it was accessed', 'gauge');
  const memWorkingSet = add('container_memory_working_set_bytes', 'Current working set in bytes.', 'gauge');
  const memRss = add('container_memory_rss', 'Size of RSS in bytes.', 'gauge');
  const memCache = add('container_memory_cache', 'Number of bytes of page cache memory.', 'gauge');
  const memFailures = add('container_memory_failures_total', 'Cumulative count of memory allocation failures.', 'counter', ['failure_type', 'scope']);
  const pressure = {
    cpu: [add('container_pressure_cpu_waiting_seconds_total', 'Total time duration tasks in the container have waited due to CPU congestion.', 'counter'), add('container_pressure_cpu_stalled_seconds_total', 'Total time duration no tasks in the container could make progress due to CPU congestion.', 'counter')],
    memory: [add('container_pressure_memory_waiting_seconds_total', 'Total time duration tasks in the container have waited due to memory congestion.', 'counter'), add('container_pressure_memory_stalled_seconds_total', 'Total time duration no tasks in the container could make progress due to memory congestion.', 'counter')],
    io: [add('container_pressure_io_waiting_seconds_total', 'Total time duration tasks in the container have waited due to IO congestion.', 'counter'), add('container_pressure_io_stalled_seconds_total', 'Total time duration no tasks in the container could make progress due to IO congestion.', 'counter')],
  } as const;

  r.onCollect(() => {
    for (const v of vecs) v.reset();
    for (const c of containers()) {
      const dir = c.cgroup.v2Dir;
      const labels = [c.container, `/${c.cgroup.name}`, '', c.id, c.namespace, c.pod];
      const at = Date.now();
      const set = (v: MetricVec<SampleSeries>, value: number | undefined, ...extra: string[]) => {
        if (value !== undefined) v.with(...labels, ...extra).set(value, at);
      };
      const cpu = read(dir, 'cpu.stat');
      if (cpu !== undefined) {
        const s = parseFlatKeyed(cpu);
        const sec = (k: string) => (s.has(k) ? s.get(k)! / 1e6 : undefined);
        set(cpuUsage, sec('usage_usec'), 'total');
        set(cpuUser, sec('user_usec'));
        set(cpuSystem, sec('system_usec'));
      }
      const cfs = cfsStats(c.cgroup);
      if (cfs) {
        set(cfsPeriods, cfs.periods);
        set(cfsThrottledPeriods, cfs.throttledPeriods);
        set(cfsThrottledSeconds, cfs.throttledSeconds);
      }
      const mem = memoryStats(c.cgroup);
      if (mem) {
        set(memUsage, mem.usage);
        set(memWorkingSet, mem.workingSet);
        set(memRss, mem.rss);
        set(memCache, mem.cache);
        set(memFailures, mem.pgfault, 'pgfault', 'hierarchy');
        set(memFailures, mem.pgmajfault, 'pgmajfault', 'hierarchy');
      }
      for (const res of ['cpu', 'memory', 'io'] as const) {
        const text = read(dir, `${res}.pressure`);
        const psi = text === undefined ? undefined : parsePSI(text);
        if (!psi) continue;
        set(pressure[res][0], psi.some.total / 1e6);
        set(pressure[res][1], psi.full.total / 1e6);
      }
    }
  });
  return r;
}
