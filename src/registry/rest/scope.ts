/**
 * One served resource at one group/version, as the REST handlers, discovery, OpenAPI and routing see it: its
 * names, its storage, its schema and codec, its Table and its selectable fields. A resource's registration builds
 * it (see the README's "Adding a resource"); nothing resource-specific lives outside its folder and this.
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { relabelFieldSelector } from '../../apimachinery/fields/relabel.ts';
import type { ListOptions } from '../../apimachinery/list-options.ts';
import type { Definitions } from '../../apimachinery/schema.ts';
import type { Codec } from '../../storage/interface.ts';
import type { APIResourceInfo } from './resource-info.ts';
import type { StandardStorage } from './rest.ts';
import type { TableColumn, TableRowWriter } from './table.ts';

export interface ResourceScope<T extends KubeObject = KubeObject> {
  group: string;
  version: string;
  groupVersion: string;
  kind: string;
  listKind: string;
  /** Plural resource name, the last path segment. */
  resource: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  namespaced: boolean;
  /** Discovery's storage version hash: absent = of this group/version/kind; '' = not stored. */
  storageVersionHash?: string;
  /** The kind named in Invalid errors (upstream names the internal kind: empty group). */
  qualifiedKind: { group: string; kind: string };
  store: StandardStorage<T>;
  /** Encodes and decodes the stored form (which is this scope's own form unless `convert` is set). */
  codec: Codec;
  defs: Definitions;
  definition: string;
  listDefinition: string;
  /** Field-selector labels this scope's clients may use. */
  supportedFieldLabels: ReadonlySet<string>;
  tableColumns: TableColumn[];
  tableCells(obj: KubeObject, nowMs: number): unknown[];
  /** Writes a Table row straight from stored bytes (large Table lists); absent: rows come from `tableCells`. */
  tableRow?: TableRowWriter;
  /**
   * Decodes this kind's protobuf message (`raw` of the request body's envelope) into its JSON form; absent: request
   * bodies in protobuf are refused with 415.
   */
  protobuf?: { decode(raw: Buffer): Record<string, unknown> };
  /**
   * For a view of objects stored in another version (core/v1 Events over events.cluster.io/v1): conversions
   * between the two. Absent when this scope serves the stored version itself.
   */
  convert?: ViewConversion;
  /**
   * Field labels of this view → the labels of the stored version's selectable fields (core/v1
   * `involvedObject.name` → `regarding.name`), so selectors of every view filter the same cached attributes.
   */
  fieldLabelMap?: ReadonlyMap<string, string>;
  /**
   * Subresources served at `{name}/<subresource>` with their own strategy and verbs (Node `status`), listed in
   * discovery as `<resource>/<subresource>`; absent: every subresource path is 404.
   */
  subresources?: Record<string, ResourceScope>;
  /** Connect subresources (Node `proxy`): the request is handed over whole, with the path after the subresource. */
  connect?: Record<string, Connecter>;
}

/** A connect subresource (upstream rest.Connecter): serves the raw request for the object `name`. */
export interface Connecter {
  /** Discovery's kind for it (upstream: the options kind, `NodeProxyOptions`). */
  kind: string;
  verbs: string[];
  connect(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, name: string, path: string, rawQuery: string): Promise<void>;
}

export interface ViewConversion {
  /** A request object of this scope's version → the stored version. */
  toStored(obj: KubeObject): KubeObject;
  /** Stored bytes → this scope's serialized form (memoized per stored value by `servedBytes`). */
  fromStored(value: Buffer): Buffer;
}

const converted = new WeakMap<Buffer, Buffer>();

/** The bytes a client of `scope` receives for a stored value; each stored value is converted at most once. */
export function servedBytes(scope: ResourceScope, value: Buffer): Buffer {
  const c = scope.convert;
  if (!c) return value;
  let out = converted.get(value);
  if (!out) {
    out = c.fromStored(value);
    converted.set(value, out);
  }
  return out;
}

/** A decoded request object in the stored version. */
export function toStored(scope: ResourceScope, obj: KubeObject): KubeObject {
  return scope.convert ? scope.convert.toStored(obj) : obj;
}

/** The stored object as this scope's clients see it (a converted view, or the object itself). */
export function toView(scope: ResourceScope, stored: KubeObject): Record<string, unknown> {
  if (!scope.convert) return stored;
  return JSON.parse(scope.convert.fromStored(scope.codec.encode(stored)).toString('utf8')) as Record<string, unknown>;
}

/** List options with the field selector in the stored version's labels (after the view's label check). */
export function toStoredListOptions<O extends ListOptions>(scope: ResourceScope, opts: O): O {
  if (!scope.fieldLabelMap || !opts.fieldSelector) return opts;
  return { ...opts, fieldSelector: relabelFieldSelector(opts.fieldSelector, scope.fieldLabelMap) };
}

/** The scope as discovery and OpenAPI list it. */
export function resourceInfo(scope: ResourceScope): APIResourceInfo {
  return {
    group: scope.group,
    version: scope.version,
    resource: scope.resource,
    singular: scope.singular,
    kind: scope.kind,
    namespaced: scope.namespaced,
    verbs: scope.verbs,
    shortNames: scope.shortNames,
    ...(scope.categories.length ? { categories: scope.categories } : {}),
    ...(scope.storageVersionHash !== undefined ? { storageVersionHash: scope.storageVersionHash } : {}),
    ...(scope.subresources || scope.connect
      ? {
          subresources: [
            ...Object.entries(scope.connect ?? {}).map(([name, c]) => ({ name, kind: c.kind, verbs: c.verbs })),
            ...Object.entries(scope.subresources ?? {}).map(([name, s]) => ({ name, kind: s.kind, verbs: s.verbs })),
          ],
        }
      : {}),
  };
}
