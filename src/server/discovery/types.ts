/** What discovery and OpenAPI need to know about one served resource. */
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
}
