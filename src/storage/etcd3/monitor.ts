/**
 * What the server asks of an etcd cluster besides storage calls: the health probes behind /livez/etcd and
 * /readyz/etcd-readiness (upstream's etcd3ProberMonitor.Probe, a read of `<prefix>/health`), and the database size
 * for apiserver_storage_size_bytes (its Monitor: a Status call, polled every --etcd-db-metric-poll-interval).
 */
import type { EtcdClient } from './client.ts';
import { num } from './proto.ts';

/**
 * A probe of one cluster with upstream's manners: at most one request per half timeout (a probe in between gets the
 * last request's result), each bounded by `timeoutMs`; the error reads "error getting data from etcd: …".
 */
export function etcdProbe(client: EtcdClient, prefix: string, timeoutMs: number): () => Promise<void> {
  const key = Buffer.from(`${prefix.replace(/\/+$/, '')}/health`);
  let lastAt = -Infinity;
  let last: Promise<void> | undefined;
  return () => {
    const now = Date.now();
    if (last && now - lastAt < timeoutMs / 2) return last;
    lastAt = now;
    last = client.call('range', { key }, timeoutMs).then(
      () => undefined,
      (err: unknown) => {
        throw new Error(`error getting data from etcd: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
    // A rejected result is handed to later callers too; this keeps it from counting as unhandled meanwhile.
    last.catch(() => {});
    return last;
  };
}

/** The last database size an etcd cluster reported, refreshed every `intervalMs`. */
export class DbSizeMonitor {
  readonly name = 'etcd';
  #bytes: number | undefined;
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: EtcdClient,
    intervalMs: number,
  ) {
    if (intervalMs > 0) {
      this.#timer = setInterval(() => void this.poll(), intervalMs);
      this.#timer.unref();
    }
    void this.poll();
  }

  /** Asks the current endpoint now. */
  async poll(): Promise<void> {
    try {
      const st = await this.client.call('status', {}, 2000);
      this.#bytes = num(st.dbSize);
    } catch {
      // Left as it was: the metric keeps its last value, as upstream keeps a monitor's last figure.
    }
  }

  /** For registerStorageSize: throws until a first answer came, so the series is left out until then. */
  sizeBytes(): number {
    if (this.#bytes === undefined) throw new Error('etcd database size not known yet');
    return this.#bytes;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }
}
