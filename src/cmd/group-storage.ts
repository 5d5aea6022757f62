/**
 * Durable storage for API groups other than Events: one SQLite file per group under the data dir
 * (`<group>.db`), each shared by its group's resources through a Scheme. Kept apart from events.db so that the
 * Events write rate, TTL sweeps and compaction never delay or bloat them. On etcd (`open`) each group gets its
 * storage on the cluster that --etcd-servers or an override names (etcd-storage.ts).
 */
import { join } from 'node:path';
import { Scheme } from '../storage/scheme.ts';
import type { Storage } from '../storage/interface.ts';
import { openSqliteStorage } from '../storage/sqlite/index.ts';
import type { SizedStorage } from '../storage/metrics.ts';
import type { Transformer } from '../storage/value/index.ts';

export interface GroupStorage {
  group: string;
  path: string;
  /** What the resources use (traced when tracing is on). */
  storage: Storage;
  /** The backend itself (a SQLite file's size for the storage metrics). */
  backend: Storage & Partial<SizedStorage>;
  scheme: Scheme;
}

export class GroupStorages {
  readonly #dataDir: string;
  readonly #synchronous: 'NORMAL' | 'FULL';
  readonly #wrap: (s: Storage) => Storage;
  readonly #transformer: ((group: string) => Transformer) | undefined;
  readonly #groups = new Map<string, GroupStorage>();
  readonly #open: ((group: string, scheme: Scheme, transformer: Transformer | undefined) => { backend: Storage; path: string }) | undefined;

  /**
   * `transformer`: what values of the group pass through on their way to the store (encryption at rest), on SQLite
   * and on etcd alike. `open`: another backend than a SQLite file per group (etcd: the group's storage on its cluster).
   */
  constructor(opts: {
    dataDir: string;
    synchronous: 'NORMAL' | 'FULL';
    wrap?: (s: Storage) => Storage;
    transformer?: (group: string) => Transformer;
    open?: (group: string, scheme: Scheme, transformer: Transformer | undefined) => { backend: Storage; path: string };
  }) {
    this.#dataDir = opts.dataDir;
    this.#transformer = opts.transformer;
    this.#synchronous = opts.synchronous;
    this.#wrap = opts.wrap ?? ((s) => s);
    this.#open = opts.open;
  }

  /** The group's storage, opened on first use. */
  forGroup(group: string): GroupStorage {
    let g = this.#groups.get(group);
    if (!g) {
      const scheme = new Scheme();
      const transformer = this.#transformer?.(group);
      const { backend, path } = this.#open
        ? this.#open(group, scheme, transformer)
        : (() => {
            // The core group ("") is named `core`: `.db` would be a hidden file.
            const path = join(this.#dataDir, `${group || 'core'}.db`);
            return { path, backend: openSqliteStorage({ path, codec: scheme, synchronous: this.#synchronous, ...(transformer ? { transformer } : {}) }) };
          })();
      g = { group, path, scheme, backend, storage: this.#wrap(backend) };
      this.#groups.set(group, g);
    }
    return g;
  }

  all(): GroupStorage[] {
    return [...this.#groups.values()];
  }

  async readinessCheck(): Promise<void> {
    await Promise.all(this.all().map((g) => g.storage.readinessCheck()));
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((g) => g.storage.close()));
  }
}
