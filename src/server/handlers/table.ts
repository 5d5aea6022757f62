/** meta.k8s.io/v1 Table output for get, list and watch (upstream `handlers/response.go` + the table convertor). */
import type { KubeObject, ListMeta } from '../../apis/meta/v1/types.ts';
import type { Served } from '../../registry/generic/store.ts';
import type { ByteSink } from './chunks.ts';
import type { ResourceScope } from './context.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ListMeta;
  columnDefinitions: ResourceScope['tableColumns'] | null;
  rows: { cells: unknown[]; object?: unknown }[];
}

export function toTable(
  scope: ResourceScope,
  objects: KubeObject[],
  meta: ListMeta,
  include: IncludeObject,
  withColumns = true,
  nowMs = Date.now(),
  /** Row objects as the client's version shows them (include=Object); defaults to `objects`. */
  rowObjects?: KubeObject[],
): Table {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: meta,
    columnDefinitions: withColumns ? scope.tableColumns : null,
    rows: objects.map((o, i) => {
      const row: { cells: unknown[]; object?: unknown } = { cells: scope.tableCells(o, nowMs) };
      if (include === 'Object') row.object = rowObjects?.[i] ?? o;
      else if (include === 'Metadata') row.object = partialObjectMetadata(o);
      return row;
    }),
  };
}

export function partialObjectMetadata(o: KubeObject): object {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

/**
 * Writes one Table row's JSON (`{"cells":[…]}` plus `"object"` per `include`) for a listed item straight from its
 * bytes (or what its cache entry recorded about them), exactly as goJSON of the toTable row would be. `object` is the row object's bytes for include=Object (the
 * client's version). Returns false, having written nothing, when the bytes are not in the shape it expects: the
 * caller then renders the row from the decoded object.
 */
export type TableRowWriter = (item: Served, nowMs: number, include: IncludeObject, object: Buffer | undefined, out: ByteSink) => boolean;
