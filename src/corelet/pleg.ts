/**
 * kubelet's generic PLEG (pod lifecycle event generator): every relist period (1 s) it lists every container the
 * corelet runs with its state as the kernel has it (a container whose cgroup holds no process has exited, whatever the
 * runner last heard), compares the list with the previous one, and turns each difference into a lifecycle event
 * (ContainerStarted, ContainerDied, ContainerRemoved). The last list is the pod cache that `corelet_running_containers`
 * is read from, and a relist that has not run for 3 minutes makes the node NotReady ("PLEG is not healthy"), as
 * kubelet's runtime state check does. The relists are timed in upstream's `pleg_relist_*` metrics.
 */
import type { Registry } from '../metrics/registry.ts';
import type { GaugeSeries, HistogramSeries } from '../metrics/metric.ts';
// kubelet's PLEG relist histograms use Prometheus' default buckets.
import { DEF_BUCKETS } from './routes.ts';

export type ContainerState = 'running' | 'exited' | 'unknown';

export interface RelistContainer {
  id: string;
  name: string;
  state: ContainerState;
}
export interface RelistPod {
  uid: string;
  namespace: string;
  name: string;
  containers: RelistContainer[];
}

export type LifecycleEventType = 'ContainerStarted' | 'ContainerDied' | 'ContainerRemoved' | 'ContainerChanged';
export interface LifecycleEvent {
  podUid: string;
  type: LifecycleEventType;
  /** The container's id. */
  data: string;
}

/** kubelet's relistPeriod and relistThreshold. */
export const RELIST_PERIOD_MS = 1000;
export const RELIST_THRESHOLD_MS = 3 * 60_000;
/** kubelet's plegChannelCapacity: events past it are discarded (and counted). */
export const EVENT_CAPACITY = 1000;


/** The events one container's move from `before` to `after` makes (kubelet's generateEvents). */
export function lifecycleEvents(podUid: string, id: string, before: ContainerState | undefined, after: ContainerState | undefined): LifecycleEvent[] {
  if (before === after) return [];
  const ev = (type: LifecycleEventType): LifecycleEvent => ({ podUid, type, data: id });
  switch (after) {
    case 'running':
      return [ev('ContainerStarted')];
    case 'exited':
      return [ev('ContainerDied')];
    case 'unknown':
      return [ev('ContainerChanged')];
    default:
      // Gone from the list: a running one died first.
      return before === 'running' ? [ev('ContainerDied'), ev('ContainerRemoved')] : [ev('ContainerRemoved')];
  }
}

export interface PlegMetrics {
  duration: HistogramSeries;
  interval: HistogramSeries;
  lastSeen: GaugeSeries;
  discarded: { inc(): void };
}

export function registerPlegMetrics(r: Registry): PlegMetrics {
  return {
    duration: r.histogram('corelet_pleg_relist_duration_seconds', 'Duration in seconds for relisting pods in PLEG.', DEF_BUCKETS).with(),
    interval: r.histogram('corelet_pleg_relist_interval_seconds', 'Interval in seconds between relisting in PLEG.', DEF_BUCKETS).with(),
    lastSeen: r.gauge('corelet_pleg_last_seen_seconds', 'Timestamp in seconds when PLEG was last seen active.').with(),
    discarded: r.counter('corelet_pleg_discard_events', 'The number of discard events in PLEG.').with(),
  };
}

/** Go's time.Duration String, to the millisecond, for the health message ("3m0.5s"). */
function goDuration(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${+s.toFixed(3)}s`;
  const m = Math.floor(s / 60);
  return `${m}m${+(s - m * 60).toFixed(3)}s`;
}

export class GenericPLEG {
  /** The last relist's pods by UID (the pod cache). */
  #cache = new Map<string, RelistPod>();
  #lastRelist: number;
  #lastStart: number | undefined;
  #timer?: NodeJS.Timeout;
  #queue: LifecycleEvent[] = [];
  #draining = false;

  constructor(
    private readonly o: {
      list: () => RelistPod[];
      onEvent: (e: LifecycleEvent) => void;
      metrics?: PlegMetrics;
      periodMs?: number;
      thresholdMs?: number;
      now?: () => number;
    },
  ) {
    this.#lastRelist = this.#now();
  }

  #now(): number {
    return (this.o.now ?? Date.now)();
  }

  start(): void {
    this.relist();
    this.#timer = setInterval(() => this.relist(), this.o.periodMs ?? RELIST_PERIOD_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The pods of the last relist. */
  pods(): Iterable<RelistPod> {
    return this.#cache.values();
  }

  /** kubelet's Healthy(): an error message once no relist has finished within the threshold. */
  unhealthy(): string | undefined {
    const since = this.#now() - this.#lastRelist;
    const threshold = this.o.thresholdMs ?? RELIST_THRESHOLD_MS;
    return since > threshold ? `pleg was last seen active ${goDuration(since)} ago; threshold is ${goDuration(threshold)}` : undefined;
  }

  relist(): void {
    const start = this.#now();
    const m = this.o.metrics;
    if (this.#lastStart !== undefined) m?.interval.observe((start - this.#lastStart) / 1000);
    this.#lastStart = start;
    const next = new Map<string, RelistPod>();
    for (const p of this.o.list()) next.set(p.uid, p);
    for (const uid of new Set([...this.#cache.keys(), ...next.keys()])) {
      const before = new Map((this.#cache.get(uid)?.containers ?? []).map((c) => [c.id, c.state]));
      const after = new Map((next.get(uid)?.containers ?? []).map((c) => [c.id, c.state]));
      for (const id of new Set([...before.keys(), ...after.keys()])) {
        for (const e of lifecycleEvents(uid, id, before.get(id), after.get(id))) this.#push(e);
      }
    }
    this.#cache = next;
    this.#lastRelist = this.#now();
    m?.lastSeen.set(this.#lastRelist / 1000);
    m?.duration.observe((this.#lastRelist - start) / 1000);
  }

  /** A bounded channel as kubelet's: a full one discards the event (counted), the relist never waits. */
  #push(e: LifecycleEvent): void {
    if (this.#queue.length >= EVENT_CAPACITY) {
      this.o.metrics?.discarded.inc();
      return;
    }
    this.#queue.push(e);
    if (this.#draining) return;
    this.#draining = true;
    setImmediate(() => {
      this.#draining = false;
      const q = this.#queue;
      this.#queue = [];
      for (const ev of q) this.o.onEvent(ev);
    });
  }
}
