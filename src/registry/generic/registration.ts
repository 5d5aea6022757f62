/**
 * A resource from one definition: its names, strategy, codec, schema, Table and selectable fields go in; a
 * started watch cache, a generic Store and the REST scope that routing, discovery and OpenAPI read come out
 * (upstream: a `registry.Store` literal plus its APIGroupInfo entry). A view of the same objects in another
 * group/version (core/v1 Events over events.cluster.io/v1) shares the cache of the resource it views.
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { Definitions } from '../../apimachinery/schema.ts';
import { FieldManager } from '../../apimachinery/managedfields/index.ts';
import { Cacher, type CacherOptions } from '../../storage/cacher/cacher.ts';
import type { CacherMetrics } from '../../storage/cacher/metrics.ts';
import type { StorageMetrics } from '../../storage/metrics.ts';
import type { CacheEntry, ObjectAttrs } from '../../storage/cacher/types.ts';
import type { Codec, Storage } from '../../storage/interface.ts';
import type { Scheme } from '../../storage/scheme.ts';
import type { APIResourceInfo } from '../rest/resource-info.ts';
import type { ResourceScope, ViewConversion } from '../rest/scope.ts';
import type { Strategy } from '../rest/strategy.ts';
import { DEFAULT_TABLE_CONVERTOR, type TableConvertor } from '../rest/table.ts';
import { Store } from './store.ts';

/** Every verb a resource serves unless its definition narrows them. */
export const STANDARD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** How selectors see a resource's objects. */
export interface SelectableFields<T extends KubeObject> {
  /** Field-selector labels clients may use (besides none: upstream answers others with 400). */
  labels: ReadonlySet<string>;
  attrs(obj: T): ObjectAttrs;
  /**
   * Builds the watch cache's entry of an object (default: an entry holding `attrs(obj)`). Lets a resource keep
   * entry and attributes in one compact object: at a million cached objects each object header counts.
   */
  entry?(key: string, rv: number, value: Buffer, obj: T): CacheEntry;
  /** Labels the cache indexes (lists pinning one to a value then skip the scan). */
  indexed?: string[];
}

export interface ResourceDefinition<T extends KubeObject> {
  group: string;
  version: string;
  kind: string;
  /** Default `<kind>List`. */
  listKind?: string;
  /** Plural, lower case: the last path segment. */
  resource: string;
  /** Default: the kind in lower case. */
  singular?: string;
  shortNames?: string[];
  categories?: string[];
  /** Default: STANDARD_VERBS. */
  verbs?: string[];
  strategy: Strategy<T>;
  /** Encodes and decodes the stored form. */
  codec: Codec & { decode(value: Buffer): T };
  /** Schema: every definition the object and list definitions reach (meta/v1 included). */
  defs: Definitions;
  definition: string;
  listDefinition: string;
  /** Default: `metadata.name`, and `metadata.namespace` for namespaced resources, as upstream. */
  selectableFields?: SelectableFields<T>;
  /** Default: upstream's Name / Created At convertor. */
  table?: TableConvertor<T>;
  /** Storage key root; default `/<resource>`. */
  keyRoot?: string;
  /** TTL (seconds) set on every write; absent or 0: objects live until deleted. */
  ttlSeconds?(): number;
  /** The kind Invalid errors name (upstream: the internal kind). Default: this group and kind. */
  qualifiedKind?: { group: string; kind: string };
  /** Discovery's storage version hash: absent = of this group/version/kind; '' = not stored. */
  storageVersionHash?: string;
  /** Record managedFields on writes (default true). */
  managedFields?: boolean;
  /** The kind's protobuf message, for clients that send bodies in protobuf (kubectl 1.32+ for typed kinds). */
  protobuf?: { decode(raw: Buffer): Record<string, unknown> };
}

export interface Registered<T extends KubeObject> {
  scope: ResourceScope<T>;
  store: Store<T>;
  /** The resource's Storage: the cacher over the shared backend (its watch cache serves the reads). */
  cacher: Cacher;
  /** How selectors see the stored objects (a view filters with the viewed resource's). */
  attrs(obj: KubeObject): ObjectAttrs;
}

export interface RegisterOptions {
  storage: Storage;
  /** The storage's codec when it serves several resources: the resource's codec is registered in it. */
  scheme?: Scheme;
  /** Watch cache settings beyond the definition's (tests use small histories). */
  cache?: Partial<Pick<CacherOptions, 'historyCapacity' | 'historyBytes' | 'snapshotLimit' | 'snapshotTTLms'>>;
  /** The cache lost its storage watch and relists (logged by the caller). */
  onError?(err: Error): void;
  /** The clock of creation and deletion timestamps (tests set it). */
  now?(): number;
  /** Where the resource's watch cache and its storage calls are recorded (labelled with its group and resource). */
  metrics?: { cache?: CacherMetrics; storage?: StorageMetrics };
}

/** What a view of another resource's objects adds: the conversion and the selector labels it translates. */
export interface ViewOptions {
  of: Registered<KubeObject>;
  convert: ViewConversion;
  /** This view's field labels → the stored version's. */
  fieldLabelMap?: ReadonlyMap<string, string>;
}

/** The selectable fields every object has (upstream DefaultNamespaceScopedAttr / DefaultClusterScopedAttr). */
export function defaultSelectableFields<T extends KubeObject>(namespaced: boolean): SelectableFields<T> {
  const labels = new Set(namespaced ? ['metadata.name', 'metadata.namespace'] : ['metadata.name']);
  return {
    labels,
    attrs: (obj) => {
      const m = obj.metadata;
      const namespace = m.namespace ?? '';
      const name = m.name ?? '';
      return {
        namespace,
        name,
        labels: m.labels,
        uid: m.uid ?? '',
        field: (label) => (label === 'metadata.name' ? name : label === 'metadata.namespace' && namespaced ? namespace : ''),
      };
    },
  };
}

/** Discovery's description of a defined resource (what its scope will carry, before any storage exists). */
export function resourceInfoOf<T extends KubeObject>(def: ResourceDefinition<T>): APIResourceInfo {
  return {
    group: def.group,
    version: def.version,
    resource: def.resource,
    singular: def.singular ?? def.kind.toLowerCase(),
    kind: def.kind,
    namespaced: def.strategy.namespaceScoped,
    verbs: def.verbs ?? STANDARD_VERBS,
    shortNames: def.shortNames ?? [],
    ...(def.categories?.length ? { categories: def.categories } : {}),
    ...(def.storageVersionHash !== undefined ? { storageVersionHash: def.storageVersionHash } : {}),
  };
}

/** Starts the resource's watch cache and builds its store and scope. */
export async function registerResource<T extends KubeObject>(def: ResourceDefinition<T>, opts: RegisterOptions): Promise<Registered<T>> {
  const fields = def.selectableFields ?? defaultSelectableFields<T>(def.strategy.namespaceScoped);
  const keyRoot = def.keyRoot ?? `/${def.resource}`;
  opts.scheme?.register(def.group ? `${def.group}/${def.version}` : def.version, def.kind, def.codec);
  const entry = fields.entry;
  const cacher = new Cacher({
    storage: opts.storage,
    prefix: `${keyRoot}/`,
    codec: def.codec,
    attrs: (obj) => fields.attrs(obj as T),
    ...(entry ? { entry: (key: string, rv: number, value: Buffer, obj: KubeObject) => entry(key, rv, value, obj as T) } : {}),
    indexedFields: fields.indexed ?? [],
    ...opts.cache,
    ...(opts.onError ? { onError: opts.onError } : {}),
    ...(opts.metrics ? { metrics: { group: def.group, resource: def.resource, ...opts.metrics } } : {}),
  });
  await cacher.start();
  return build(def, fields.labels, (obj) => fields.attrs(obj as T), keyRoot, cacher, undefined, opts.now);
}

/**
 * A second group/version of `view.of`'s objects: same storage, key root and watch cache (so objects,
 * resourceVersions and watches are shared), its own names, strategy, schema and Table, and a conversion on the way
 * in and out. Field selectors are translated to the viewed resource's labels.
 */
export function registerView<T extends KubeObject>(def: ResourceDefinition<T>, view: ViewOptions): Registered<T> {
  const labels = (def.selectableFields ?? defaultSelectableFields<T>(def.strategy.namespaceScoped)).labels;
  const keyRoot = view.of.store.prefix('').slice(0, -1);
  const r = build(def, labels, view.of.attrs, keyRoot, view.of.cacher, view.of.scope);
  r.scope.convert = view.convert;
  if (view.fieldLabelMap) r.scope.fieldLabelMap = view.fieldLabelMap;
  return r;
}

function build<T extends KubeObject>(
  def: ResourceDefinition<T>,
  labels: ReadonlySet<string>,
  attrs: (obj: KubeObject) => ObjectAttrs,
  keyRoot: string,
  cacher: Cacher,
  viewOf: ResourceScope | undefined,
  now?: () => number,
): Registered<T> {
  const groupVersion = def.group ? `${def.group}/${def.version}` : def.version;
  const codec = viewOf ? (viewOf.codec as Codec & { decode(value: Buffer): T }) : def.codec;
  const store = new Store<T>({
    groupResource: { group: def.group, resource: def.resource },
    qualifiedKind: def.qualifiedKind ?? { group: def.group, kind: def.kind },
    keyRoot,
    storage: cacher,
    codec,
    strategy: def.strategy,
    ...(def.ttlSeconds ? { ttlSeconds: def.ttlSeconds } : {}),
    attrs,
    ...(now ? { now } : {}),
    // A view records no managedFields for its non-apply writes: its objects are stored in the viewed version, whose
    // field paths its own schema does not describe.
    ...(def.managedFields !== false && !viewOf ? { fieldManager: new FieldManager({ defs: def.defs, rootDef: def.definition, apiVersion: groupVersion }) } : {}),
  });
  const table = (def.table ?? DEFAULT_TABLE_CONVERTOR) as TableConvertor<T>;
  const info = resourceInfoOf(def);
  const scope: ResourceScope<T> = {
    group: def.group,
    version: def.version,
    groupVersion,
    kind: def.kind,
    listKind: def.listKind ?? `${def.kind}List`,
    resource: def.resource,
    singular: info.singular,
    shortNames: info.shortNames,
    categories: info.categories ?? [],
    verbs: info.verbs,
    namespaced: info.namespaced,
    ...(def.storageVersionHash !== undefined ? { storageVersionHash: def.storageVersionHash } : {}),
    qualifiedKind: def.qualifiedKind ?? { group: def.group, kind: def.kind },
    store,
    codec,
    defs: def.defs,
    definition: def.definition,
    supportedFieldLabels: labels,
    tableColumns: table.columns,
    tableCells: (obj, now) => table.cells(obj as T, now),
    ...(table.rowWriter ? { tableRow: table.rowWriter } : {}),
    listDefinition: def.listDefinition,
    ...(def.protobuf ? { protobuf: def.protobuf } : {}),
  };
  return { scope, store, cacher, attrs };
}
