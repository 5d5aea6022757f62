/**
 * meta.k8s.io/v1 Table conversion (upstream `registry/rest` TableConvertor and `rest.NewDefaultTableConvertor`): a
 * resource gives its columns and cells, or gets the default Name / Created At pair.
 */
import type { KubeObject, ListMeta, TableColumnDefinition } from '../../apis/meta/v1/types.ts';
import type { Served } from './served.ts';

export type TableColumn = TableColumnDefinition;

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Where a streamed body's pieces go (the server's chunk builder implements it). */
export interface ByteSink {
  /** Bytes [start, end) of `b`. */
  raw(b: Buffer, start: number, end: number): void;
  /** A string, UTF-8 encoded. */
  text(s: string): void;
  /** One byte (a separator). */
  byte(c: number): void;
  /** Bytes given as a latin1 string (one character per byte, as `toString('latin1')` reads them). */
  bytes(s: string): void;
}

/**
 * Writes one Table row's JSON (`{"cells":[…]}` plus `"object"` per `include`) for a listed item straight from its
 * bytes (or what its cache entry recorded about them), exactly as goJSON of the toTable row would be. `object` is
 * the row object's bytes for include=Object (the client's version). Returns false, having written nothing, when
 * the bytes are not in the shape it expects: the caller then renders the row from the decoded object.
 */
export type TableRowWriter = (item: Served, nowMs: number, include: IncludeObject, object: Buffer | undefined, out: ByteSink) => boolean;

/** How a resource's objects become Table rows. */
export interface TableConvertor<T extends KubeObject = KubeObject> {
  columns: TableColumn[];
  cells(obj: T, nowMs: number): unknown[];
  /** A faster writer of whole rows from stored bytes (large Table lists); absent: rows come from `cells`. */
  rowWriter?: TableRowWriter;
}

/** upstream's default convertor: the object's name and its creation time (RFC 3339, UTC; Go's zero time if unset). */
export const DEFAULT_TABLE_CONVERTOR: TableConvertor = {
  columns: [
    // The descriptions are ObjectMeta's own, as upstream takes them from its swagger docs.
    { name: 'Name', type: 'string', format: 'name', description: 'Name, unique within a namespace. Cannot be updated.', priority: 0 },
    { name: 'Created At', type: 'date', format: '', description: 'When the object was created. Set by the server.', priority: 0 },
  ],
  cells: (obj) => [obj.metadata.name ?? '', obj.metadata.creationTimestamp || '0001-01-01T00:00:00Z'],
};

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ListMeta;
  columnDefinitions: TableColumn[] | null;
  rows: { cells: unknown[]; object?: unknown }[];
}

/** The columns and cells a Table is built from (a resource scope carries them). */
export interface TableSource {
  tableColumns: TableColumn[];
  tableCells(obj: KubeObject, nowMs: number): unknown[];
}

export function toTable(
  scope: TableSource,
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
