/** meta/v1 definitions (names as upstream's OpenAPI, where clients look them up). */
import { type Definition, prop, str, int64, int64Pointer, bool, ref } from '../../../apimachinery/schema.ts';

export const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
export const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';
export const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
export const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
export const OWNER_REFERENCE = 'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference';
export const MANAGED_FIELDS_ENTRY = 'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry';
export const FIELDS_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1';

/** kind and apiVersion, the first two properties of every top-level object. */
export const typeMeta = [
  prop('kind', str('REST resource name in CamelCase. Inferred by the server from the endpoint. Cannot be updated.')),
  prop('apiVersion', str('Versioned schema of this representation. The server converts recognized schemas and may reject unrecognized values.')),
];

/** The `<Kind>List` definition of a kind: typeMeta, list metadata and the items (always emitted, as Go does). */
export function listDefinition(name: string, itemDefinition: string, gvk: { group: string; version: string; kind: string }, description: string, itemsDescription: string): Definition {
  return {
    name,
    description,
    required: ['items'],
    gvk: [gvk],
    properties: [
      ...typeMeta,
      prop('metadata', ref(LIST_META, 'Standard list metadata.'), true),
      prop('items', { type: 'array', items: ref(itemDefinition), description: itemsDescription }, true),
    ],
  };
}

export const metaDefinitions: Definition[] = [
  {
    name: TIME,
    description: 'A timestamp in RFC 3339 form, serialized in UTC with whole seconds.',
    properties: [],
    stringFormat: 'date-time',
  },
  {
    name: MICRO_TIME,
    description: 'A timestamp in RFC 3339 form with microsecond precision, serialized in UTC with exactly six fractional digits.',
    properties: [],
    stringFormat: 'micro-time',
  },
  {
    name: FIELDS_V1,
    description: 'The set of fields a manager owns, as a trie in the FieldsV1 encoding.',
    properties: [],
  },
  {
    name: OWNER_REFERENCE,
    description: 'Identifies an object that owns this one. The owner must be in the same namespace or be cluster-scoped.',
    structType: 'atomic',
    required: ['apiVersion', 'kind', 'name', 'uid'],
    properties: [
      prop('apiVersion', str('API version of the owner.')),
      prop('kind', str('Kind of the owner.')),
      prop('name', str('Name of the owner.')),
      prop('uid', str('UID of the owner.')),
      prop('controller', bool('True if the owner is the managing controller.')),
      prop('blockOwnerDeletion', bool('If true, the owner cannot be deleted from storage before this reference is removed.')),
    ],
  },
  {
    name: MANAGED_FIELDS_ENTRY,
    description: 'Records which workflow manages which fields of the object, at which API version.',
    properties: [
      prop('manager', str('Identifies the workflow managing these fields.')),
      prop('operation', str('The operation that created this entry: Apply or Update.')),
      prop('apiVersion', str('The API version in which the fields are expressed.')),
      prop('time', ref(TIME, 'When the fields were last changed by this manager.')),
      prop('fieldsType', str('The encoding of the field set; only FieldsV1.')),
      prop('fieldsV1', ref(FIELDS_V1, 'The owned fields.')),
      prop('subresource', str('The subresource used to update the object, empty for the main resource.')),
    ],
  },
  {
    name: OBJECT_META,
    description: 'Metadata that every persisted resource has.',
    properties: [
      prop('name', str('Name, unique within a namespace. Cannot be updated.')),
      prop('generateName', str('Prefix the server uses to generate a unique name when name is not given.')),
      prop('namespace', str('The namespace the object lives in. Cannot be updated.')),
      prop('selfLink', str('Deprecated and not set by the server.')),
      prop('uid', str('Unique in time and space; set by the server on create. Cannot be updated.')),
      prop('resourceVersion', str('Opaque version of the object, for optimistic concurrency, watches and lists. Set by the server.')),
      prop('generation', int64('Sequence number of the desired state. Not set for events.')),
      prop('creationTimestamp', ref(TIME, 'When the object was created. Set by the server.')),
      prop('deletionTimestamp', ref(TIME, 'When the object will be deleted. Set by the server when a deletion is requested and finalizers remain.')),
      prop('deletionGracePeriodSeconds', int64Pointer('Seconds allowed for graceful termination before deletion.')),
      prop('labels', { type: 'map', values: { type: 'string' }, description: 'Key/value pairs used to organize and select objects.', mapType: 'granular' }),
      prop('annotations', { type: 'map', values: { type: 'string' }, description: 'Unstructured key/value data for tools.', mapType: 'granular' }),
      prop('ownerReferences', {
        type: 'array',
        items: ref(OWNER_REFERENCE),
        description: 'Objects this object depends on.',
        listType: 'map',
        listMapKeys: ['uid'],
        patchStrategy: 'merge',
        patchMergeKey: 'uid',
      }),
      prop('finalizers', {
        type: 'array',
        items: { type: 'string' },
        description: 'Must be empty before the object is deleted from storage.',
        listType: 'set',
        patchStrategy: 'merge',
      }),
      prop('managedFields', {
        type: 'array',
        items: ref(MANAGED_FIELDS_ENTRY),
        description: 'Which managers own which fields. Maintained by the server.',
        listType: 'atomic',
      }),
    ],
  },
  {
    name: LIST_META,
    description: 'Metadata of a list.',
    properties: [
      prop('selfLink', str('Deprecated and not set by the server.')),
      prop('resourceVersion', str('The revision the list was read at.')),
      prop('continue', str('Set when more items are available; pass it back to get the next page.')),
      prop('remainingItemCount', int64('Number of items after this page, when known. An estimate.')),
    ],
  },
];
