/** The core/v1 Event resource as discovery and OpenAPI describe it (one source for both). */
import { CORE_EVENT, CORE_EVENT_LIST, CORE_EVENTS_DEFS } from '../../apis/core/v1/schema.ts';
import { GROUP, KIND, RESOURCE, SHORT_NAMES, SINGULAR, VERSION } from '../../apis/core/v1/types.ts';
import * as eventsV1 from '../../apis/events/v1/types.ts';
import { storageVersionHash } from '../../server/discovery/documents.ts';
import type { APIResourceInfo } from '../../server/discovery/types.ts';
import type { OpenAPIResource } from '../../server/openapi/types.ts';

export const CORE_EVENTS_OPENAPI: OpenAPIResource = {
  info: {
    group: GROUP,
    version: VERSION,
    resource: RESOURCE,
    singular: SINGULAR,
    kind: KIND,
    namespaced: true,
    verbs: eventsV1.VERBS,
    shortNames: SHORT_NAMES,
    // Both views share one storage version, events.cluster.io/v1 (upstream both hash core v1's).
    storageVersionHash: storageVersionHash(eventsV1.GROUP, eventsV1.VERSION, eventsV1.KIND),
  },
  definition: CORE_EVENT,
  listDefinition: CORE_EVENT_LIST,
  definitions: CORE_EVENTS_DEFS,
};

/**
 * Kinds that Events are usually about, listed in core discovery with no verbs and not served. kubectl resolves
 * `kubectl events --for pod/p` (and `node/n`) to a kind through discovery before it builds the
 * `involvedObject.kind=Pod` selector, so without these entries `--for` fails with `the server doesn't have a
 * resource type "pod"`. An empty verb list tells clients that nothing can be done with them here.
 */
export const CORE_REFERENCE_KINDS: APIResourceInfo[] = [
  { group: '', version: 'v1', resource: 'nodes', singular: 'node', kind: 'Node', namespaced: false, verbs: [], shortNames: ['no'], storageVersionHash: '' },
  { group: '', version: 'v1', resource: 'pods', singular: 'pod', kind: 'Pod', namespaced: true, verbs: [], shortNames: ['po'], storageVersionHash: '' },
];
