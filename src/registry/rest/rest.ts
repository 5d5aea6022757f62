/**
 * The verbs a resource's storage offers the REST handlers (upstream `registry/rest/rest.go`: Creater, Getter,
 * Lister, Watcher, Updater, GracefulDeleter, CollectionDeleter), in one interface because every resource here
 * serves all of them. The generic store implements it; handlers depend only on this.
 */
import type { AdmissionUser } from '../../admission/interfaces.ts';
import type { KubeObject, Preconditions } from '../../apis/meta/v1/types.ts';
import type { ListOptions } from '../../apimachinery/list-options.ts';
import type { CacheWatch, WatchConsumer } from '../../storage/cacher/cacher.ts';
import type { ListResult, Served } from './served.ts';
import type { ValidateObjectFunc, ValidateObjectUpdateFunc } from './strategy.ts';
import type { UpdatedObjectInfo } from './update.ts';

export interface WriteOptions {
  dryRun: boolean;
  /** Who asks (upstream: the user in the request context), for storage that answers about its caller. */
  user?: AdmissionUser;
  /** The field manager of a create, update or non-apply patch (`?fieldManager`, else from the User-Agent). */
  manager?: string;
  /** Where the strategy's warnings go (sent as `Warning` headers). */
  warnings?: string[];
}

export interface DeleteRequest {
  dryRun: boolean;
  preconditions?: Preconditions;
}

export interface UpdateRequest<T extends KubeObject> extends WriteOptions {
  /** Runs once the new object is prepared and valid, when the update creates it (admission's validation). */
  createValidation?: ValidateObjectFunc<T>;
  /** Runs once the new object is prepared and valid, for a real update. */
  updateValidation?: ValidateObjectUpdateFunc<T>;
  /** Create a missing object even when the strategy does not allow create-on-update (server-side apply). */
  forceAllowCreate?: boolean;
  /** Record managedFields for this write as an Update by `manager` (not for apply, whose result carries them). */
  recordManagedFields?: boolean;
}

export interface StandardStorage<T extends KubeObject> {
  /** Storage key of the object; '' namespace for cluster-scoped resources. */
  key(namespace: string, name: string): string;
  /** Key prefix of a namespace's objects, or of all of them ('' namespace). */
  prefix(namespace: string): string;
  decode(s: Served): T;
  /** The newest revision the store has seen (what a periodic watch bookmark may claim). */
  currentResourceVersion(): number;

  /** POST: `namespace` is the request's ('' for cluster-scoped resources). */
  create(namespace: string, obj: T, createValidation: ValidateObjectFunc<T> | undefined, opts: WriteOptions): Promise<Served>;
  /** GET with upstream resourceVersion semantics: unset = latest, "0" = any, N = at least N. */
  get(namespace: string, name: string, resourceVersion: string | undefined): Promise<Served>;
  list(namespace: string, opts: ListOptions): Promise<ListResult>;
  /**
   * A watch of `namespace` (all of them with ''), narrowed to one object by `name`, from the revision the options
   * ask for (initial events, a resume, or now); changes go to `consumer`.
   */
  watch(namespace: string, name: string, opts: ListOptions, consumer: WatchConsumer): Promise<CacheWatch>;
  /** PUT, PATCH and apply: `objInfo` gives the new object from the current one. */
  update(namespace: string, name: string, objInfo: UpdatedObjectInfo<T>, req: UpdateRequest<T>): Promise<{ served: Served; created: boolean }>;
  /**
   * DELETE: the deleted object at the deletion revision (`deleted: true`), or — while finalizers remain — the
   * object now carrying a deletionTimestamp (`deleted: false`).
   */
  delete(namespace: string, name: string, deleteValidation: ValidateObjectFunc<T> | undefined, req: DeleteRequest): Promise<{ served: Served; deleted: boolean }>;
  /**
   * The unsafe delete of an object whose stored value cannot be read (`ignoreStoreReadErrorWithClusterBreakingPotential`):
   * no preconditions, finalizers or admission; Invalid when the object reads fine. True when this call deleted it.
   */
  deleteCorrupt(namespace: string, name: string): Promise<boolean>;
  /** DELETECOLLECTION: what was deleted, as listed with `listOpts`. */
  deleteCollection(namespace: string, deleteValidation: ValidateObjectFunc<T> | undefined, req: DeleteRequest, listOpts: ListOptions): Promise<ListResult>;
}
