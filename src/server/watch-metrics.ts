/**
 * What the watch server records (upstream `endpoints/metrics` via `handlers/watch.go`): `apiserver_watch_events_total`
 * and `apiserver_watch_events_sizes` for every frame written to a watch client (bookmarks and errors included, as
 * upstream's recorder counts every encoded event), labelled with the requested group, version and resource; and
 * `apiserver_watch_list_duration_seconds` when a WATCHLIST (sendInitialEvents) stream has sent its initial state, from
 * the request's arrival to the initial-events-end bookmark.
 *
 * The series of a resource are resolved once per watch (one WeakMap lookup when it starts); a frame written costs a
 * field increment and a histogram observation.
 */
import type { CounterSeries, HistogramSeries, MetricVec } from '../metrics/metric.ts';
import type { Registry } from '../metrics/registry.ts';

/** apiserver_watch_events_sizes buckets (reference §8.3). */
const SIZE_BUCKETS = [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];
/** apiserver_watch_list_duration_seconds buckets: the SLI buckets and 90 120 180 300 (reference §8.3). */
const WATCH_LIST_BUCKETS = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300];

export interface WatchedResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** The frames written to watch clients of one group/version/resource. */
export interface WatchEventSeries {
  readonly count: CounterSeries;
  readonly sizes: HistogramSeries;
}

export class ResourceWatchMetrics implements WatchEventSeries {
  readonly #listDuration = new Map<string, HistogramSeries>();

  constructor(
    readonly r: WatchedResource,
    readonly count: CounterSeries,
    readonly sizes: HistogramSeries,
    readonly vec: MetricVec<HistogramSeries>,
  ) {}

  /** A WATCHLIST stream sent its initial state; `scope` is the request's (resource, namespace or cluster). */
  watchListDone(scope: string, seconds: number): void {
    let s = this.#listDuration.get(scope);
    if (!s) this.#listDuration.set(scope, (s = this.vec.with(this.r.group, this.r.resource, scope, this.r.version)));
    s.observe(seconds);
  }
}

export class WatchMetrics {
  readonly #events: MetricVec<CounterSeries>;
  readonly #sizes: MetricVec<HistogramSeries>;
  readonly #listDuration: MetricVec<HistogramSeries>;
  readonly #byResource = new WeakMap<WatchedResource, ResourceWatchMetrics>();

  constructor(registry: Registry) {
    this.#events = registry.counter('apiserver_watch_events_total', 'Number of events sent in watch clients');
    this.#sizes = registry.histogram('apiserver_watch_events_sizes', 'Watch event size distribution in bytes', SIZE_BUCKETS);
    this.#listDuration = registry.histogram('apiserver_watch_list_duration_seconds', 'Response latency distribution in seconds for watch list requests broken by group, version, resource and scope.', WATCH_LIST_BUCKETS);
  }

  /** The series of a served resource (its scope object), resolved on its first watch. */
  of(r: WatchedResource): ResourceWatchMetrics {
    let m = this.#byResource.get(r);
    if (!m) {
      m = new ResourceWatchMetrics(r, this.#events.with(r.group, r.resource, r.version), this.#sizes.with(r.group, r.resource, r.version), this.#listDuration);
      this.#byResource.set(r, m);
    }
    return m;
  }
}
