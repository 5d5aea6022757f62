/**
 * KMS v2's metrics (upstream `envelope/metrics` and `value/metrics.go`). Key IDs never appear as they are, only as
 * `sha256:<hex>` of their bytes, as upstream labels them: a key ID may name a customer's key.
 */
import { createHash } from 'node:crypto';
import type { CounterSeries, GaugeSeries, HistogramSeries, MetricVec } from '../../../metrics/metric.ts';
import type { Registry } from '../../../metrics/registry.ts';

export const keyIDHash = (keyID: string) => (keyID === '' ? '' : `sha256:${createHash('sha256').update(keyID).digest('hex')}`);

export class KMSMetrics {
  readonly latency: MetricVec<HistogramSeries>;
  readonly #keyIDTotal: MetricVec<CounterSeries>;
  readonly #keyIDLast: MetricVec<GaugeSeries>;
  readonly #statusLast: MetricVec<GaugeSeries>;
  readonly #invalidKeyID: MetricVec<CounterSeries>;
  readonly #sourceCacheSize: MetricVec<GaugeSeries>;
  readonly #cacheMisses: MetricVec<CounterSeries>;
  readonly #keyGen: MetricVec<HistogramSeries>;
  readonly #keyGenFailures: MetricVec<CounterSeries>;
  readonly #id: string;

  constructor(registry: Registry, apiserverID: string) {
    this.#id = keyIDHash(apiserverID);
    this.latency = registry.histogram('apiserver_envelope_encryption_kms_operations_latency_seconds', 'KMS operation duration with gRPC error code status total.', Array.from({ length: 20 }, (_, k) => 0.0001 * 2 ** k));
    this.#keyIDTotal = registry.counter('apiserver_envelope_encryption_key_id_hash_total', 'Number of times a keyID is used split by transformation type, provider, and apiserver identity.');
    this.#keyIDLast = registry.gauge('apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds', 'The last time in seconds when a keyID was used.');
    this.#statusLast = registry.gauge('apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds', 'The last time in seconds when a keyID was returned by the Status RPC call.');
    this.#invalidKeyID = registry.counter('apiserver_envelope_encryption_invalid_key_id_from_status_total', 'Number of times an invalid keyID is returned by the Status RPC call split by error.');
    this.#sourceCacheSize = registry.gauge('apiserver_envelope_encryption_dek_source_cache_size', 'Number of records in data encryption key (DEK) source cache. On a restart, this value is an approximation of the number of decrypt RPC calls the server will make to the KMS plugin.');
    this.#cacheMisses = registry.counter('apiserver_storage_envelope_transformation_cache_misses_total', 'Total number of cache misses while accessing key decryption key(KEK).');
    this.#keyGen = registry.histogram('apiserver_storage_data_key_generation_duration_seconds', 'Latencies in seconds of data encryption key(DEK) generation operations.', Array.from({ length: 14 }, (_, k) => 5e-6 * 2 ** k));
    this.#keyGenFailures = registry.counter('apiserver_storage_data_key_generation_failures_total', 'Total number of failed data encryption key(DEK) generation operations.');
  }

  /** A key ID used for a read (`from_storage`) or write (`to_storage`). */
  keyIDUsed(provider: string, type: 'from_storage' | 'to_storage', keyID: string): void {
    const h = keyIDHash(keyID);
    this.#keyIDTotal.with(this.#id, h, provider, type).inc();
    this.#keyIDLast.with(this.#id, h, provider, type).set(Date.now() / 1000);
  }

  keyIDFromStatus(provider: string, keyID: string): void {
    this.#statusLast.with(this.#id, keyIDHash(keyID), provider).set(Date.now() / 1000);
  }

  invalidKeyID(provider: string, error: 'empty' | 'too_long'): void {
    this.#invalidKeyID.with(error, provider).inc();
  }

  sourceCacheSize(provider: string, n: number): void {
    this.#sourceCacheSize.with(provider).set(n);
  }

  cacheMiss(): void {
    this.#cacheMisses.with().inc();
  }

  keyGeneration(seconds: number, failed: boolean): void {
    if (failed) this.#keyGenFailures.with().inc();
    else this.#keyGen.with().observe(seconds);
  }
}
