/**
 * The LIST read path of the generic store: the request's continue token and selectors in, a ListResult out. Which
 * revision is served and from where (cache snapshot or storage) is the cacher's decision (storage/cacher/cacher.ts);
 * here a compacted revision becomes upstream's 410, with a fresh token for continues.
 */
import { decodeContinue, encodeContinue } from '../../apimachinery/continue.ts';
import { newResourceExpired } from '../../apimachinery/errors.ts';
import type { ListOptions } from '../../apimachinery/list-options.ts';
import type { Cacher, GetListResult } from '../../storage/cacher/cacher.ts';
import type { CacheListView } from '../../storage/cacher/list-cursor.ts';
import { StorageError } from '../../storage/interface.ts';
import { buildPredicate, hasSelectors } from './predicate.ts';
import type { ListResult, Served } from '../rest/served.ts';

export const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export async function listObjects(cacher: Cacher, prefix: string, opts: ListOptions): Promise<ListResult> {
  const token = opts.continue ? decodeContinue(opts.continue) : undefined;
  let r: GetListResult;
  try {
    r = await cacher.getList(prefix, {
      ...(opts.resourceVersion !== undefined ? { resourceVersion: opts.resourceVersion } : {}),
      ...(opts.resourceVersionMatch !== undefined ? { resourceVersionMatch: opts.resourceVersionMatch } : {}),
      limit: opts.limit,
      ...(token ? { continueFrom: { startKey: prefix + token.start, rv: token.rv } } : {}),
      predicate: buildPredicate(opts),
    });
  } catch (e) {
    if (e instanceof StorageError && e.code === 'Expired') {
      if (token) throw newResourceExpired(CONTINUE_EXPIRED, encodeContinue(token.start, -1));
      throw newResourceExpired('The resourceVersion for the provided list is too old.');
    }
    throw e;
  }
  const shard = opts.shardSelector?.toString();
  // A list from the cache is not collected: the writer walks its snapshot straight into the socket.
  const result: ListResult = r.view ? new ViewList(r.view, shard) : { items: r.items, resourceVersion: String(r.rv), ...(shard ? { shardSelector: shard } : {}) };
  if (r.more && r.lastKey !== undefined) {
    result.continue = encodeContinue(r.lastKey.slice(prefix.length) + '\0', r.rv);
    if (!hasSelectors(opts) && r.remaining !== undefined) result.remainingItemCount = r.remaining;
  }
  return result;
}

/**
 * A list or one page of it over a cache snapshot. Writers take `listCursor` and stream; `items` is collected from the
 * same snapshot only when someone asks for the array.
 */
class ViewList implements ListResult {
  readonly resourceVersion: string;
  readonly shardSelector?: string;
  continue?: string;
  remainingItemCount?: number;
  #items: Served[] | undefined;

  constructor(
    readonly view: CacheListView,
    shardSelector: string | undefined,
  ) {
    this.resourceVersion = String(view.rv);
    if (shardSelector) this.shardSelector = shardSelector;
  }

  get items(): Served[] {
    if (!this.#items) {
      const items: Served[] = [];
      this.view.cursor().next((e) => {
        items.push(e);
        return true;
      });
      this.#items = items;
    }
    return this.#items;
  }
}

/** Items of a list handed out in runs (see CacheCursor.next). */
export interface ServedCursor {
  next(visit: (s: Served) => boolean): boolean;
}

/** A walk over the list's items in order: straight from the cache snapshot when the list came from one. */
export function listCursor(l: ListResult): ServedCursor {
  if (l instanceof ViewList) return l.view.cursor();
  const items = l.items;
  let i = 0;
  return {
    next(visit) {
      while (i < items.length) if (!visit(items[i++]!)) return i < items.length;
      return false;
    },
  };
}
