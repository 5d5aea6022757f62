/**
 * `--encryption-provider-config`: the EncryptionConfiguration's providers put between every backend and its
 * database (upstream `encryptionconfig.LoadEncryptionConfig` and the storage factory's transformer overrides).
 * Each stored resource gets the transformer of the entry that governs it (config/encryption.ts `providersFor`);
 * a backend shared by several resources routes each value by its key (storage/value/by-resource.ts). The
 * transformers are made once here, before any storage is opened, so no value is ever written unencrypted.
 */
import { GROUP as RBAC_GROUP } from '../apis/rbac/v1/types.ts';
import { loadEncryptionConfiguration, providersFor, type EncryptionConfiguration, type KMSConfiguration } from '../config/encryption.ts';
import { KMSMetrics } from '../storage/value/kmsv2/metrics.ts';
import { KMSv2Provider } from '../storage/value/kmsv2/provider.ts';
import { log } from '../util/log.ts';
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
  /** Makes the KMS v2 provider of a configuration entry (default: a KMSv2Provider connected to its plugin). */
  kms?: KMSFactory;
}

/** A KMS provider's identity in a configuration: the same name, endpoint and timeout reuse its connection and seed. */
const kmsKey = (k: KMSConfiguration) => `${k.name}\0${k.endpoint}\0${k.timeoutMs}`;

/** The transformers of every backend, replaceable together when the configuration is reloaded. */
export class EncryptionTransformers {
  readonly #backends = new Map<string, ResourceTransformers>(STORED_RESOURCES.map((r) => [r.backend, new ResourceTransformers()]));
  readonly #metrics: TransformationMetrics | undefined;
  readonly #o: EncryptionOptions & { apiserverID: string };
  #kmsMetrics: KMSMetrics | undefined;
  /** The KMS providers of the configuration in force, in file order (their health is `kms-providers`). */
  #kms = new Map<string, KMSv2Provider>();

  constructor(o: EncryptionOptions & { apiserverID: string }) {
    this.#metrics = o.registry ? new TransformationMetrics(o.registry) : undefined;
    this.#o = o;
  }

  /** The transformer a backend is opened with (identity for every key until a configuration names its resource). */
  forBackend(backend: string): ResourceTransformers {
    let t = this.#backends.get(backend);
    if (!t) this.#backends.set(backend, (t = new ResourceTransformers()));
    return t;
  }

  /** Whether the configuration in force has KMS providers. */
  get usesKMS(): boolean {
    return this.#kms.size > 0;
  }

  /**
   * Builds every resource's transformer from `config` and installs them all, or throws and installs nothing:
   * writes from then on use the new first providers, reads every provider of the new configuration. KMS providers
   * are connected and probed first; with `requireHealthy` (a reload) a new one that is not healthy refuses the
   * configuration, at start-up the server comes up and reports it in `kms-providers` (as upstream).
   */
  async apply(config: EncryptionConfiguration, requireHealthy = false): Promise<void> {
    const next = new Map<string, KMSv2Provider>();
    const started: KMSv2Provider[] = [];
    try {
      for (const p of config.resources.flatMap((r) => r.providers)) {
        if (!p.kms) continue;
        const k = kmsKey(p.kms);
        if (next.has(k)) continue;
        let provider = this.#kms.get(k);
        if (!provider) {
          provider = new KMSv2Provider({
            name: p.kms.name,
            endpoint: p.kms.endpoint,
            timeoutMs: p.kms.timeoutMs,
            ...(this.#o.registry ? { metrics: (this.#kmsMetrics ??= new KMSMetrics(this.#o.registry, this.#o.apiserverID)) } : {}),
            log: (msg, fields) => log.warning(msg, fields),
          });
          started.push(provider);
          const err = await provider.start();
          if (err && requireHealthy) throw err;
        }
        next.set(k, provider);
      }
      const factory: KMSFactory = (spec) => next.get(kmsKey(spec as KMSConfiguration))!;
      const tables = new Map<string, Map<string, Transformer>>();
      for (const r of STORED_RESOURCES) {
        const providers = providersFor(config, r.names);
        if (!providers) continue;
        const t = resourceTransformer(providers, this.#metrics?.forResource(r.names[0]!), this.#o.kms ?? factory);
        let table = tables.get(r.backend);
        if (!table) tables.set(r.backend, (table = new Map()));
        table.set(r.root, t);
      }
      for (const [backend, t] of this.#backends) t.replace(tables.get(backend) ?? new Map());
    } catch (e) {
      for (const p of started) p.stop();
      throw e;
    }
    // Providers no longer configured are closed once requests already using them are done (upstream: twice the
    // summed timeouts).
    const retired = [...this.#kms].filter(([k]) => !next.has(k));
    this.#kms = next;
    if (retired.length) {
      const grace = 2 * retired.reduce((n, [k]) => n + Number(k.split('\0')[2]), 0);
      setTimeout(() => retired.forEach(([, p]) => p.stop()), grace).unref();
    }
  }

  /** `kms-providers`: every KMS provider of the configuration in force, `kms-provider-<i>: <error>` for the failing. */
  async healthCheck(): Promise<void> {
    const errs: string[] = [];
    let i = 0;
    for (const p of this.#kms.values()) {
      const at = i++;
      try {
        await p.healthCheck();
      } catch (e) {
        errs.push(`kms-provider-${at}: ${(e as Error).message}`);
      }
    }
    if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  }

  stop(): void {
    for (const p of this.#kms.values()) p.stop();
    this.#kms.clear();
  }
}

export interface Encryption {
  transformers: EncryptionTransformers;
  /** The health checks upstream adds for the configuration (`kms-providers` with automatic reload or KMS v2). */
  healthChecks: { name: string; check: () => void | Promise<void> }[];
  stop(): void;
}

/**
 * Loads `--encryption-provider-config` (throws upstream's start-up text), builds the transformers (connecting KMS
 * plugins and waiting for their first Status), records the configuration in force and, with `reload`, starts
 * watching the file.
 */
export async function startEncryption(path: string, reload: boolean, o: EncryptionOptions & { apiserverID: string }): Promise<Encryption> {
  const { config, hash } = loadEncryptionConfiguration(path, reload);
  const transformers = new EncryptionTransformers(o);
  await transformers.apply(config);
  const metrics = o.registry ? new EncryptionConfigMetrics(o.registry, o.apiserverID) : undefined;
  metrics?.inForce(hash);
  const reloader = reload ? new EncryptionConfigReloader(path, hash, (c) => transformers.apply(c, true), metrics) : undefined;
  // Upstream serves one `kms-providers` check when reload is on (even without KMS providers, so the set of check
  // names never changes with the file) or when KMS v2 is used (there is no KMS v1 here).
  const healthChecks = reload || transformers.usesKMS ? [{ name: 'kms-providers', check: () => transformers.healthCheck() }] : [];
  return {
    transformers,
    healthChecks,
    stop: () => {
      reloader?.stop();
      transformers.stop();
    },
  };
}
