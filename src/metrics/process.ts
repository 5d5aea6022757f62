/**
 * Process and runtime metrics, registered raw as upstream registers client_golang's process and Go collectors (no
 * stability prefix; not in the catalogue). The `process_*` family has client_golang's names, HELP texts and sources
 * (/proc/self); the Go runtime's `go_*` family has no meaning in Node, so Node's own runtime figures take its place
 * under prom-client's `nodejs_*` names (what Node dashboards read). Read at scrape time, never on a request.
 * Written here rather than with prom-client's default collectors: those live in prom-client's own registry, and
 * every scrape would have to convert them into ours; these are a dozen values read directly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';
import { CounterSeries, GaugeSeries, HistogramSeries } from './metric.ts';
import type { Registry } from './registry.ts';

const gauge = () => new GaugeSeries();

/** The start of this process in seconds since the epoch (client_golang reads /proc; Node knows it already). */
export function processStartSeconds(): number {
  return Math.round(performance.timeOrigin) / 1000;
}

/** `Max ...` rows of /proc/self/limits: soft limit, -1 for unlimited (as client_golang's procfs reports them). */
export function parseLimits(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n').slice(1)) {
    const m = /^(Max [a-z ]+?)\s{2,}(\S+)\s+(\S+)/.exec(line);
    if (m) out.set(m[1]!, m[2] === 'unlimited' ? -1 : Number(m[2]));
  }
  return out;
}

/** vsize (bytes) from /proc/self/stat: field 23, counted after the parenthesised command name. */
export function parseVsize(stat: string): number {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(rest[20]);
}

function readOr<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

export function registerProcessMetrics(registry: Registry): () => void {
  const cpu = registry.raw('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', 'counter', [], () => new CounterSeries()).with();
  const rss = registry.raw('process_resident_memory_bytes', 'Resident memory size in bytes.', 'gauge', [], gauge).with();
  const vsize = registry.raw('process_virtual_memory_bytes', 'Virtual memory size in bytes.', 'gauge', [], gauge).with();
  const vmax = registry.raw('process_virtual_memory_max_bytes', 'Maximum amount of virtual memory available in bytes.', 'gauge', [], gauge).with();
  const openFds = registry.raw('process_open_fds', 'Number of open file descriptors.', 'gauge', [], gauge).with();
  const maxFds = registry.raw('process_max_fds', 'Maximum number of open file descriptors.', 'gauge', [], gauge).with();
  registry.raw('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', 'gauge', [], gauge).with().set(processStartSeconds());

  const heapTotal = registry.raw('nodejs_heap_size_total_bytes', 'Process heap size from Node.js in bytes.', 'gauge', [], gauge).with();
  const heapUsed = registry.raw('nodejs_heap_size_used_bytes', 'Process heap size used from Node.js in bytes.', 'gauge', [], gauge).with();
  const external = registry.raw('nodejs_external_memory_bytes', 'Node.js external memory size in bytes.', 'gauge', [], gauge).with();
  const resources = registry.raw('nodejs_active_resources', 'Number of active resources that are currently keeping the event loop alive, grouped by async resource type.', 'gauge', ['type'], gauge);
  const lagMean = registry.raw('nodejs_eventloop_lag_mean_seconds', 'The mean of the recorded event loop delays.', 'gauge', [], gauge).with();
  const lagP99 = registry.raw('nodejs_eventloop_lag_p99_seconds', 'The 99th percentile of the recorded event loop delays.', 'gauge', [], gauge).with();
  const lagMax = registry.raw('nodejs_eventloop_lag_max_seconds', 'The maximum recorded event loop delay.', 'gauge', [], gauge).with();
  const [major, minor, patch] = process.versions.node.split('.');
  registry.raw('nodejs_version_info', 'Node.js version info.', 'gauge', ['version', 'major', 'minor', 'patch'], gauge).with(process.version, major!, minor!, patch!).set(1);
  const gcKinds = ['minor', 'major', 'incremental', 'weakcb'];
  const gcVec = registry.raw('nodejs_gc_duration_seconds', 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.', 'histogram', ['kind'], () => new HistogramSeries([0.001, 0.01, 0.1, 1, 2, 5]));
  const gcByKind = gcKinds.map((k) => gcVec.with(k));

  // Node's GC flags: 1 minor, 2 major, 4 incremental, 8 weak callbacks.
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0;
      const i = kind === 1 ? 0 : kind === 2 ? 1 : kind === 4 ? 2 : kind === 8 ? 3 : -1;
      if (i >= 0) gcByKind[i]!.observe(e.duration / 1000);
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();

  registry.onCollect(() => {
    const u = process.cpuUsage();
    cpu.value = (u.user + u.system) / 1e6;
    const mem = process.memoryUsage();
    rss.set(mem.rss);
    heapTotal.set(mem.heapTotal);
    heapUsed.set(mem.heapUsed);
    external.set(mem.external);
    vsize.set(readOr(() => parseVsize(readFileSync('/proc/self/stat', 'latin1')), 0));
    const limits = readOr(() => parseLimits(readFileSync('/proc/self/limits', 'latin1')), new Map<string, number>());
    vmax.set(limits.get('Max address space') ?? -1);
    maxFds.set(limits.get('Max open files') ?? -1);
    openFds.set(readOr(() => readdirSync('/proc/self/fd').length, 0));
    const byType = new Map<string, number>();
    for (const t of process.getActiveResourcesInfo()) byType.set(t, (byType.get(t) ?? 0) + 1);
    for (const s of resources.series()) if (!byType.has(s.values[0]!)) s.series.set(0);
    for (const [t, n] of byType) resources.with(t).set(n);
    // The delay histogram counts in ns since the last scrape: each scrape reports the period before it.
    if (delay.count > 0) {
      lagMean.set(delay.mean / 1e9);
      lagP99.set(delay.percentile(99) / 1e9);
      lagMax.set(delay.max / 1e9);
    }
    delay.reset();
  });
  return () => {
    gc.disconnect();
    delay.disable();
  };
}
