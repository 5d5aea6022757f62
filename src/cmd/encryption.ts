/**
 * `--encryption-provider-config`: the EncryptionConfiguration's providers put between every backend and its
 * database (upstream `encryptionconfig.LoadEncryptionConfig` and the storage factory's transformer overrides).
 * Each stored resource gets the transformer of the entry that governs it (config/encryption.ts `providersFor`);
 * a backend shared by several resources routes each value by its key (storage/value/by-resource.ts). The
 * transformers are made once here, before any storage is opened, so no value is ever written unencrypted.
 */
import { GROUP as RBAC_GROUP } from '../apis/rbac/v1/types.ts';
import { loadEncryptionConfiguration, providersFor, type EncryptionConfiguration } from '../config/encryption.ts';
import { EncryptionConfigMetrics, EncryptionConfigReloader } from './encryption-reload.ts';
import type { Registry } from '../metrics/registry.ts';
import { EVENTS_KEY_ROOT } from '../registry/events/storage.ts';
import { ResourceTransformers, TransformationMetrics, resourceTransformer, type KMSFactory, type Transformer } from '../storage/value/index.ts';

/** Where a stored resource lives: its backend (`events` or an API group's database), key root and names. */
interface StoredResource {
  backend: string;
  /** The key root with its trailing slash (`/roles/`). */
  root: string;
  /** Every `res.group` spelling naming these stored objects, the canonical one first (the metrics' `resource`). */
  names: string[];
}

export const EVENTS_BACKEND = 'events';

/**
 * Every resource this server stores. Events are stored once and served twice (events.cluster.io and core/v1), so
 * both names select them; RBAC's four resources share their group's database.
 */
export const STORED_RESOURCES: readonly StoredResource[] = [
  { backend: EVENTS_BACKEND, root: `${EVENTS_KEY_ROOT}/`, names: ['events.events.cluster.io', 'events'] },
  ...['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'].map((r) => ({ backend: RBAC_GROUP, root: `/${r}/`, names: [`${r}.${RBAC_GROUP}`] })),
];

export interface EncryptionOptions {
  /** Where the transformation metrics go (absent: nothing recorded, the bench's no-metrics baseline). */
  registry?: Registry;
  /** KMS v2 providers by name, once connected (cmd/kms.ts). */
  kms?: KMSFactory;
}

/** The transformers of every backend, replaceable together when the configuration is reloaded. */
export class EncryptionTransformers {
  readonly #backends = new Map<string, ResourceTransformers>();
  readonly #metrics: TransformationMetrics | undefined;
  readonly #kms: KMSFactory | undefined;

  constructor(config: EncryptionConfiguration | undefined, o: EncryptionOptions = {}) {
    this.#metrics = o.registry ? new TransformationMetrics(o.registry) : undefined;
    this.#kms = o.kms;
    for (const r of STORED_RESOURCES) if (!this.#backends.has(r.backend)) this.#backends.set(r.backend, new ResourceTransformers());
    if (config) this.apply(config);
  }

  /** The transformer a backend is opened with (identity for every key until a configuration names its resource). */
  forBackend(backend: string): ResourceTransformers {
    let t = this.#backends.get(backend);
    if (!t) this.#backends.set(backend, (t = new ResourceTransformers()));
    return t;
  }

  /**
   * Builds every resource's transformer from `config` and installs them all (or throws, installing nothing):
   * writes from then on use the new first providers, reads every provider of the new configuration.
   */
  apply(config: EncryptionConfiguration): void {
    const tables = new Map<string, Map<string, Transformer>>();
    for (const r of STORED_RESOURCES) {
      const providers = providersFor(config, r.names);
      if (!providers) continue;
      const t = resourceTransformer(providers, this.#metrics?.forResource(r.names[0]!), this.#kms);
      let table = tables.get(r.backend);
      if (!table) tables.set(r.backend, (table = new Map()));
      table.set(r.root, t);
    }
    for (const [backend, t] of this.#backends) t.replace(tables.get(backend) ?? new Map());
  }
}

export interface Encryption {
  transformers: EncryptionTransformers;
  /** The health checks upstream adds for the configuration (`kms-providers` with automatic reload). */
  healthChecks: { name: string; check: () => void | Promise<void> }[];
  stop(): void;
}

/**
 * Loads `--encryption-provider-config` (throws upstream's start-up text), builds the transformers, records the
 * configuration in force and, with `reload`, starts watching the file.
 */
export function startEncryption(path: string, reload: boolean, o: EncryptionOptions & { apiserverID: string }): Encryption {
  const { config, hash } = loadEncryptionConfiguration(path, reload);
  const transformers = new EncryptionTransformers(config, o);
  const metrics = o.registry ? new EncryptionConfigMetrics(o.registry, o.apiserverID) : undefined;
  metrics?.inForce(hash);
  const reloader = reload ? new EncryptionConfigReloader(path, hash, async (c) => transformers.apply(c), metrics) : undefined;
  // With automatic reload upstream serves one `kms-providers` check (a no-op without KMS plugins), so the set of
  // check names never changes with the file.
  const healthChecks = reload ? [{ name: 'kms-providers', check: () => {} }] : [];
  return { transformers, healthChecks, stop: () => reloader?.stop() };
}
