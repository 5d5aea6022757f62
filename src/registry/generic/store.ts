/**
 * The generic registry store (k8s.io/apiserver `registry/generic/registry/store.go`): one class configured by a
 * resource's strategy, turning verbs into storage operations. It speaks in decoded objects on the way in and in
 * serialized bytes on the way out, so responses reuse the stored bytes.
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject, Preconditions } from '../../apis/meta/v1/types.ts';
import { formatTime } from '../../apimachinery/codec/time.ts';
import {
  type GroupResource,
  OPTIMISTIC_LOCK_MESSAGE,
  StatusError,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newGenerateNameConflict,
  newInvalid,
  newNotFound,
} from '../../apimachinery/errors.ts';
import type { FieldError } from '../../apimachinery/field.ts';
import type { ListOptions } from '../../apimachinery/list-options.ts';
import type { FieldManager } from '../../apimachinery/managedfields/index.ts';
import { generateName } from '../../apimachinery/names.ts';
import { parseResourceVersion } from '../../apimachinery/resource-version.ts';
import type { Cacher } from '../../storage/cacher/cacher.ts';
import type { ObjectAttrs } from '../../storage/cacher/types.ts';
import { type Codec, type Storage, type StoredObject, StorageError } from '../../storage/interface.ts';
import { listObjects } from './list.ts';
import { checkPreconditions, copyOrDelete, served } from './meta.ts';

/** Per-resource behaviour, as upstream's RESTCreateStrategy / RESTUpdateStrategy. */
export interface Strategy {
  /** Clears fields a client may not set on create (status-like fields); system metadata is handled by the store. */
  prepareForCreate(obj: KubeObject): void;
  validate(obj: KubeObject): FieldError[];
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
}

export interface StoreOptions {
  groupResource: GroupResource;
  /** The kind named in Invalid errors (upstream uses the internal kind: empty group). */
  qualifiedKind: { group: string; kind: string };
  /** Storage key root, e.g. `/events`. */
  keyRoot: string;
  storage: Storage;
  cacher: Cacher;
  codec: Codec;
  strategy: Strategy;
  /** TTL applied on every write, in seconds (0: none). */
  ttlSeconds(): number;
  attrs(obj: KubeObject): ObjectAttrs;
  now?(): number;
  /** Records managedFields on create, update and non-apply patch (objects in the stored version). */
  fieldManager?: FieldManager;
}

/** An object as served: its bytes, and the decoded form when at hand. */
export interface Served {
  key: string;
  value: Buffer;
  object?: KubeObject;
}

export interface ListResult {
  items: Served[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
  /** The canonical shard selector the list was filtered by (ListMeta.shardInfo). */
  shardSelector?: string;
}

export interface WriteOptions {
  dryRun: boolean;
  /** The field manager of a create, update or non-apply patch (`?fieldManager`, else from the User-Agent). */
  manager?: string;
}

export class Store {
  readonly #o: StoreOptions;

  constructor(opts: StoreOptions) {
    this.#o = opts;
  }

  get groupResource(): GroupResource {
    return this.#o.groupResource;
  }

  get cacher(): Cacher {
    return this.#o.cacher;
  }

  key(namespace: string, name: string): string {
    return `${this.#o.keyRoot}/${namespace}/${name}`;
  }

  prefix(namespace: string): string {
    return namespace ? `${this.#o.keyRoot}/${namespace}/` : `${this.#o.keyRoot}/`;
  }

  #now(): number {
    return this.#o.now ? this.#o.now() : Date.now();
  }

  #ttl(): number | undefined {
    const t = this.#o.ttlSeconds();
    return t > 0 ? t : undefined;
  }

  #invalid(name: string, errs: FieldError[]): StatusError {
    return newInvalid(this.#o.qualifiedKind, name, errs);
  }

  /** managedFields of a non-apply write by `opts.manager` (live: null on create). */
  #recordUpdate(live: KubeObject | null, next: KubeObject, opts: WriteOptions): void {
    this.#o.fieldManager?.update(live, next, opts.manager || 'unknown', new Date(this.#now()));
  }

  /** System metadata of a new object (rest.BeforeCreate / FillObjectMetaSystemFields). */
  #prepareCreate(obj: KubeObject): void {
    const m = obj.metadata;
    this.#o.strategy.prepareForCreate(obj);
    m.uid = randomUUID();
    m.creationTimestamp = formatTime(this.#now());
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    delete m.generation;
  }

  async create(obj: KubeObject, opts: WriteOptions): Promise<Served> {
    const m = obj.metadata;
    const rv = m.resourceVersion;
    if (rv && /^\d+$/.test(rv) && Number(rv) !== 0) {
      // Upstream's storage refuses this with a reason-less 500; it is the client's mistake, so a 400 here.
      throw newBadRequest('resourceVersion should not be set on objects to be created');
    }
    delete m.resourceVersion;
    this.#prepareCreate(obj);
    const generate = !m.name && !!m.generateName;
    if (generate) m.name = generateName(m.generateName!);
    this.#recordUpdate(null, obj, opts);
    const errs = this.#o.strategy.validate(obj);
    if (errs.length) throw this.#invalid(m.name ?? '', errs);
    const ns = m.namespace ?? '';
    if (opts.dryRun) {
      if (!generate && (await this.#o.storage.get(this.key(ns, m.name!)))) throw newAlreadyExists(this.#o.groupResource, m.name!);
      return { key: this.key(ns, m.name!), value: this.#o.codec.encode(obj), object: obj };
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const stored = await this.#o.storage.create(this.key(ns, m.name!), obj, this.#ttl());
        return served(stored, obj);
      } catch (e) {
        if (e instanceof StorageError && e.code === 'KeyExists') {
          if (!generate) throw newAlreadyExists(this.#o.groupResource, m.name!);
          if (attempt >= 7) throw newGenerateNameConflict(this.#o.groupResource, m.name!);
          m.name = generateName(m.generateName!);
          continue;
        }
        throw e;
      }
    }
  }

  /** GET with upstream resourceVersion semantics (§5.1): unset = latest, "0" = any, N = at least N. */
  async get(namespace: string, name: string, resourceVersion: string | undefined): Promise<Served> {
    const key = this.key(namespace, name);
    let entry: { key: string; value: Buffer } | null | undefined;
    if (!resourceVersion) {
      entry = await this.#o.storage.get(key);
    } else {
      const rv = parseResourceVersion(resourceVersion);
      if (rv > 0) await this.#o.cacher.waitUntilFresh(rv);
      entry = this.#o.cacher.get(key);
    }
    if (!entry) throw newNotFound(this.#o.groupResource, name);
    return { key: entry.key, value: entry.value };
  }

  /** LIST with upstream resourceVersion and continue semantics (§5.2–5.4), served from the watch cache. */
  list(namespace: string, opts: ListOptions): Promise<ListResult> {
    const o = this.#o;
    return listObjects({ cacher: o.cacher, storage: o.storage, codec: o.codec, attrs: o.attrs }, this.prefix(namespace), opts);
  }

  /**
   * PUT: replace, or create when missing (events allow create-on-update). An empty resourceVersion in the body is
   * an unconditional update.
   */
  async update(namespace: string, name: string, obj: KubeObject, opts: WriteOptions): Promise<{ served: Served; created: boolean }> {
    const key = this.key(namespace, name);
    const gr = this.#o.groupResource;
    const newRV = obj.metadata.resourceVersion ? parseResourceVersion(obj.metadata.resourceVersion) : 0;
    const bodyUID = obj.metadata.uid;
    let created = false;
    const tryUpdate = (current: StoredObject | null): { object: KubeObject; ttlSeconds?: number } => {
      const next = structuredClone(obj);
      const ttl = this.#ttl();
      if (!current) {
        created = true;
        delete next.metadata.resourceVersion;
        this.#prepareCreate(next);
        this.#recordUpdate(null, next, opts);
        const errs = this.#o.strategy.validate(next);
        if (errs.length) throw this.#invalid(name, errs);
        return ttl ? { object: next, ttlSeconds: ttl } : { object: next };
      }
      created = false;
      const old = current.object ?? this.#o.codec.decode(current.value);
      if (bodyUID && old.metadata.uid !== bodyUID) {
        throw newConflict(
          gr,
          name,
          `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${bodyUID}, UID in object meta: ${old.metadata.uid ?? ''}`,
        );
      }
      if (newRV !== 0 && newRV !== current.rv) throw newConflict(gr, name, OPTIMISTIC_LOCK_MESSAGE);
      this.prepareUpdate(next, old);
      this.#recordUpdate(old, next, opts);
      next.metadata.resourceVersion = String(current.rv);
      const errs = this.#o.strategy.validateUpdate(next, old);
      if (errs.length) throw this.#invalid(name, errs);
      return ttl ? { object: next, ttlSeconds: ttl } : { object: next };
    };
    if (opts.dryRun) {
      const current = await this.#o.storage.get(key);
      const r = tryUpdate(current);
      if (created) r.object.metadata.resourceVersion = '';
      return { served: { key, value: this.#o.codec.encode(r.object), object: r.object }, created };
    }
    const res = await this.#o.storage.guaranteedUpdate(key, { tryUpdate, ignoreNotFound: true });
    const out = { served: served(res.stored), created: res.created };
    return (await this.#finalizeIfDone(out.served)) ?? out;
  }

  /**
   * PATCH (non-apply): `patchFn` turns the current stored object (a private copy) into the new one; it runs inside
   * the optimistic retry loop, so it is re-applied if the object changes underneath. Checks as upstream's
   * patcher: a missing object is 404; the result's name must match (400), its namespace match or be empty (400); a
   * resourceVersion in the result that differs from the stored one is a 409; uid changes are refused by update
   * validation (422). A result equal to the stored object writes nothing.
   */
  async patch(namespace: string, name: string, patchFn: (current: KubeObject) => KubeObject, opts: WriteOptions): Promise<Served> {
    const key = this.key(namespace, name);
    const gr = this.#o.groupResource;
    const tryUpdate = (current: StoredObject | null): { object: KubeObject; ttlSeconds?: number } => {
      if (!current) throw newNotFound(gr, name);
      const old = current.object ?? this.#o.codec.decode(current.value);
      const next = patchFn(structuredClone(old));
      next.metadata ??= {};
      const m = next.metadata;
      if ((m.name ?? '') !== name) throw newBadRequest(`the name of the object (${m.name ?? ''}) does not match the name on the URL (${name})`);
      if (!m.namespace) m.namespace = namespace;
      else if (m.namespace !== namespace) throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
      const rv = m.resourceVersion ? parseResourceVersion(m.resourceVersion) : 0;
      if (rv !== 0 && rv !== current.rv) throw newConflict(gr, name, OPTIMISTIC_LOCK_MESSAGE);
      this.prepareUpdate(next, old);
      this.#recordUpdate(old, next, opts);
      m.resourceVersion = String(current.rv);
      const errs = this.#o.strategy.validateUpdate(next, old);
      if (errs.length) throw this.#invalid(name, errs);
      const ttl = this.#ttl();
      return ttl ? { object: next, ttlSeconds: ttl } : { object: next };
    };
    if (opts.dryRun) {
      const r = tryUpdate(await this.#o.storage.get(key));
      return { key, value: this.#o.codec.encode(r.object), object: r.object };
    }
    let res;
    try {
      res = await this.#o.storage.guaranteedUpdate(key, { tryUpdate });
    } catch (e) {
      if (e instanceof StorageError && e.code === 'KeyNotFound') throw newNotFound(gr, name);
      throw e;
    }
    const out = { served: served(res.stored), created: false };
    return ((await this.#finalizeIfDone(out.served)) ?? out).served;
  }

  /**
   * Server-side apply: `applyFn` turns the current stored object (a private copy; null when missing) into the new
   * one, managedFields included; it runs inside the optimistic retry loop. A missing object is created with create
   * validation and fresh system metadata (`created: true`; a uid in the result is then a 409). Otherwise checks as
   * `patch`: name (400), namespace (400), a resourceVersion in the result that differs (409), update validation.
   */
  async apply(
    namespace: string,
    name: string,
    applyFn: (current: KubeObject | null) => KubeObject,
    opts: WriteOptions,
  ): Promise<{ served: Served; created: boolean }> {
    const key = this.key(namespace, name);
    const gr = this.#o.groupResource;
    let created = false;
    const tryUpdate = (current: StoredObject | null): { object: KubeObject; ttlSeconds?: number } => {
      const old = current ? (current.object ?? this.#o.codec.decode(current.value)) : null;
      const next = applyFn(old === null ? null : structuredClone(old));
      next.metadata ??= {};
      const m = next.metadata;
      created = old === null;
      if (created && m.uid) {
        throw newConflict(gr, name, `uid mismatch: the provided object specified uid ${m.uid}, and no existing object was found`);
      }
      if (!m.namespace) m.namespace = namespace;
      else if (m.namespace !== namespace) throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
      if ((m.name ?? '') !== name) throw newBadRequest(`the name of the object (${m.name ?? ''}) does not match the name on the URL (${name})`);
      const ttl = this.#ttl();
      if (old === null || current === null) {
        delete m.resourceVersion;
        this.#prepareCreate(next);
        const errs = this.#o.strategy.validate(next);
        if (errs.length) throw this.#invalid(name, errs);
        return ttl ? { object: next, ttlSeconds: ttl } : { object: next };
      }
      const rv = m.resourceVersion ? parseResourceVersion(m.resourceVersion) : 0;
      if (rv !== 0 && rv !== current.rv) throw newConflict(gr, name, OPTIMISTIC_LOCK_MESSAGE);
      this.prepareUpdate(next, old);
      m.resourceVersion = String(current.rv);
      const errs = this.#o.strategy.validateUpdate(next, old);
      if (errs.length) throw this.#invalid(name, errs);
      return ttl ? { object: next, ttlSeconds: ttl } : { object: next };
    };
    if (opts.dryRun) {
      const r = tryUpdate(await this.#o.storage.get(key));
      if (created) r.object.metadata.resourceVersion = '';
      return { served: { key, value: this.#o.codec.encode(r.object), object: r.object }, created };
    }
    const res = await this.#o.storage.guaranteedUpdate(key, { tryUpdate, ignoreNotFound: true });
    const out = { served: served(res.stored), created: res.created };
    return (await this.#finalizeIfDone(out.served)) ?? out;
  }

  /** rest.BeforeUpdate: system metadata always comes from the stored object. */
  prepareUpdate(next: KubeObject, old: KubeObject): void {
    const m = next.metadata;
    const o = old.metadata;
    this.#o.strategy.prepareForUpdate(next, old);
    if (!m.uid) m.uid = o.uid!;
    copyOrDelete(m, o, 'creationTimestamp');
    copyOrDelete(m, o, 'deletionTimestamp');
    copyOrDelete(m, o, 'deletionGracePeriodSeconds');
    copyOrDelete(m, o, 'generation');
    delete m.selfLink;
  }

  /** An object marked for deletion is removed once its last finalizer is gone (upstream store.Update). */
  async #finalizeIfDone(s: Served): Promise<{ served: Served; created: boolean } | undefined> {
    const obj = s.object ?? this.#o.codec.decode(s.value);
    if (!obj.metadata.deletionTimestamp || (obj.metadata.finalizers?.length ?? 0) > 0) return undefined;
    try {
      const gone = await this.#o.storage.delete(s.key);
      return { served: served(gone), created: false };
    } catch (e) {
      if (e instanceof StorageError && e.code === 'KeyNotFound') return undefined;
      throw e;
    }
  }

  /**
   * DELETE. Returns the deleted object (at the deletion revision), or — when finalizers remain — the object now
   * carrying a deletionTimestamp (`deleted: false`).
   */
  async delete(namespace: string, name: string, preconditions: Preconditions | undefined, opts: WriteOptions): Promise<{ served: Served; deleted: boolean }> {
    const key = this.key(namespace, name);
    const check = (current: StoredObject): KubeObject => {
      const obj = current.object ?? this.#o.codec.decode(current.value);
      checkPreconditions(this.#o.qualifiedKind.kind, name, preconditions, obj, current.rv);
      return obj;
    };
    const current = await this.#o.storage.get(key);
    if (!current) throw newNotFound(this.#o.groupResource, name);
    const obj = check(current);
    if (opts.dryRun) return { served: { key, value: current.value, object: obj }, deleted: true };
    if ((obj.metadata.finalizers?.length ?? 0) > 0) {
      const res = await this.#o.storage.guaranteedUpdate(key, {
        tryUpdate: (cur) => {
          if (!cur) throw newNotFound(this.#o.groupResource, name);
          const next = structuredClone(check(cur));
          if (!next.metadata.deletionTimestamp) {
            next.metadata.deletionTimestamp = formatTime(this.#now());
            next.metadata.deletionGracePeriodSeconds = 0;
          }
          next.metadata.resourceVersion = String(cur.rv);
          const ttl = this.#ttl();
          return ttl ? { object: next, ttlSeconds: ttl } : { object: next };
        },
      });
      return { served: served(res.stored), deleted: false };
    }
    try {
      const gone = await this.#o.storage.delete(key, { validateDeletion: (cur) => void check(cur) });
      return { served: served(gone), deleted: true };
    } catch (e) {
      if (e instanceof StorageError && e.code === 'KeyNotFound') throw newNotFound(this.#o.groupResource, name);
      throw e;
    }
  }

  /**
   * DELETECOLLECTION: list with the request's options (all pages unless a limit was given), then delete each item
   * with the same preconditions; items already gone are skipped. Returns what was deleted, as listed.
   */
  async deleteCollection(namespace: string, listOpts: ListOptions, preconditions: Preconditions | undefined, opts: WriteOptions): Promise<ListResult> {
    const single = listOpts.limit > 0;
    const first = await this.list(namespace, single ? listOpts : { ...listOpts, limit: 10_000 });
    const items: Served[] = [...first.items];
    let page = first;
    while (!single && page.continue) {
      page = await this.list(namespace, { ...listOpts, limit: 10_000, continue: page.continue, resourceVersion: '', resourceVersionMatch: '' });
      items.push(...page.items);
    }
    const deleted: Served[] = [];
    for (const item of items) {
      const rest = item.key.slice(this.#o.keyRoot.length + 1);
      const slash = rest.indexOf('/');
      const ns = rest.slice(0, slash);
      const name = rest.slice(slash + 1);
      try {
        await this.delete(ns, name, preconditions, opts);
        deleted.push(item);
      } catch (e) {
        if (e instanceof StatusError && e.reason === 'NotFound') continue;
        throw e;
      }
    }
    const out: ListResult = { items: deleted, resourceVersion: first.resourceVersion };
    if (single && first.continue) out.continue = first.continue;
    return out;
  }
}
