/**
 * The generic registry store (k8s.io/apiserver `registry/generic/registry/store.go`): one class configured by a
 * resource's strategy, turning verbs into storage operations. It speaks in decoded objects on the way in and in
 * serialized bytes on the way out, so responses reuse the stored bytes. Every write goes through one of three
 * paths — create, update (PUT, PATCH and apply alike) and delete — and storage errors become Status errors in one
 * place (storage-errors.ts).
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
import { type FieldError, invalid } from '../../apimachinery/field.ts';
import type { ListOptions } from '../../apimachinery/list-options.ts';
import type { FieldManager } from '../../apimachinery/managedfields/index.ts';
import { generateName } from '../../apimachinery/names.ts';
import { parseResourceVersion } from '../../apimachinery/resource-version.ts';
import type { CacheWatch, Cacher, WatchConsumer } from '../../storage/cacher/cacher.ts';
import type { ObjectAttrs, Predicate } from '../../storage/cacher/types.ts';
import { StorageError, type Codec, type StoredObject, type UpdateResult } from '../../storage/interface.ts';
import type { DeleteRequest, StandardStorage, UpdateRequest, WriteOptions } from '../rest/rest.ts';
import type { ListResult, Served } from '../rest/served.ts';
import type { Strategy, ValidateObjectFunc } from '../rest/strategy.ts';
import type { UpdatedObjectInfo } from '../rest/update.ts';
import { validateCreate, validateUpdate } from '../rest/validate.ts';
import { listObjects } from './list.ts';
import { checkPreconditions, copyOrDelete, ensureNamespace, served } from './meta.ts';
import { buildPredicate } from './predicate.ts';
import { interpretStorageError, interpretWatchError, uidPreconditionConflict } from './storage-errors.ts';

export interface StoreOptions<T extends KubeObject> {
  groupResource: GroupResource;
  /** The kind named in Invalid errors (upstream uses the internal kind: empty group). */
  qualifiedKind: { group: string; kind: string };
  /** Storage key root, e.g. `/events`. */
  keyRoot: string;
  /** The resource's cacher: writes pass through it to the backend, reads are served at the request's revision. */
  storage: Cacher;
  /** Encodes and decodes the stored form; decode gives a T. */
  codec: Codec & { decode(value: Buffer): T };
  strategy: Strategy<T>;
  /** TTL applied on every write, in seconds (0 or absent: none). */
  ttlSeconds?(): number;
  attrs(obj: T): ObjectAttrs;
  now?(): number;
  /** Records managedFields on create, update and non-apply patch (objects in the stored version). */
  fieldManager?: FieldManager;
}

export type { ListResult, Served, WriteOptions };

export class Store<T extends KubeObject> implements StandardStorage<T> {
  readonly #o: StoreOptions<T>;

  constructor(opts: StoreOptions<T>) {
    this.#o = opts;
  }

  get groupResource(): GroupResource {
    return this.#o.groupResource;
  }

  /** The watch cache behind lists, gets at a resourceVersion and watches. */
  get cacher(): Cacher {
    return this.#o.storage;
  }

  key(namespace: string, name: string): string {
    return namespace ? `${this.#o.keyRoot}/${namespace}/${name}` : `${this.#o.keyRoot}/${name}`;
  }

  prefix(namespace: string): string {
    return namespace ? `${this.#o.keyRoot}/${namespace}/` : `${this.#o.keyRoot}/`;
  }

  decode(s: Served | StoredObject): T {
    return (s.object as T | undefined) ?? (this.#o.codec.decode(s.value) as T);
  }

  #now(): number {
    return this.#o.now ? this.#o.now() : Date.now();
  }

  #withTTL(object: T): UpdateResult {
    const t = this.#o.ttlSeconds?.() ?? 0;
    return t > 0 ? { object, ttlSeconds: t } : { object };
  }

  #invalid(name: string, errs: FieldError[]): StatusError {
    return newInvalid(this.#o.qualifiedKind, name, errs);
  }

  /** managedFields of a non-apply write by `manager` (live: null on create). */
  #recordUpdate(live: T | null, next: T, manager: string | undefined): void {
    this.#o.fieldManager?.update(live, next, manager || 'unknown', new Date(this.#now()));
  }

  /** rest.BeforeCreate: the strategy's preparation, system metadata, validation, canonical form. */
  #beforeCreate(obj: T, name: string, opts: WriteOptions & { recordManagedFields?: boolean }): void {
    const m = obj.metadata;
    delete m.resourceVersion;
    this.#o.strategy.prepareForCreate(obj, opts.user);
    m.uid = randomUUID();
    m.creationTimestamp = formatTime(this.#now());
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    delete m.generation;
    if (opts.recordManagedFields !== false) this.#recordUpdate(null, obj, opts.manager);
    const errs = validateCreate(this.#o.strategy, obj);
    if (errs.length) throw this.#invalid(name, errs);
    if (this.#o.strategy.warningsOnCreate) opts.warnings?.push(...this.#o.strategy.warningsOnCreate(obj));
    this.#o.strategy.canonicalize?.(obj);
  }

  /** rest.BeforeUpdate: system metadata always comes from the stored object; then validation. */
  #beforeUpdate(next: T, old: T, rv: number, opts: UpdateRequest<T>): void {
    const m = next.metadata;
    const o = old.metadata;
    this.#o.strategy.prepareForUpdate(next, old);
    if (!m.uid) m.uid = o.uid!;
    copyOrDelete(m, o, 'creationTimestamp');
    copyOrDelete(m, o, 'deletionTimestamp');
    copyOrDelete(m, o, 'deletionGracePeriodSeconds');
    copyOrDelete(m, o, 'generation');
    delete m.selfLink;
    if (opts.recordManagedFields) this.#recordUpdate(old, next, opts.manager);
    m.resourceVersion = String(rv);
    const errs = validateUpdate(this.#o.strategy, next, old);
    if (errs.length) throw this.#invalid(m.name ?? '', errs);
    if (this.#o.strategy.warningsOnUpdate) opts.warnings?.push(...this.#o.strategy.warningsOnUpdate(next, old));
    this.#o.strategy.canonicalize?.(next);
  }

  async create(namespace: string, obj: T, createValidation: ValidateObjectFunc<T> | undefined, opts: WriteOptions): Promise<Served> {
    this.#o.strategy.defaults?.(obj);
    const m = obj.metadata;
    ensureNamespace(m, this.#o.strategy.namespaceScoped ? namespace : '');
    const rv = m.resourceVersion;
    if (rv && /^\d+$/.test(rv) && Number(rv) !== 0) {
      // Upstream's storage refuses this with a reason-less 500; it is the client's mistake, so a 400 here.
      throw newBadRequest('resourceVersion should not be set on objects to be created');
    }
    const generate = !m.name && !!m.generateName;
    if (generate) m.name = generateName(m.generateName!);
    this.#beforeCreate(obj, m.name ?? '', opts);
    await createValidation?.(obj);
    const ns = m.namespace ?? '';
    if (opts.dryRun) {
      if (!generate && (await this.#o.storage.get(this.key(ns, m.name!)))) throw newAlreadyExists(this.#o.groupResource, m.name!);
      return { key: this.key(ns, m.name!), value: this.#o.codec.encode(obj), object: obj };
    }
    const ttl = this.#withTTL(obj).ttlSeconds;
    for (let attempt = 0; ; attempt++) {
      try {
        const stored = await this.#o.storage.create(this.key(ns, m.name!), obj, ttl);
        return served(stored, obj);
      } catch (e) {
        const err = interpretStorageError(e, this.#o.groupResource, m.name!);
        if (generate && err instanceof StatusError && err.reason === 'AlreadyExists') {
          if (attempt >= 7) throw newGenerateNameConflict(this.#o.groupResource, m.name!);
          m.name = generateName(m.generateName!);
          continue;
        }
        throw err;
      }
    }
  }

  async get(namespace: string, name: string, resourceVersion: string | undefined): Promise<Served> {
    const key = this.key(namespace, name);
    let entry;
    try {
      entry = await this.#o.storage.getObject(key, resourceVersion);
    } catch (e) {
      throw interpretStorageError(e, this.#o.groupResource, name);
    }
    if (!entry) throw newNotFound(this.#o.groupResource, name);
    return { key: entry.key, value: entry.value };
  }

  /** LIST with upstream resourceVersion and continue semantics, served from the watch cache. */
  list(namespace: string, opts: ListOptions): Promise<ListResult> {
    return listObjects(this.#o.storage, this.prefix(namespace), opts).catch((e: unknown) => {
      throw interpretStorageError(e, this.#o.groupResource, '');
    });
  }

  /**
   * WATCH: from now (resourceVersion unset or "0"), after a given revision (a resume), or — with
   * sendInitialEvents — the state at a consistent (or not-older-than) revision first.
   */
  async watch(namespace: string, name: string, opts: ListOptions, consumer: WatchConsumer): Promise<CacheWatch> {
    const cacher = this.#o.storage;
    let predicate = buildPredicate(opts);
    if (name) predicate = andName(predicate, name);
    const interpreted: WatchConsumer = {
      onEvent: (ev, type) => consumer.onEvent(ev, type),
      onError: (err) => consumer.onError(interpretWatchError(err, cacher.compactedRevision()) as Error),
    };
    const o = { resourceVersion: opts.resourceVersion ?? '', sendInitialEvents: opts.sendInitialEvents === true, allowWatchBookmarks: opts.allowWatchBookmarks === true, predicate };
    return cacher.watchObjects(this.prefix(namespace), o, interpreted);
  }

  /** The newest revision the watch cache has seen (what a periodic bookmark may claim). */
  currentResourceVersion(): number {
    return this.#o.storage.resourceVersion;
  }

  /**
   * PUT, PATCH and server-side apply. `objInfo` turns the current object (a private copy; null when missing) into
   * the new one inside the optimistic retry loop. A missing object is created when the strategy allows create on
   * update or the request forces it (apply), else 404. The checks, once for all three: the name must match the
   * URL (400), the namespace match or be empty (400); a resourceVersion that differs from the stored one is a 409
   * and an absent one is allowed only for unconditional updates; then the strategy's preparation and validation,
   * the request's validation (admission), the TTL. A result byte-identical to the stored object writes nothing.
   */
  async update(namespace: string, name: string, objInfo: UpdatedObjectInfo<T>, req: UpdateRequest<T>): Promise<{ served: Served; created: boolean }> {
    const key = this.key(namespace, name);
    const gr = this.#o.groupResource;
    const strategy = this.#o.strategy;
    const preconditions = objInfo.preconditions?.();
    let created = false;
    const tryUpdate = async (current: StoredObject | null): Promise<UpdateResult> => {
      if (!current && !strategy.allowCreateOnUpdate && !req.forceAllowCreate) throw newNotFound(gr, name);
      const old = current ? this.decode(current) : null;
      if (current && preconditions?.uid && old!.metadata.uid !== preconditions.uid) {
        throw uidPreconditionConflict(gr, name, key, preconditions.uid, old!.metadata.uid ?? '');
      }
      const next = await objInfo.updatedObject(old === null ? null : structuredClone(old));
      next.metadata ??= {};
      // Defaults apply to what the request produced (a PUT body, a patched or applied object), as decoding does.
      strategy.defaults?.(next);
      const m = next.metadata;
      if ((m.name ?? '') !== name) throw newBadRequest(`the name of the object (${m.name ?? ''}) does not match the name on the URL (${name})`);
      ensureNamespace(m, strategy.namespaceScoped ? namespace : '');
      created = current === null;
      if (current === null) {
        if (req.forceAllowCreate && m.uid) {
          throw newConflict(gr, name, `uid mismatch: the provided object specified uid ${m.uid}, and no existing object was found`);
        }
        this.#beforeCreate(next, name, { ...req, recordManagedFields: req.recordManagedFields ?? false });
        await req.createValidation?.(next);
        return this.#withTTL(next);
      }
      const rv = m.resourceVersion ? parseResourceVersion(m.resourceVersion) : 0;
      if (rv === 0 && !strategy.allowUnconditionalUpdate) {
        throw this.#invalid(name, [invalid('metadata.resourceVersion', 0, 'must be specified for an update')]);
      }
      if (rv !== 0 && rv !== current.rv) throw newConflict(gr, name, OPTIMISTIC_LOCK_MESSAGE);
      this.#beforeUpdate(next, old!, current.rv, req);
      await req.updateValidation?.(next, old!);
      return this.#withTTL(next);
    };
    if (req.dryRun) {
      const current = await this.#o.storage.get(key);
      const r = await tryUpdate(current);
      if (created) r.object.metadata.resourceVersion = '';
      return { served: { key, value: this.#o.codec.encode(r.object), object: r.object }, created };
    }
    let res;
    try {
      res = await this.#o.storage.guaranteedUpdate(key, { tryUpdate, ignoreNotFound: true });
    } catch (e) {
      throw interpretStorageError(e, gr, name);
    }
    const out = { served: served(res.stored), created: res.created };
    return (await this.#finalizeIfDone(out.served)) ?? out;
  }

  /** An object marked for deletion is removed once its last finalizer is gone (upstream store.Update). */
  async #finalizeIfDone(s: Served): Promise<{ served: Served; created: boolean } | undefined> {
    const obj = this.decode(s);
    if (!obj.metadata.deletionTimestamp || (obj.metadata.finalizers?.length ?? 0) > 0) return undefined;
    try {
      const gone = await this.#o.storage.delete(s.key);
      return { served: served(gone), created: false };
    } catch (e) {
      const err = interpretStorageError(e, this.#o.groupResource, obj.metadata.name ?? '');
      if (err instanceof StatusError && err.reason === 'NotFound') return undefined;
      throw err;
    }
  }

  /**
   * DELETE. The object is read once: preconditions and the request's validation (admission) look at that copy,
   * and the backend deletes it only if it is still that revision (else both run again on the newer one). Returns
   * the deleted object at the deletion revision, or — when finalizers remain — the object now carrying a
   * deletionTimestamp (`deleted: false`).
   */
  async delete(namespace: string, name: string, deleteValidation: ValidateObjectFunc<T> | undefined, req: DeleteRequest): Promise<{ served: Served; deleted: boolean }> {
    const key = this.key(namespace, name);
    const gr = this.#o.groupResource;
    const check = async (current: StoredObject): Promise<T> => {
      const obj = this.decode(current);
      checkPreconditions(this.#o.qualifiedKind.kind, name, req.preconditions, obj, current.rv);
      await deleteValidation?.(obj);
      return obj;
    };
    let current;
    try {
      current = await this.#o.storage.get(key);
    } catch (e) {
      throw interpretStorageError(e, gr, name);
    }
    if (!current) throw newNotFound(gr, name);
    const obj = await check(current);
    const recheck = async (cur: StoredObject): Promise<T> => (cur.rv === current.rv ? obj : check(cur));
    if (req.dryRun) return { served: { key, value: current.value, object: obj }, deleted: true };
    try {
      if ((obj.metadata.finalizers?.length ?? 0) > 0) {
        const res = await this.#o.storage.guaranteedUpdate(key, {
          tryUpdate: async (cur) => {
            if (!cur) throw newNotFound(gr, name);
            const next = structuredClone(await recheck(cur));
            if (!next.metadata.deletionTimestamp) {
              next.metadata.deletionTimestamp = formatTime(this.#now());
              next.metadata.deletionGracePeriodSeconds = 0;
            }
            next.metadata.resourceVersion = String(cur.rv);
            return this.#withTTL(next);
          },
        });
        return { served: served(res.stored), deleted: false };
      }
      const gone = await this.#o.storage.delete(key, { validateDeletion: async (cur) => void (await recheck(cur)) });
      return { served: served(gone), deleted: true };
    } catch (e) {
      throw interpretStorageError(e, gr, name);
    }
  }

  /**
   * The unsafe delete (`ignoreStoreReadErrorWithClusterBreakingPotential`, upstream's corruptObjectDeleter): removes
   * an object whose stored value cannot be read, without preconditions, finalizers or admission (there is no object
   * to give them). Refused with upstream's Invalid when the object reads fine or is absent, so the option can never
   * bypass those checks for a healthy object. Returns whether this call deleted it.
   */
  async deleteCorrupt(namespace: string, name: string): Promise<boolean> {
    const key = this.key(namespace, name);
    const gr = this.#o.groupResource;
    let corrupt = false;
    try {
      // From the backend, not the cache: the object must be unreadable now.
      await this.#o.storage.getObject(key, undefined);
    } catch (e) {
      if (!(e instanceof StorageError && e.code === 'Corrupt')) throw interpretStorageError(e, gr, name);
      corrupt = true;
    }
    if (!corrupt) {
      throw newInvalid({ group: gr.group, kind: gr.resource }, name, [
        invalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, 'is exclusively used to delete corrupt object(s), try again by removing this option'),
      ]);
    }
    try {
      await this.#o.storage.delete(key, { ignoreStoreReadError: true });
      return true;
    } catch (e) {
      // Gone meanwhile: the delete succeeded, by someone else.
      if (e instanceof StorageError && e.code === 'KeyNotFound') return false;
      throw interpretStorageError(e, gr, name);
    }
  }

  /**
   * DELETECOLLECTION: list with the request's options (all pages unless a limit was given), then delete each item
   * with the same preconditions and validation; items already gone are skipped. Returns what was deleted, as listed.
   */
  async deleteCollection(namespace: string, deleteValidation: ValidateObjectFunc<T> | undefined, req: DeleteRequest, listOpts: ListOptions): Promise<ListResult> {
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
      const { namespace: ns, name } = this.#keyParts(item.key);
      try {
        await this.delete(ns, name, deleteValidation, req);
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

  #keyParts(key: string): { namespace: string; name: string } {
    const rest = key.slice(this.#o.keyRoot.length + 1);
    if (!this.#o.strategy.namespaceScoped) return { namespace: '', name: rest };
    const slash = rest.indexOf('/');
    return { namespace: rest.slice(0, slash), name: rest.slice(slash + 1) };
  }
}

function andName(p: Predicate, name: string): Predicate {
  return { everything: false, matches: (a) => a.name === name && (p.everything || p.matches(a)) };
}

export type { Preconditions };
