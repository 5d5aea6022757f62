/**
 * `/metrics/resource` (kubelet's resource metrics collector): node, pod and container CPU and working-set memory,
 * and container start times, read at scrape time from the same kernel readings as `/stats/summary`. Each sample
 * carries the time of its reading, as upstream's collector stamps them; a series whose reading is missing is left
 * out. `resource_scrape_error` is 1 when the readings could not be taken at all.
 */
import { featureGates } from '../features.ts';
import { Registry } from '../metrics/registry.ts';
import { versionInfo } from '../version.ts';
import type { CPUStats, MemoryStats } from './stats.ts';

/** The part of a stats/v1alpha1 Summary this endpoint reads. */
export interface ResourceSummary {
  node: { cpu?: CPUStats; memory?: MemoryStats };
  pods: {
    podRef: { name: string; namespace: string; uid?: string };
    cpu?: CPUStats;
    memory?: MemoryStats;
    containers: { name: string; startTime?: string; cpu?: CPUStats; memory?: MemoryStats }[];
  }[];
}

export function resourceMetrics(summary: () => ResourceSummary): Registry {
  const r = new Registry({ version: versionInfo.gitVersion, path: '/metrics/resource', nativeHistograms: featureGates.enabled('NativeHistograms') });
  const nodeCpu = r.collected('node_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the node in core-seconds', 'counter');
  const nodeMem = r.collected('node_memory_working_set_bytes', 'Current working set of the node in bytes', 'gauge');
  const podCpu = r.collected('pod_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the pod in core-seconds', 'counter');
  const podMem = r.collected('pod_memory_working_set_bytes', 'Current working set of the pod in bytes', 'gauge');
  const ctrCpu = r.collected('container_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the container in core-seconds', 'counter');
  const ctrMem = r.collected('container_memory_working_set_bytes', 'Current working set of the container in bytes', 'gauge');
  const ctrStart = r.collected('container_start_time_seconds', 'Start time of the container since unix epoch in seconds', 'gauge');
  const scrapeError = r.collected('resource_scrape_error', '1 if there was an error while getting container metrics, 0 otherwise', 'gauge').with();
  const vecs = [nodeCpu, nodeMem, podCpu, podMem, ctrCpu, ctrMem, ctrStart];

  const cpuSeconds = (c: CPUStats | undefined) => (c?.usageCoreNanoSeconds === undefined ? undefined : { v: c.usageCoreNanoSeconds / 1e9, at: Date.parse(c.time) });
  const workingSet = (m: MemoryStats | undefined) => (m?.workingSetBytes === undefined ? undefined : { v: m.workingSetBytes, at: Date.parse(m.time) });

  r.onCollect(() => {
    for (const v of vecs) {
      v.reset();
      // reset() brings a label-less series back at 0; a node reading that is missing must not show as 0.
      v.delete();
    }
    let s: ResourceSummary;
    try {
      s = summary();
    } catch {
      scrapeError.set(1);
      return;
    }
    scrapeError.set(0);
    const put = (vec: (typeof vecs)[number], labels: string[], x: { v: number; at: number } | undefined) => {
      if (x) vec.with(...labels).set(x.v, x.at);
    };
    put(nodeCpu, [], cpuSeconds(s.node.cpu));
    put(nodeMem, [], workingSet(s.node.memory));
    for (const p of s.pods) {
      const { name: pod, namespace } = p.podRef;
      put(podCpu, [pod, namespace], cpuSeconds(p.cpu));
      put(podMem, [pod, namespace], workingSet(p.memory));
      for (const c of p.containers) {
        put(ctrCpu, [c.name, pod, namespace], cpuSeconds(c.cpu));
        put(ctrMem, [c.name, pod, namespace], workingSet(c.memory));
        const started = c.startTime === undefined ? NaN : Date.parse(c.startTime);
        if (started > 0) put(ctrStart, [c.name, pod, namespace], { v: started / 1000, at: started });
      }
    }
  });
  return r;
}
