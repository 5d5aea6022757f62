/**
 * `--storage-backend=etcd3`: the etcd clusters the server uses and what it runs against each. The main cluster is
 * --etcd-servers; --etcd-servers-overrides moves resources to other clusters (upstream's format,
 * `group/resource#url;url`; e.g. `events.cluster.io/events#http://10.0.0.5:2379` keeps the Events write rate off
 * the main etcd, as upstream's SLO environment asks). Per cluster: one client (so one gRPC connection and one watch
 * stream per storage on it), one compactor, the `etcd` / `etcd-readiness` checks (`etcd-override-<i>` /
 * `etcd-override-readiness-<i>` for the overrides, as upstream), and its database size (`etcd-<i>` in
 * apiserver_storage_size_bytes).
 *
 * Storages are per API group as with SQLite (the Events resources share one; RBAC's four share its group's), so an
 * override naming any resource of a group moves the whole group, and overrides that send one group's resources to
 * different clusters are refused at start.
 */
import type { Codec, Storage } from '../storage/interface.ts';
import { DbSizeMonitor, EtcdClient, EtcdStorage, etcdProbe, startEtcdCompactor } from '../storage/etcd3/index.ts';
import type { Transformer } from '../storage/value/transformer.ts';
import type { EtcdOptions } from './flags.ts';
import { log } from '../util/log.ts';

/** How long start-up waits for each etcd cluster to answer (etcd may be starting beside the server). */
const REACH_TIMEOUT_MS = 10_000;

/** The core/v1 view of Events shares the events.cluster.io storage: an override of `/events` names it too. */
const SAME_STORAGE: Record<string, string> = { '': 'events.cluster.io' };

interface Cluster {
  servers: string[];
  /** The flag that named it, for start-up errors. */
  flag: string;
  client: EtcdClient;
  storages: EtcdStorage[];
  size: DbSizeMonitor;
  /** Health check names: `etcd` for the main cluster, `etcd-override-<i>` for the others. */
  check: string;
  readyCheck: string;
  /** Every member answered with a version whose progress answers are ordered (checkReachable; unknown: false). */
  progressOrdered: boolean;
}

/** Versions with etcd#15220 or etcd#17507 (upstream's feature_support_checker: below 3.4.31, or 3.5.0–3.5.12). */
export function progressAnswersEarly(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return true; // unknown: assume the worst, as upstream does
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major < 3;
  if (minor < 4) return true;
  if (minor === 4) return patch < 31;
  if (minor === 5) return patch < 13;
  return false;
}

export class EtcdClusters {
  readonly #opts: EtcdOptions;
  readonly #clusters = new Map<string, Cluster>();
  readonly #compactors: { stop(): void }[] = [];
  readonly #timers: NodeJS.Timeout[] = [];
  /** kvstore_lease_object_counts' observer, once the metrics exist. */
  onLeaseRetired: ((objects: number) => void) | undefined;

  constructor(opts: EtcdOptions) {
    this.#opts = opts;
    // Main first (etcd-0), then the overrides in the order given, one per distinct set of servers (upstream).
    this.#cluster(opts.servers, '--etcd-servers', 'etcd', 'etcd-readiness');
    for (const o of opts.serversOverrides) {
      const i = this.#clusters.size - 1;
      this.#cluster(o.servers, '--etcd-servers-overrides', `etcd-override-${i}`, `etcd-override-readiness-${i}`);
    }
  }

  /**
   * Waits until every cluster answers a Status call (up to REACH_TIMEOUT_MS) and logs its members' versions; throws
   * naming the flag of a cluster that never answers. Serving without the storage would only fail every request.
   */
  async checkReachable(timeoutMs = REACH_TIMEOUT_MS): Promise<void> {
    await Promise.all(
      [...this.#clusters.values()].map(async (c) => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const answers = await c.client.statusAll(2000);
          const ok = answers.filter((a): a is Exclude<typeof a, Error> => !(a instanceof Error));
          if (ok.length > 0) {
            log.info('Connected to etcd', { servers: c.servers.join(','), versions: ok.map((a) => a.version).join(',') });
            const old = ok.map((a) => a.version).filter(progressAnswersEarly);
            // As upstream's feature support checker: one affected member (or one that did not answer) is enough.
            c.progressOrdered = old.length === 0 && ok.length === answers.length;
            if (old.length) {
              log.warning('etcd before 3.4.31 / 3.5.13 may answer watch progress requests ahead of pending events (etcd issues 15220, 17507); consistent reads (lists without resourceVersion) are served from etcd, not the watch cache, and watch-list requests (sendInitialEvents with bookmarks) are refused, as upstream does. Upgrade etcd to serve them from the cache.', { versions: old.join(',') });
            }
            return;
          }
          if (Date.now() >= deadline) {
            throw new Error(`${c.flag}: cannot reach etcd at ${c.servers.join(', ')}: ${(answers[0] as Error).message}`);
          }
          await new Promise((r) => setTimeout(r, 500));
        }
      }),
    );
  }

  /** The storage of an API group, on the cluster its overrides (or --etcd-servers) name. */
  open(group: string, codec: Codec, transformer?: Transformer): EtcdStorage {
    const cluster = this.#clusterFor(group);
    const storage = new EtcdStorage({
      endpoints: cluster.servers,
      client: cluster.client,
      codec,
      prefix: this.#opts.prefix,
      leaseReuseDurationSeconds: this.#opts.leaseReuseDurationSeconds,
      progressAnswersOrdered: cluster.progressOrdered,
      onLeaseRetired: (n) => this.onLeaseRetired?.(n),
      ...(transformer ? { transformer } : {}),
    });
    cluster.storages.push(storage);
    return storage;
  }

  /** Starts each cluster's compactor (none when --etcd-compaction-interval is 0). */
  startCompactors(): { stop(): void }[] {
    for (const c of this.#clusters.values()) {
      this.#compactors.push(startEtcdCompactor(c.client, this.#opts.compactionIntervalMs, (rev) => c.storages.forEach((s) => s.noteCompacted(rev))));
    }
    return this.#compactors;
  }

  /**
   * The object count of a resource, polled from etcd every --etcd-count-metric-poll-period (upstream's storage object
   * count tracker): the last answer, -1 after a failed poll, undefined before the first or when the period is 0.
   */
  countPoller(storage: Storage, prefix: string): () => number | undefined {
    const period = this.#opts.countMetricPollPeriodMs;
    if (period <= 0) return () => undefined;
    let value: number | undefined;
    const poll = () =>
      void storage.count(prefix).then(
        (n) => (value = n),
        () => (value = -1),
      );
    const t = setInterval(poll, period);
    t.unref();
    this.#timers.push(t);
    poll();
    return () => value;
  }

  /** The checks to register: name, probe and the endpoints it serves. */
  healthChecks(): { name: string; fn: () => Promise<void>; endpoints: ('healthz' | 'livez' | 'readyz')[] }[] {
    return [...this.#clusters.values()].flatMap((c) => [
      { name: c.check, fn: etcdProbe(c.client, this.#opts.prefix, this.#opts.healthcheckTimeoutMs), endpoints: ['healthz', 'livez', 'readyz'] as ('healthz' | 'livez' | 'readyz')[] },
      { name: c.readyCheck, fn: etcdProbe(c.client, this.#opts.prefix, this.#opts.readycheckTimeoutMs), endpoints: ['readyz'] as ('healthz' | 'livez' | 'readyz')[] },
    ]);
  }

  /** One size source per cluster, in the order of their storage_cluster_id (etcd-0, etcd-1, …). */
  sizeSources(): { storage: DbSizeMonitor; endpoint: string }[] {
    return [...this.#clusters.values()].map((c) => ({ storage: c.size, endpoint: c.servers.join(',') }));
  }

  /** Where each storage lives, for the start-up log. */
  describe(): string {
    return [...this.#clusters.values()].map((c) => `${c.check}=${c.servers.join(';')}`).join(' ');
  }

  close(): void {
    for (const c of this.#compactors) c.stop();
    for (const t of this.#timers) clearInterval(t);
    for (const c of this.#clusters.values()) {
      c.size.stop();
      c.client.close();
    }
  }

  #cluster(servers: string[], flag: string, check: string, readyCheck: string): Cluster {
    const key = [...servers].sort().join(';');
    let c = this.#clusters.get(key);
    if (!c) {
      const client = new EtcdClient({ endpoints: servers, caFile: this.#opts.caFile || undefined, certFile: this.#opts.certFile || undefined, keyFile: this.#opts.keyFile || undefined });
      c = { servers, flag, client, storages: [], size: new DbSizeMonitor(client, this.#opts.dbMetricPollIntervalMs), check, readyCheck, progressOrdered: false };
      this.#clusters.set(key, c);
    }
    return c;
  }

  #clusterFor(group: string): Cluster {
    const mine = this.#opts.serversOverrides.filter((o) => (SAME_STORAGE[o.group] ?? o.group) === group);
    const keys = new Set(mine.map((o) => [...o.servers].sort().join(';')));
    if (keys.size > 1) {
      throw new Error(`--etcd-servers-overrides: the resources of ${group || 'the core group'} share one storage and cannot go to different etcd servers (${mine.map((o) => `${o.group}/${o.resource}`).join(', ')})`);
    }
    const key = keys.size === 1 ? [...keys][0]! : [...this.#opts.servers].sort().join(';');
    return this.#clusters.get(key)!;
  }
}
