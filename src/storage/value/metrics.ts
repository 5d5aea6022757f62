/**
 * The value transformers' metrics (upstream `pkg/storage/value/metrics.go`):
 * `apiserver_storage_transformation_duration_seconds{transformation_type,transformer_prefix}` (successes only) and
 * `apiserver_storage_transformation_operations_total{resource,status,transformation_type,transformer_prefix}`.
 * `transformer_prefix` is the provider's prefix (`cluster:enc:aesgcm:v1:`, `cluster:enc:kms:v2:<name>:`),
 * `identity`, or `unknown` when no provider's prefix matched; `status` is `OK`, the gRPC code name of a KMS
 * failure, or `unknown-non-grpc`.
 */
import type { CounterSeries, HistogramSeries, MetricVec } from '../../metrics/metric.ts';
import type { Registry } from '../../metrics/registry.ts';
import type { TransformationRecorder } from './prefix.ts';

/** 5 µs × 2^k, 25 buckets (upstream's ExponentialBuckets(5e-6, 2, 25)). */
const BUCKETS = Array.from({ length: 25 }, (_, k) => 5e-6 * 2 ** k);

/** gRPC status code names by number (grpc-go's codes.Code.String()). */
const GRPC_CODES = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'];

/** The status label of an outcome: a gRPC error (one with a numeric `code`, as @grpc/grpc-js gives) names its code. */
export function statusLabel(err: unknown): string {
  if (err === undefined) return 'OK';
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && GRPC_CODES[code]) return GRPC_CODES[code]!;
  return 'unknown-non-grpc';
}

export class TransformationMetrics {
  readonly #duration: MetricVec<HistogramSeries>;
  readonly #total: MetricVec<CounterSeries>;

  constructor(registry: Registry) {
    this.#duration = registry.histogram('apiserver_storage_transformation_duration_seconds', 'Latencies in seconds of value transformation operations.', BUCKETS);
    this.#total = registry.counter(
      'apiserver_storage_transformation_operations_total',
      'Total number of transformations. Successful transformation will have a status \'OK\' and a varied status string when the transformation fails. The status, resource, and transformation_type fields can be used for alerting purposes. The transformer_prefix field is useful for debugging purposes to identify which transformer caused the failure.',
    );
  }

  /** The recorder of one resource (`res.group`, or `res` for the core group). */
  forResource(resource: string): TransformationRecorder {
    // Series resolved on first use and kept. Successes, nearly every call, find theirs by the prefix alone:
    // no status to work out and no key string to build per value.
    const ok = { from_storage: new Map<string, { d: HistogramSeries; t: CounterSeries }>(), to_storage: new Map<string, { d: HistogramSeries; t: CounterSeries }>() };
    const failed = new Map<string, CounterSeries>();
    return {
      record: (type, prefix, seconds, err) => {
        if (err === undefined) {
          let s = ok[type].get(prefix);
          if (!s) ok[type].set(prefix, (s = { d: this.#duration.with(type, prefix), t: this.#total.with(resource, 'OK', type, prefix) }));
          s.t.value++;
          s.d.observe(seconds);
          return;
        }
        const status = statusLabel(err);
        const k = `${type}\0${prefix}\0${status}`;
        let t = failed.get(k);
        if (!t) failed.set(k, (t = this.#total.with(resource, status, type, prefix)));
        t.value++;
      },
    };
  }
}
