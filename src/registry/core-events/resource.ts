/** Core kinds listed in discovery beside the core/v1 Events view, without being served. */
import type { APIResourceInfo } from '../rest/resource-info.ts';

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
