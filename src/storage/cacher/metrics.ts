/**
 * The watch cache's metrics (upstream `pkg/storage/cacher/metrics`), per resource with the group/resource of the
 * resource that owns the cache (a view sharing it, core/v1 Events, adds no series). Each resource's series are
 * resolved once, when its cacher is built, and hot paths (a change received and dispatched, an initial event sent)
 * add to a plain field. Values read at scrape time (resourceVersion, size estimate) are read from the cache then.
 */
import { CounterSeries, GaugeSeries, HistogramSeries, type MetricVec } from '../../metrics/metric.ts';
import type { Registry } from '../../metrics/registry.ts';

/** apiserver_watch_cache_read_wait_seconds buckets (upstream cacher/metrics). */
const READ_WAIT_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3];

/** What the scrape-time gauges read from a cache. */
export interface CacheState {
  readonly resourceVersion: number;
  /** Bytes of the serialized objects the cache holds (the size estimate's "last observed sizes"). */
  readonly objectBytes: number;
  /** Changes the history ring holds at most. */
  readonly historyCapacity: number;
}

export class ResourceCacheMetrics {
  readonly #listTotal = new Map<string, { total: CounterSeries; fetched: CounterSeries }>();
  readonly #consistent = new Map<string, CounterSeries>();

  constructor(
    readonly group: string,
    readonly resource: string,
    readonly vecs: CacherMetrics | undefined,
    /** apiserver_watch_cache_events_received_total: changes the cache took from its storage watch. */
    readonly eventsReceived: CounterSeries,
    /** apiserver_watch_cache_events_dispatched_total: changes passed on to the cache's watchers (once per change). */
    readonly eventsDispatched: CounterSeries,
    /** apiserver_watch_cache_initializations_total: full loads of the cache (start and every relist). */
    readonly initializations: CounterSeries,
    readonly readWait: HistogramSeries,
    /** apiserver_init_events_total: initial state and replayed history sent to new watchers. */
    readonly initEvents: CounterSeries,
    /** apiserver_terminated_watchers_total: watchers ended because they did not keep up. */
    readonly terminatedWatchers: CounterSeries,
    readonly cacheListReturned: CounterSeries,
  ) {}

  /** Series nobody collects: a cache without a registry records into these, so its hot paths need no check. */
  static detached(): ResourceCacheMetrics {
    const c = () => new CounterSeries();
    return new ResourceCacheMetrics('', '', undefined, c(), c(), c(), new HistogramSeries(READ_WAIT_BUCKETS), c(), c(), c());
  }

  /** A LIST served from the cache: upstream's RecordListCacheMetrics (index: `f:<field>` or ''). */
  recordList(index: string, fetched: number, returned: number): void {
    let s = this.#listTotal.get(index);
    if (!s) {
      const v = this.vecs;
      s = v ? { total: v.listTotal.with(this.group, index, this.resource), fetched: v.listFetched.with(this.group, index, this.resource) } : { total: new CounterSeries(), fetched: new CounterSeries() };
      this.#listTotal.set(index, s);
    }
    s.total.value++;
    s.fetched.value += fetched;
    this.cacheListReturned.value += returned;
  }

  /** A consistent read served (or not) by the cache; this cache never falls back to storage. */
  recordConsistentRead(success: boolean, fallback: boolean): void {
    const key = `${success}/${fallback}`;
    let s = this.#consistent.get(key);
    if (!s) {
      s = this.vecs ? this.vecs.consistentRead.with(String(fallback), this.group, this.resource, String(success)) : new CounterSeries();
      this.#consistent.set(key, s);
    }
    s.value++;
  }
}

export class CacherMetrics {
  readonly #registry: Registry;
  readonly #eventsReceived: MetricVec<CounterSeries>;
  readonly #eventsDispatched: MetricVec<CounterSeries>;
  readonly #initializations: MetricVec<CounterSeries>;
  readonly #readWait: MetricVec<HistogramSeries>;
  readonly #resourceVersion: MetricVec<GaugeSeries>;
  readonly #capacity: MetricVec<GaugeSeries>;
  readonly #sizeEstimate: MetricVec<GaugeSeries>;
  readonly #initEvents: MetricVec<CounterSeries>;
  readonly #terminated: MetricVec<CounterSeries>;
  readonly listTotal: MetricVec<CounterSeries>;
  readonly listFetched: MetricVec<CounterSeries>;
  readonly #listReturned: MetricVec<CounterSeries>;
  readonly consistentRead: MetricVec<CounterSeries>;

  constructor(registry: Registry) {
    this.#registry = registry;
    this.#eventsReceived = registry.counter('apiserver_watch_cache_events_received_total', 'Counter of events received in watch cache broken by resource type.');
    this.#eventsDispatched = registry.counter('apiserver_watch_cache_events_dispatched_total', 'Counter of events dispatched in watch cache broken by resource type.');
    this.#initializations = registry.counter('apiserver_watch_cache_initializations_total', 'Counter of watch cache initializations broken by resource type.');
    this.#readWait = registry.histogram('apiserver_watch_cache_read_wait_seconds', 'Histogram of time spent waiting for a watch cache to become fresh.', READ_WAIT_BUCKETS);
    this.#resourceVersion = registry.gauge('apiserver_watch_cache_resource_version', 'Current resource version of watch cache broken by resource type.');
    this.#capacity = registry.gauge('watch_cache_capacity', 'Total capacity of watch cache broken by resource type.');
    this.#sizeEstimate = registry.gauge(
      'apiserver_resource_size_estimate_bytes',
      'Estimated size of stored objects in database. Estimate is based on sum of last observed sizes of serialized objects. In case of a fetching error, the value will be -1.',
    );
    this.#initEvents = registry.counter('apiserver_init_events_total', 'Counter of init events processed in watch cache broken by resource type.');
    this.#terminated = registry.counter('apiserver_terminated_watchers_total', 'Counter of watchers closed due to unresponsiveness broken by resource type.');
    this.listTotal = registry.counter('apiserver_cache_list_total', 'Number of LIST requests served from watch cache');
    this.listFetched = registry.counter('apiserver_cache_list_fetched_objects_total', 'Number of objects read from watch cache in the course of serving a LIST request');
    this.#listReturned = registry.counter('apiserver_cache_list_returned_objects_total', 'Number of objects returned for a LIST request from watch cache');
    this.consistentRead = registry.counter('apiserver_watch_cache_consistent_read_total', 'Counter for consistent reads from cache.');
  }

  /**
   * The series of one resource's cache; `state` is read at scrape time. The capacity is the history ring's size in
   * changes, fixed here: the ring is never resized, so the capacity increase/decrease counters have no source.
   */
  forResource(group: string, resource: string, state: () => CacheState | undefined): ResourceCacheMetrics {
    const capacity = this.#capacity.with(group, resource);
    const rv = this.#resourceVersion.with(group, resource);
    const size = this.#sizeEstimate.with(group, resource);
    this.#registry.onCollect(() => {
      const s = state();
      if (!s) return;
      capacity.set(s.historyCapacity);
      // Upstream keeps the 15 low digits: a float64 holds them exactly.
      rv.set(s.resourceVersion % 1e15);
      size.set(s.objectBytes);
    });
    return new ResourceCacheMetrics(
      group,
      resource,
      this,
      this.#eventsReceived.with(group, resource),
      this.#eventsDispatched.with(group, resource),
      this.#initializations.with(group, resource),
      this.#readWait.with(group, resource),
      this.#initEvents.with(group, resource),
      this.#terminated.with(group, resource),
      this.#listReturned.with(group, resource),
    );
  }
}
