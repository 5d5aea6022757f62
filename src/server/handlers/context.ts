/** What every REST handler gets: the request, its parsed info and identity, and the resource it addresses. */
import type { KubeObject, TableColumnDefinition } from '../../apis/meta/v1/types.ts';
import { relabelFieldSelector } from '../../apimachinery/fields/relabel.ts';
import type { ListOptions } from '../../apimachinery/list-options.ts';
import type { Definitions } from '../../apimachinery/schema.ts';
import type { Store } from '../../registry/generic/store.ts';
import type { Codec } from '../../storage/interface.ts';
import type { UserInfo } from '../../auth/authenticator/user.ts';
import type { Request, Response } from '../http-types.ts';
import type { RequestInfo } from '../request-info.ts';
import type { TableRowWriter } from './table.ts';

export type TableColumn = TableColumnDefinition;

/** One served resource at one group/version (upstream's RequestScope). */
export interface ResourceScope {
  group: string;
  version: string;
  groupVersion: string;
  kind: string;
  listKind: string;
  resource: string;
  store: Store;
  codec: Codec;
  defs: Definitions;
  definition: string;
  supportedFieldLabels: ReadonlySet<string>;
  tableColumns: TableColumn[];
  tableCells(obj: KubeObject, nowMs: number): unknown[];
  /** Writes a Table row straight from stored bytes (large Table lists); absent: rows come from `tableCells`. */
  tableRow?: TableRowWriter;
  /**
   * For a view of objects stored in another version (core/v1 Events over events.cluster.io/v1): conversions
   * between the two. Absent when this scope serves the stored version itself.
   */
  convert?: ViewConversion;
  /**
   * Field labels of this view → the labels of the stored version's selectable fields (core/v1
   * `involvedObject.name` → `regarding.name`), so selectors of every view filter the same cached attributes.
   */
  fieldLabelMap?: ReadonlyMap<string, string>;
}

export interface ViewConversion {
  /** A request object of this scope's version → the stored version. */
  toStored(obj: KubeObject): KubeObject;
  /** Stored bytes → this scope's serialized form (memoized per stored value by `servedBytes`). */
  fromStored(value: Buffer): Buffer;
}

const converted = new WeakMap<Buffer, Buffer>();

/** The bytes a client of `scope` receives for a stored value; each stored value is converted at most once. */
export function servedBytes(scope: ResourceScope, value: Buffer): Buffer {
  const c = scope.convert;
  if (!c) return value;
  let out = converted.get(value);
  if (!out) {
    out = c.fromStored(value);
    converted.set(value, out);
  }
  return out;
}

/** A decoded request object in the stored version. */
export function toStored(scope: ResourceScope, obj: KubeObject): KubeObject {
  return scope.convert ? scope.convert.toStored(obj) : obj;
}

/** List options with the field selector in the stored version's labels (after the view's label check). */
export function toStoredListOptions<T extends ListOptions>(scope: ResourceScope, opts: T): T {
  if (!scope.fieldLabelMap || !opts.fieldSelector) return opts;
  return { ...opts, fieldSelector: relabelFieldSelector(opts.fieldSelector, scope.fieldLabelMap) };
}

export interface RequestContext {
  req: Request;
  res: Response;
  query: URLSearchParams;
  info: RequestInfo;
  user: UserInfo;
  scope: ResourceScope;
  /** Warning headers to send (already in `299 - "..."` form is done by the writer). */
  warnings: string[];
}

/** `Warning: 299 - "<text>"` values, de-duplicated, within upstream's budget (4096 runes, then 256 each). */
export function warningHeaders(warnings: string[]): string[] {
  const unique = [...new Set(warnings)];
  let total = 0;
  for (const w of unique) total += [...w].length;
  const texts = total > 4096 ? unique.map((w) => ([...w].length > 256 ? [...w].slice(0, 256).join('') : w)) : unique;
  return texts.map((w) => `299 - "${w.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
}

export function setWarnings(ctx: RequestContext): void {
  if (ctx.warnings.length) ctx.res.setHeader('warning', warningHeaders(ctx.warnings));
}
