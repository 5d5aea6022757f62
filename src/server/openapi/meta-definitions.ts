/**
 * meta/v1 definitions that the REST operations refer to (request bodies, Status answers, watch frames, discovery)
 * but that are not part of any stored object, so src/apis/meta/v1/schema.ts does not hold them. Names are
 * upstream's: clients look them up by these names.
 */
import { type Definition, bool, int32, int64, prop, ref, str } from '../../apimachinery/schema.ts';
import { LIST_META } from '../../apis/meta/v1/schema.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const STATUS = `${META}.Status`;
export const STATUS_DETAILS = `${META}.StatusDetails`;
export const STATUS_CAUSE = `${META}.StatusCause`;
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const PRECONDITIONS = `${META}.Preconditions`;
export const PATCH = `${META}.Patch`;
export const WATCH_EVENT = `${META}.WatchEvent`;
export const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
export const API_RESOURCE = `${META}.APIResource`;
export const API_RESOURCE_LIST = `${META}.APIResourceList`;

const typeMeta = [
  prop('kind', str('REST resource name in CamelCase. Inferred by the server from the endpoint.')),
  prop('apiVersion', str('Versioned schema of this representation.')),
];

const strings = (description: string) => ({ type: 'array' as const, items: { type: 'string' as const }, description });

/**
 * The shared definitions. DeleteOptions and WatchEvent are registered in the core group and in every served group
 * version (as kube does), so they carry one GVK per group version.
 */
export function sharedMetaDefinitions(groupVersions: { group: string; version: string }[]): Definition[] {
  const everywhere = (kind: string) => [
    { group: '', version: 'v1', kind },
    ...groupVersions.filter((gv) => gv.group !== '').map((gv) => ({ group: gv.group, version: gv.version, kind })),
  ];
  return [
    {
      name: STATUS_CAUSE,
      description: 'One cause of a failed request, possibly naming the field at fault.',
      properties: [
        prop('reason', str('Machine-readable cause; empty when unknown.')),
        prop('message', str('Human-readable description of the cause.')),
        prop('field', str('The field that caused the error, as a JSON path such as items[0].name.')),
      ],
    },
    {
      name: STATUS_DETAILS,
      description: 'Extra data about a Status; which fields are set depends on the reason.',
      properties: [
        prop('name', str('Name of the resource the status is about.')),
        prop('group', str('Group of the resource the status is about.')),
        prop('kind', str('Kind of the resource the status is about.')),
        prop('uid', str('UID of the resource the status is about.')),
        prop('causes', { type: 'array', items: ref(STATUS_CAUSE), description: 'The individual causes of the failure.' }),
        prop('retryAfterSeconds', int32('Seconds to wait before retrying the operation.')),
      ],
    },
    {
      name: STATUS,
      description: 'The result of an operation that does not return an object.',
      gvk: [{ group: '', version: 'v1', kind: 'Status' }],
      properties: [
        ...typeMeta,
        prop('metadata', ref(LIST_META, 'Standard list metadata.')),
        prop('status', str('Success or Failure.')),
        prop('message', str('Human-readable description of the status.')),
        prop('reason', str('Machine-readable reason for a failure; empty when none applies.')),
        prop('details', ref(STATUS_DETAILS, 'Extended data whose shape depends on the reason.')),
        prop('code', int32('HTTP status code of this status.')),
      ],
    },
    {
      name: PRECONDITIONS,
      description: 'Conditions that must hold before an operation is carried out.',
      properties: [prop('uid', str('The object must have this UID.')), prop('resourceVersion', str('The object must have this resourceVersion.'))],
    },
    {
      name: DELETE_OPTIONS,
      description: 'Options for deleting an object.',
      gvk: everywhere('DeleteOptions'),
      properties: [
        ...typeMeta,
        prop('gracePeriodSeconds', int64('Seconds before the object is deleted; 0 deletes immediately.')),
        prop('preconditions', ref(PRECONDITIONS, 'Must hold before the deletion is carried out; otherwise 409 Conflict.')),
        prop('orphanDependents', bool('Deprecated; use propagationPolicy. Only one of the two may be set.')),
        prop('propagationPolicy', str('Garbage collection policy: Orphan, Background or Foreground.')),
        prop('dryRun', strings('When present, the deletion is not persisted. Valid value: All.')),
        prop('ignoreStoreReadErrorWithClusterBreakingPotential', bool('Deletes the object even if it cannot be read from storage.')),
      ],
    },
    {
      name: PATCH,
      description: 'A patch document; its media type says how it is applied.',
      properties: [],
    },
    {
      name: RAW_EXTENSION,
      description: 'An embedded object of any kind.',
      properties: [],
    },
    {
      name: WATCH_EVENT,
      description: 'One change notification of a watch stream.',
      required: ['type', 'object'],
      gvk: everywhere('WatchEvent'),
      properties: [
        prop('type', str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.')),
        prop('object', ref(RAW_EXTENSION, 'The object after the change, before a deletion, or a Status for ERROR.')),
      ],
    },
    {
      name: API_RESOURCE,
      description: 'One resource of a group version, as discovery lists it.',
      required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'],
      properties: [
        prop('name', str('Plural resource name.')),
        prop('singularName', str('Singular resource name.')),
        prop('namespaced', bool('Whether the resource lives in namespaces.')),
        prop('group', str('Group of the resource, when it differs from the list.')),
        prop('version', str('Version of the resource, when it differs from the list.')),
        prop('kind', str('Kind of the resource.')),
        prop('verbs', strings('Supported verbs.')),
        prop('shortNames', strings('Suggested short names.')),
        prop('categories', strings('Groups of resources this resource belongs to.')),
        prop('storageVersionHash', str('Opaque hash of the storage version.')),
      ],
    },
    {
      name: API_RESOURCE_LIST,
      description: 'The resources of one group version.',
      required: ['groupVersion', 'resources'],
      gvk: [{ group: '', version: 'v1', kind: 'APIResourceList' }],
      properties: [
        ...typeMeta,
        prop('groupVersion', str('The group version the list describes.')),
        prop('resources', { type: 'array', items: ref(API_RESOURCE), description: 'The resources.' }),
      ],
    },
  ];
}
