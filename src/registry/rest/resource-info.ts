/** What discovery and OpenAPI need to know about one served resource (metav1.APIResource, plus its group/version). */
import { createHash } from 'node:crypto';

export interface APIResourceInfo {
  /** API group; '' for the core group. */
  group: string;
  version: string;
  /** Plural resource name, e.g. `events`. */
  resource: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  categories?: string[];
  /**
   * Opaque hash of the storage version. When absent, discovery derives it from group/version/kind;
   * pass '' for resources that are not stored (it is then left out).
   */
  storageVersionHash?: string;
  /** Subresources (`status`), listed as `<resource>/<name>` entries (legacy) or under the resource (aggregated). */
  subresources?: { name: string; kind: string; verbs: string[] }[];
}

/** Base64 of the first 8 bytes of SHA-256 of `<group>/<version>/<kind>` (kube's storage version hash). */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}
