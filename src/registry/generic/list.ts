/**
 * The LIST read path of the generic store: which revision a list is served at (unset = consistent read, "0" = any,
 * N = not older than N or exactly N), paging with continue tokens over a cache snapshot, and reading older
 * revisions from storage until they are compacted (then 410 Expired, with a fresh token for continues).
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { decodeContinue, encodeContinue } from '../../apimachinery/continue.ts';
import { newResourceExpired } from '../../apimachinery/errors.ts';
import type { ListOptions } from '../../apimachinery/list-options.ts';
import { parseResourceVersion } from '../../apimachinery/resource-version.ts';
import type { Cacher } from '../../storage/cacher/cacher.ts';
import type { CacheListView } from '../../storage/cacher/list-cursor.ts';
import type { ObjectAttrs, Predicate } from '../../storage/cacher/types.ts';
import { type Codec, type Storage, type StoredObject, StorageError } from '../../storage/interface.ts';
import { buildPredicate, hasSelectors } from './predicate.ts';
import type { ListResult, Served } from '../rest/served.ts';

export const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export interface ListSource {
  cacher: Cacher;
  storage: Storage;
  codec: Codec;
  attrs(obj: KubeObject): ObjectAttrs;
}

interface Page {
  items: Served[];
  rv: number;
  more: boolean;
  remaining?: number;
}

export async function listObjects(src: ListSource, prefix: string, opts: ListOptions): Promise<ListResult> {
  const predicate = buildPredicate(opts);
  const limit = opts.limit > 0 ? opts.limit : 0;
  let exactRV: number | undefined;
  let startKey: string | undefined;
  if (opts.continue) {
    const token = decodeContinue(opts.continue);
    startKey = prefix + token.start;
    if (token.rv > 0) exactRV = token.rv;
    else await src.cacher.waitForConsistentRead();
  } else {
    const rv = opts.resourceVersion;
    const match = opts.resourceVersionMatch ?? '';
    if (rv === undefined || rv === '') {
      await src.cacher.waitForConsistentRead();
    } else {
      const n = parseResourceVersion(rv);
      if (match === 'Exact' || (match === '' && limit > 0 && n > 0)) exactRV = n;
      else if (n > 0) await src.cacher.waitUntilFresh(n);
    }
  }
  const at = { ...(exactRV !== undefined ? { rv: exactRV } : {}), ...(startKey ? { startKey } : {}), predicate };
  if (limit === 0) {
    // A whole list from the cache is not collected: the writer walks its snapshot straight into the socket.
    const view = src.cacher.listView(prefix, at);
    if (view) return new ViewList(view, opts.shardSelector?.toString());
  } else {
    // So is an unfiltered page (what kubectl's walk by 500 asks for): the cache finds where it ends without a walk.
    const page = src.cacher.pageView(prefix, { ...at, limit });
    if (page) {
      const l = new ViewList(page, opts.shardSelector?.toString());
      if (page.more && page.lastKey !== undefined) {
        l.continue = encodeContinue(page.lastKey.slice(prefix.length) + '\0', page.rv);
        if (!hasSelectors(opts)) l.remainingItemCount = page.remaining;
      }
      return l;
    }
  }
  const page = await readPage(src, prefix, predicate, exactRV, startKey, limit, opts.continue);
  const result: ListResult = { items: page.items, resourceVersion: String(page.rv) };
  if (opts.shardSelector) result.shardSelector = opts.shardSelector.toString();
  if (page.more && page.items.length) {
    const last = page.items[page.items.length - 1]!.key;
    result.continue = encodeContinue(last.slice(prefix.length) + '\0', page.rv);
    if (!hasSelectors(opts) && page.remaining !== undefined) result.remainingItemCount = page.remaining;
  }
  return result;
}

async function readPage(
  src: ListSource,
  prefix: string,
  predicate: Predicate,
  exactRV: number | undefined,
  startKey: string | undefined,
  limit: number,
  continueToken: string | undefined,
): Promise<Page> {
  const fromCache = src.cacher.list(prefix, { ...(exactRV !== undefined ? { rv: exactRV } : {}), ...(startKey ? { startKey } : {}), limit, predicate });
  if (fromCache) return fromCache;
  // Neither the current revision nor a kept snapshot: read that revision from storage.
  try {
    const r = await src.storage.list(prefix, {
      rv: exactRV!,
      ...(startKey ? { startKey } : {}),
      limit,
      ...(predicate.everything ? {} : { predicate: (s: StoredObject) => predicate.matches(src.attrs(s.object ?? src.codec.decode(s.value))) }),
    });
    const out: Page = { items: r.items, rv: r.rv, more: r.more };
    if (r.remaining !== undefined) out.remaining = r.remaining;
    return out;
  } catch (e) {
    if (e instanceof StorageError && e.code === 'Expired') {
      if (continueToken) throw newResourceExpired(CONTINUE_EXPIRED, encodeContinue(decodeContinue(continueToken).start, -1));
      throw newResourceExpired('The resourceVersion for the provided list is too old.');
    }
    if (e instanceof StorageError && e.code === 'TooLargeResourceVersion') {
      await src.cacher.waitUntilFresh(exactRV!);
      return readPage(src, prefix, predicate, exactRV, startKey, limit, continueToken);
    }
    throw e;
  }
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
