/** What the REST storage hands back: serialized objects (sent as they are) and lists of them. */
import type { KubeObject } from '../../apis/meta/v1/types.ts';

/** An object as served: its bytes, and the decoded form when at hand. */
export interface Served {
  key: string;
  value: Buffer;
  object?: KubeObject;
}

export interface ListResult {
  items: Served[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
  /** The canonical shard selector the list was filtered by (ListMeta.shardInfo). */
  shardSelector?: string;
}
