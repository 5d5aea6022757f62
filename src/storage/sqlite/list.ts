/**
 * Prefix lists, at the latest revision (from `current`) or at an older one (latest log row per key at or below
 * it). Both walk the key range in keyset pages, so memory stays bounded by the result, not by the range, and a
 * selective predicate never pulls the whole range into one array. Runs synchronously, so every page sees the same
 * committed state; values the transformer can only read asynchronously make the pass a ListWait instead.
 */
import { StorageError, type ListOptions, type ListResult, type StoredObject } from '../interface.ts';
import type { StoredValues } from '../stored-values.ts';
import { isPromise } from '../value/transformer.ts';
import type { Statements } from './schema.ts';
import { TYPE_DELETED, prefixEnd } from './schema.ts';

const PAGE = 1000;

type CurrentRow = [key: string, rv: number, data: Buffer, expiresAt: number | null];
type HistoryRow = [key: string, rv: number, type: number, data: Buffer, expiresAt: number | null];

/**
 * A list pass that met values the transformer answered asynchronously: once `wait` has settled (it rejects with the
 * first value that cannot be read), the transformer has them and the list is made again.
 */
export class ListWait {
  /** Settles with the values found unreadable meanwhile (collectCorrupt), for the next pass. */
  constructor(readonly wait: Promise<Map<string, StorageError> | undefined>) {}
}

/**
 * Lists `prefix` at revision `at`; `latest` says that `at` is the committed head (served from `current`). Values are
 * read back through `values`; one it cannot read throws its StorageError.
 */
export function listAt(
  stmts: Statements,
  values: StoredValues,
  prefix: string,
  at: number,
  latest: boolean,
  opts: ListOptions,
  /** With collectCorrupt: values earlier passes found unreadable (`<rv>\0<key>` → error). */
  failed?: ReadonlyMap<string, StorageError>,
): ListResult | ListWait {
  const end = prefixEnd(prefix);
  const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
  const { predicate } = opts;
  // Without a predicate, limit+1 rows answer both the page and `more`.
  const pageSize = limit > 0 && !predicate ? Math.min(limit + 1, PAGE) : PAGE;
  /** Values being read asynchronously: this pass is then only made to collect them. */
  const waits: Promise<unknown>[] = [];
  const collect = opts.collectCorrupt === true;
  const corrupt: StorageError[] = [];
  const push = (objs: StoredObject[], key: string, rv: number, data: Buffer, exp: number | null): void => {
    // A value an earlier pass found unreadable (asynchronously) is not asked again: it is reported as it was.
    const known = failed?.get(`${rv}\0${key}`);
    if (known) return void corrupt.push(known);
    let value;
    try {
      value = values.read(key, rv, data);
    } catch (err) {
      if (collect && err instanceof StorageError && err.code === 'Corrupt') return void corrupt.push(err);
      throw err;
    }
    if (isPromise(value)) {
      // Collecting, an unreadable value must not fail the pass: its failure is remembered for the next one.
      waits.push(collect ? value.catch((err: unknown) => rememberFailure(key, rv, err)) : value);
    } else objs.push(exp === null ? { key, rv, value } : { key, rv, value, expiresAt: exp });
  };
  const rememberFailure = (key: string, rv: number, err: unknown): void => {
    if (!(err instanceof StorageError && err.code === 'Corrupt')) throw err;
    (failures ??= new Map()).set(`${rv}\0${key}`, err);
  };
  let failures: Map<string, StorageError> | undefined;
  /** One keyset page from `from`: the live objects in it, how many rows it held, and its last key. */
  const fetch = (from: string): { objs: StoredObject[]; rows: number; lastKey: string } => {
    const objs: StoredObject[] = [];
    if (latest) {
      const rows = stmts.listCurrent.all(from, end, pageSize) as CurrentRow[];
      for (const [key, rv, data, exp] of rows) push(objs, key, rv, data, exp);
      return { objs, rows: rows.length, lastKey: rows.length ? rows[rows.length - 1]![0] : from };
    }
    const rows = stmts.listAt.all(from, end, at, pageSize) as HistoryRow[];
    // Tombstones count towards the page (so keyset paging stays exact) but are no items.
    for (const [key, rv, type, data, exp] of rows) if (type !== TYPE_DELETED) push(objs, key, rv, data, exp);
    return { objs, rows: rows.length, lastKey: rows.length ? rows[rows.length - 1]![0] : from };
  };

  const items: StoredObject[] = [];
  let fetched = 0;
  let more = false;
  let from = opts.startKey !== undefined && opts.startKey > prefix ? opts.startKey : prefix;
  try {
    for (;;) {
      const page = fetch(from);
      fetched += page.objs.length;
      for (const obj of page.objs) {
        if (predicate && !predicate(obj)) continue;
        if (limit > 0 && items.length === limit) {
          more = true;
          break;
        }
        items.push(obj);
      }
      if (more || page.rows < pageSize) break;
      from = page.lastKey + '\0';
    }
  } catch (err) {
    for (const w of waits) w.catch(() => {}); // the list fails with this error
    throw err;
  }
  if (waits.length > 0) return new ListWait(Promise.all(waits).then(() => failures));

  const result: ListResult = { items, rv: at, more, fetched };
  if (collect) result.corrupt = corrupt;
  if (!predicate) {
    let remaining = 0;
    if (more) {
      const after = items[items.length - 1]!.key + '\0';
      remaining = latest ? (stmts.countCurrent.get(after, end) as number) : (stmts.countAt.get(after, end, at) as number);
    }
    result.remaining = remaining;
  }
  return result;
}
