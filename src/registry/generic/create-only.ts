/**
 * A resource that only answers creates and keeps nothing (upstream's reviews: a REST storage that implements
 * rest.Creater alone, e.g. SelfSubjectReview): the request object goes in, an answer computed from it and from
 * who asks comes out, and every other verb is absent from its routes, discovery and OpenAPI. The definition gives
 * names, schema and the answer; routing, decoding (JSON, YAML, protobuf where the kind has messages), admission,
 * negotiation and metrics are the generic handlers'.
 */
import type { AdmissionUser } from '../../admission/interfaces.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { encode } from '../../apimachinery/codec/encode.ts';
import { newBadRequest, newMethodNotAllowed } from '../../apimachinery/errors.ts';
import type { Definitions } from '../../apimachinery/schema.ts';
import type { StandardStorage } from '../rest/rest.ts';
import type { ResourceScope } from '../rest/scope.ts';
import { DEFAULT_TABLE_CONVERTOR } from '../rest/table.ts';
import { ensureNamespace } from './meta.ts';

export interface CreateOnlyDefinition<T extends KubeObject> {
  group: string;
  version: string;
  kind: string;
  resource: string;
  singular: string;
  namespaced: boolean;
  defs: Definitions;
  definition: string;
  /**
   * The kind's own checks of the request object, before admission validates it (upstream's reviews validate first
   * in their REST Create); throws the StatusError to answer.
   */
  validate?(obj: T, namespace: string): void;
  /** The answer to a create of `obj` (already decoded, checked and admitted) by `user` in `namespace`. */
  create(obj: T, user: AdmissionUser, namespace: string): KubeObject | Promise<KubeObject>;
  /** The kind's protobuf messages, if clients send it in protobuf. */
  protobuf?: { decode(raw: Buffer): Record<string, unknown> };
}

export function registerCreateOnly<T extends KubeObject>(def: CreateOnlyDefinition<T>): ResourceScope<T> {
  const groupVersion = def.group ? `${def.group}/${def.version}` : def.version;
  const codec = {
    encode: (obj: KubeObject) => encode(obj, def.defs, def.definition),
    decode: (value: Buffer) => JSON.parse(value.toString('utf8')) as T,
    setResourceVersion: (value: Buffer) => value,
  };
  const refuse = (): never => {
    throw newMethodNotAllowed();
  };
  const store: StandardStorage<T> = {
    key: () => '',
    prefix: () => '',
    decode: (s) => codec.decode(s.value),
    currentResourceVersion: () => 0,
    async create(namespace, obj, createValidation, opts) {
      // As upstream's create handler does for every resource: the object takes the request's namespace, a
      // different one is a 400, and a cluster-scoped kind's is cleared.
      ensureNamespace((obj.metadata ??= {}), def.namespaced ? namespace : '');
      def.validate?.(obj, namespace);
      if (createValidation) await createValidation(obj);
      // Upstream's REST answers 400 without a user in the context; the handlers always pass one.
      if (!opts.user) throw newBadRequest('no user present on request');
      const answer = await def.create(obj, opts.user, namespace);
      return { key: '', value: codec.encode(answer), object: answer };
    },
    get: refuse,
    list: refuse,
    watch: refuse,
    update: refuse,
    delete: refuse,
    deleteCorrupt: refuse,
    deleteCollection: refuse,
  };
  return {
    group: def.group,
    version: def.version,
    groupVersion,
    kind: def.kind,
    listKind: `${def.kind}List`,
    resource: def.resource,
    singular: def.singular,
    shortNames: [],
    categories: [],
    verbs: ['create'],
    namespaced: def.namespaced,
    storageVersionHash: '',
    qualifiedKind: { group: def.group, kind: def.kind },
    store,
    codec,
    defs: def.defs,
    definition: def.definition,
    // No list: OpenAPI and discovery read the verbs, never this.
    listDefinition: def.definition,
    supportedFieldLabels: new Set(),
    tableColumns: DEFAULT_TABLE_CONVERTOR.columns,
    tableCells: (obj, now) => DEFAULT_TABLE_CONVERTOR.cells(obj, now),
    ...(def.protobuf ? { protobuf: def.protobuf } : {}),
  };
}
