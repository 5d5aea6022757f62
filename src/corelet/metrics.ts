/**
 * The corelet's `/metrics`: the node-agent metrics of the catalogue it has a real source for, and the meta metrics
 * every component registers (build and version info, feature gates, the registry's own counters, process metrics).
 * Pod and container counts are read from the running pods at scrape time; starts, start errors, pod start latency
 * and cgroup operations are recorded as they happen by the pod runners (RuntimeObserver).
 */
import { existsSync } from 'node:fs';
import { featureGates } from '../features.ts';
import { registerBuildInfo, registerVersionInfo } from '../metrics/build-info.ts';
import { registerFeatureEnabled } from '../metrics/feature-enabled.ts';
import type { HistogramSeries, MetricVec } from '../metrics/metric.ts';
import { registerProcessMetrics } from '../metrics/process.ts';
import { Registry } from '../metrics/registry.ts';
import { EMULATION_VERSION, MIN_COMPATIBILITY_VERSION, binaryVersion, majorMinor, versionInfo } from '../version.ts';
import type { CgroupEnv } from './cgroups.ts';
import { DEF_BUCKETS, HttpMetrics } from './routes.ts';
import type { RelistPod } from './pleg.ts';
import type { PodRunner, RuntimeObserver } from './runtime.ts';

/** kubelet's pod start duration buckets (`metrics.PodStartDuration`). */
const POD_START_BUCKETS = [0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600];

export interface CoreletMetricsOptions {
  nodeName: string;
  cgroups: CgroupEnv;
  /** The pods the agent runs now. */
  pods: () => Iterable<PodRunner>;
  /** The pod cache: the containers of the PLEG's last relist (what corelet_running_containers counts, as kubelet's). */
  relisted: () => Iterable<RelistPod>;
}

export class CoreletMetrics {
  readonly registry: Registry;
  readonly http: HttpMetrics;
  readonly runtime: RuntimeObserver;
  readonly #stopProcess: () => void;
  readonly #perPod: MetricVec<HistogramSeries>;

  constructor(o: CoreletMetricsOptions) {
    const r = (this.registry = new Registry({ version: versionInfo.gitVersion, nativeHistograms: featureGates.enabled('NativeHistograms') }));
    registerVersionInfo(r, binaryVersion(), majorMinor(EMULATION_VERSION), majorMinor(MIN_COMPATIBILITY_VERSION));
    registerBuildInfo(r, versionInfo);
    registerFeatureEnabled(r, featureGates.list());
    this.#stopProcess = registerProcessMetrics(r);
    this.http = new HttpMetrics(r);

    r.gauge('corelet_node_name', "The node's name. The count is always 1.").with(o.nodeName).set(1);
    // Where the machine has no cgroup v2, pods run in the v1 hierarchies the agent found (and in none without those).
    const version = o.cgroups.v2 ? 2 : Object.keys(o.cgroups.v1).length ? 1 : undefined;
    if (version !== undefined) r.gauge('corelet_cgroup_version', 'cgroup version on the hosts.').with().set(version);

    const active = r.gauge('corelet_active_pods', 'The number of pods the corelet considers active and which are being considered when admitting new pods. static is true if the pod is not from the apiserver.');
    const desired = r.gauge('corelet_desired_pods', 'The number of pods the corelet is being instructed to run. static is true if the pod is not from the apiserver.');
    const runningPods = r.gauge('corelet_running_pods', 'Number of pods that have a running pod sandbox');
    const runningContainers = r.gauge('corelet_running_containers', 'Number of containers currently running');
    r.onCollect(() => {
      const pods = [...o.pods()];
      // Every pod the corelet runs comes from its manifest folder: all are static.
      desired.with('true').set(pods.length);
      active.with('true').set(pods.filter((p) => !p.terminal).length);
      // A pod's sandbox here is its cgroup: it exists from the pod's start to its stop.
      runningPods.with().set(pods.filter((p) => p.cgroup.dirs().some((d) => existsSync(d))).length);
      let running = 0;
      let exited = 0;
      for (const p of o.relisted()) {
        for (const c of p.containers) {
          if (c.state === 'running') running++;
          else if (c.state === 'exited') exited++;
        }
      }
      runningContainers.with('running').set(running);
      runningContainers.with('exited').set(exited);
    });

    const podStart = r.histogram('corelet_pod_start_duration_seconds', 'Duration in seconds from corelet seeing a pod for the first time to the pod starting to run', POD_START_BUCKETS);
    const podsStarted = r.counter('corelet_started_pods_total', 'Cumulative number of pods started');
    const podStartErrors = r.counter('corelet_started_pods_errors_total', 'Cumulative number of errors when starting pods');
    this.#perPod = r.histogram('corelet_containers_per_pod_count', 'The number of containers per pod.', [1, 2, 4, 8, 16]);
    const started = r.counter('corelet_started_containers_total', 'Cumulative number of containers started');
    const startErrors = r.counter('corelet_started_containers_errors_total', 'Cumulative number of errors when starting containers');
    const cgroupOps = r.histogram('corelet_cgroup_manager_duration_seconds', 'Duration in seconds for cgroup manager operations. Broken down by method.', DEF_BUCKETS);
    this.runtime = {
      podStarted: (seconds) => podStart.with().observe(seconds),
      // Every attempt counts as started (kubelet counts before RunPodSandbox); a failed one counts as an error too.
      podSandbox: (failed) => {
        podsStarted.with().inc();
        if (failed) podStartErrors.with().inc();
      },
      containerStarted: (containerType) => started.with(containerType).inc(),
      // A runtime error without a gRPC status is reported as codes.Unknown upstream: ours carry none.
      containerStartFailed: (containerType) => startErrors.with('Unknown', containerType).inc(),
      cgroupOperation: (operation, seconds) => cgroupOps.with(operation).observe(seconds),
    };
  }

  /** A pod was admitted (kubelet's HandlePodAdditions). */
  podAdmitted(containers: number): void {
    this.#perPod.with().observe(containers);
  }

  stop(): void {
    this.#stopProcess();
  }
}
