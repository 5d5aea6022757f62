/**
 * The transformer a backend is given when resources of several kinds share it (the RBAC group's database holds four):
 * each value goes through the transformer of the resource its key belongs to, found by the key's first segment
 * (`/roles/…` → roles), as upstream gives each resource's storage its own transformer. Keys of no configured
 * resource are stored as they are (identity, which still refuses to hand out encrypted bytes).
 *
 * The table can be replaced while serving (automatic reload of the encryption configuration): a value is written
 * with the table current when its write began, and reads always try every provider of the current table.
 */
import { identityTransformer } from './identity.ts';
import type { Context, FromStorage, MaybePromise, Transformer } from './transformer.ts';

/** `/roles/ns/name` → `/roles/`. */
export function keyRoot(key: string): string {
  const i = key.indexOf('/', 1);
  return i < 0 ? key : key.slice(0, i + 1);
}

export class ResourceTransformers implements Transformer {
  #byRoot: ReadonlyMap<string, Transformer>;
  /** The only entry when there is one (events.db): no key slicing per value. */
  #single: { root: string; t: Transformer } | undefined;

  constructor(byRoot: ReadonlyMap<string, Transformer> = new Map()) {
    this.#byRoot = byRoot;
    this.#single = undefined;
    this.replace(byRoot);
  }

  /** Installs a new table (key root with its trailing slash → transformer). */
  replace(byRoot: ReadonlyMap<string, Transformer>): void {
    this.#byRoot = byRoot;
    const [only] = byRoot;
    this.#single = byRoot.size === 1 && only ? { root: only[0], t: only[1] } : undefined;
  }

  #for(ctx: Context): Transformer {
    const key = ctx.key;
    if (key === undefined) return identityTransformer;
    const s = this.#single;
    if (s) return key.startsWith(s.root) ? s.t : identityTransformer;
    return this.#byRoot.get(keyRoot(key)) ?? identityTransformer;
  }

  transformFromStorage(data: Buffer, ctx: Context): MaybePromise<FromStorage> {
    return this.#for(ctx).transformFromStorage(data, ctx);
  }

  transformToStorage(data: Buffer, ctx: Context): MaybePromise<Buffer> {
    return this.#for(ctx).transformToStorage(data, ctx);
  }
}
