/**
 * The storage backend's metrics (upstream `pkg/storage/etcd3/metrics`). SQLite stands where etcd stands upstream, so
 * the catalogue's `kvstore_*` family (upstream `etcd_*`) times and counts the calls a resource's cacher makes to the
 * SQLite backend, with upstream's `operation` values, and `apiserver_storage_size_bytes` reports the database file.
 *
 * Labels are the group/resource of the resource that owns the watch cache and the storage prefix (events.cluster.io
 * events); the core/v1 view shares that cache and storage, so it adds no series of its own here.
 *
 * Series are resolved once per resource (and per operation on its first use): recording is a field update.
 */
import type { CounterSeries, GaugeSeries, HistogramSeries, MetricVec } from '../metrics/metric.ts';
import type { Registry } from '../metrics/registry.ts';

/** kvstore_request_duration_seconds buckets (reference §8.3: the request-duration buckets). */
const REQUEST_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** Upstream's `operation` values that have a SQLite call behind them (etcd3 store.go). */
export type StorageOperation = 'get' | 'create' | 'update' | 'delete' | 'list' | 'listWithCount' | 'getCurrentResourceVersion';
const OPERATIONS: readonly StorageOperation[] = ['get', 'create', 'update', 'delete', 'list', 'listWithCount', 'getCurrentResourceVersion'];

/** The series of one operation of one resource. */
export class OperationSeries {
  #errors: CounterSeries | undefined;

  constructor(
    readonly duration: HistogramSeries,
    readonly total: CounterSeries,
    readonly errorsVec: () => CounterSeries,
  ) {}

  /** One backend call that began at `startMs` (performance.now()); `failed`: the backend could not answer. */
  record(startMs: number, failed: boolean): void {
    this.duration.observe((performance.now() - startMs) / 1000);
    this.total.value++;
    // Created on the first failure, as upstream's WithLabelValues does: no zero error series for every operation.
    if (failed) (this.#errors ??= this.errorsVec()).value++;
  }
}

/** One resource's storage series. */
export class ResourceStorageMetrics {
  readonly #ops: (OperationSeries | undefined)[] = new Array(OPERATIONS.length);

  constructor(
    readonly group: string,
    readonly resource: string,
    readonly m: StorageMetrics,
    /** apiserver_storage_events_received_total: changes the backend's watches delivered. */
    readonly eventsReceived: CounterSeries,
    /** kvstore_bookmark_counts: progress notifications (upstream counts etcd's progress-notify responses). */
    readonly bookmarks: GaugeSeries,
    readonly listTotal: CounterSeries,
    readonly listFetched: CounterSeries,
    readonly listEvaluated: CounterSeries,
    readonly listReturned: CounterSeries,
  ) {}

  op(op: StorageOperation): OperationSeries {
    const i = OPERATIONS.indexOf(op);
    return (this.#ops[i] ??= this.m.operation(op, this.group, this.resource));
  }

  /** A stored value that could not be read back (transformer refused it, or not an object's encoding). */
  decodeError(): void {
    this.m.decodeErrors.with(this.group, this.resource).value++;
  }

  /** A LIST the backend answered (not the watch cache): upstream's RecordStorageListMetrics. */
  recordList(fetched: number, evaluated: number, returned: number): void {
    this.listTotal.value++;
    this.listFetched.value += fetched;
    this.listEvaluated.value += evaluated;
    this.listReturned.value += returned;
  }
}

export class StorageMetrics {
  readonly #duration: MetricVec<HistogramSeries>;
  readonly #requests: MetricVec<CounterSeries>;
  readonly #errors: MetricVec<CounterSeries>;
  readonly #eventsReceived: MetricVec<CounterSeries>;
  readonly #bookmarks: MetricVec<GaugeSeries>;
  readonly #listTotal: MetricVec<CounterSeries>;
  readonly #listFetched: MetricVec<CounterSeries>;
  readonly #listEvaluated: MetricVec<CounterSeries>;
  readonly #listReturned: MetricVec<CounterSeries>;
  readonly decodeErrors: MetricVec<CounterSeries>;

  constructor(registry: Registry) {
    this.#duration = registry.histogram('kvstore_request_duration_seconds', 'Etcd request latency in seconds for each operation and object type.', REQUEST_BUCKETS);
    this.#requests = registry.counter('kvstore_requests_total', 'Etcd request counts for each operation and object type.');
    this.#errors = registry.counter('kvstore_request_errors_total', 'Etcd failed request counts for each operation and object type.');
    this.#eventsReceived = registry.counter('apiserver_storage_events_received_total', 'Number of etcd events received split by kind.');
    this.#bookmarks = registry.gauge('kvstore_bookmark_counts', 'Number of etcd bookmarks (progress notify events) split by kind.');
    this.#listTotal = registry.counter('apiserver_storage_list_total', 'Number of LIST requests served from storage');
    this.#listFetched = registry.counter('apiserver_storage_list_fetched_objects_total', 'Number of objects read from storage in the course of serving a LIST request');
    this.#listEvaluated = registry.counter('apiserver_storage_list_evaluated_objects_total', 'Number of objects tested in the course of serving a LIST request from storage');
    this.#listReturned = registry.counter('apiserver_storage_list_returned_objects_total', 'Number of objects returned for a LIST request from storage');
    this.decodeErrors = registry.counter('apiserver_storage_decode_errors_total', 'Number of stored object decode errors split by object type');
  }

  forResource(group: string, resource: string): ResourceStorageMetrics {
    return new ResourceStorageMetrics(
      group,
      resource,
      this,
      this.#eventsReceived.with(group, resource),
      this.#bookmarks.with(group, resource),
      this.#listTotal.with(group, resource),
      this.#listFetched.with(group, resource),
      this.#listEvaluated.with(group, resource),
      this.#listReturned.with(group, resource),
    );
  }

  /** Catalogue label order: group, operation, resource. */
  operation(op: StorageOperation, group: string, resource: string): OperationSeries {
    return new OperationSeries(this.#duration.with(group, op, resource), this.#requests.with(group, op, resource), () => this.#errors.with(group, op, resource));
  }
}

/**
 * `kvstore_lease_object_counts` (upstream `etcd_lease_object_counts`, its buckets): the objects attached to each
 * etcd lease, observed when the lease manager moves on to a new lease. Returns the observer.
 */
export function registerLeaseObjectCounts(registry: Registry): (objects: number) => void {
  const series = registry.histogram('kvstore_lease_object_counts', 'Number of objects attached to a single etcd lease.', [10, 50, 100, 500, 1000, 2500, 5000]).with();
  return (objects) => series.observe(objects);
}

/** What the size metrics read from a backend. */
export interface SizedStorage {
  readonly name: string;
  /** Bytes of the database file as allocated: page_count × page_size for SQLite (etcd's dbSize). */
  sizeBytes(): number;
}

/**
 * `apiserver_storage_size_bytes{storage_cluster_id}` and the deprecated (hidden) `apiserver_storage_db_total_size_in_bytes
 * {endpoint}`, read at scrape time. Upstream names each configured etcd cluster `etcd-<index>` (the main one first, then
 * the overrides); here each SQLite database is `<backend>-<index>` (`sqlite-0` the events database, then one per other
 * API group), stable across restarts and data directories, as upstream's id is. The endpoint of the deprecated metric
 * is where the database lives: its file path (upstream: the etcd endpoint URL). A size that cannot be read leaves the
 * series out, as upstream skips a monitor that fails.
 */
export function registerStorageSize(registry: Registry, storage: SizedStorage, endpoint: string, ...more: { storage: SizedStorage; endpoint: string }[]): void {
  const size = registry.gauge('apiserver_storage_size_bytes', 'Size of the storage database file physically allocated in bytes.');
  const legacy = registry.gauge('apiserver_storage_db_total_size_in_bytes', 'Total size of the storage database file physically allocated in bytes.');
  [{ storage, endpoint }, ...more].forEach((db, i) => {
    const id = `${db.storage.name}-${i}`;
    let series: { size: GaugeSeries; legacy: GaugeSeries } | undefined;
    registry.onCollect(() => {
      let bytes: number;
      try {
        bytes = db.storage.sizeBytes();
      } catch {
        return;
      }
      series ??= { size: size.with(id), legacy: legacy.with(db.endpoint) };
      series.size.set(bytes);
      series.legacy.set(bytes);
    });
  });
}
