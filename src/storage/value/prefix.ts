/**
 * Prefix transformers (upstream `value.NewPrefixTransformers`): a list of transformers, each owning a prefix of the
 * stored bytes. Writes go through the first and carry its prefix; a read is tried with every transformer whose
 * prefix the value starts with, in order, and the first that reads it wins. Used twice, as upstream: a provider's
 * keys (`<keyname>:`) and a resource's providers (`cluster:enc:aesgcm:v1:`, identity's empty prefix).
 *
 * A value read by any but the first transformer is stale (its key or provider is no longer the one writes use), so
 * the storage rewrites it on its next update and a rotation completes by rewriting every object.
 */
import { isPromise, writesAfterPrefix, type Context, type FromStorage, type MaybePromise, type Transformer } from './transformer.ts';

export interface PrefixTransformer {
  readonly prefix: Buffer;
  readonly transformer: Transformer;
}

/** Where the outer (per-resource) prefix transformers report each transformation (metrics.ts). */
export interface TransformationRecorder {
  /** `prefix`: the provider's prefix, `identity`, or `unknown` (nothing matched); `err` undefined on success. */
  record(type: 'from_storage' | 'to_storage', prefix: string, seconds: number, err: unknown): void;
}

/** Message of the aggregate of several errors (apimachinery utilerrors: one → itself, several → `[a, b]`). */
function aggregate(errs: unknown[]): Error {
  const texts = [...new Set(errs.map((e) => (e instanceof Error ? e.message : String(e))))];
  return texts.length === 1 && errs[0] instanceof Error ? errs[0] : new Error(texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`);
}

const IDENTITY_LABEL = 'identity';
const EMPTY = Buffer.alloc(0);

export class PrefixTransformers implements Transformer {
  readonly #list: readonly PrefixTransformer[];
  readonly #noMatch: string;
  readonly #rec: TransformationRecorder | undefined;
  readonly #labels: string[];
  /**
   * The write path with nested prefix transformers folded in: every prefix down to the first transformer that is
   * not one (a provider's `cluster:enc:aesgcm:v1:` then its first key's `key1:`), so the value is written once
   * behind all of them. An inner level that records metrics of its own is not folded.
   */
  readonly #writePrefix: Buffer;
  readonly #writer: Transformer;

  constructor(list: readonly PrefixTransformer[], noMatch: string, recorder?: TransformationRecorder) {
    if (list.length === 0) throw new Error('prefix transformers need at least one transformer');
    this.#list = list;
    this.#noMatch = noMatch;
    this.#rec = recorder;
    this.#labels = list.map((t) => (t.prefix.length === 0 ? IDENTITY_LABEL : t.prefix.toString('latin1')));
    const first = list[0]!;
    const inner = first.transformer;
    if (inner instanceof PrefixTransformers && !inner.#rec) {
      this.#writePrefix = Buffer.concat([first.prefix, inner.#writePrefix]);
      this.#writer = inner.#writer;
    } else {
      this.#writePrefix = first.prefix;
      this.#writer = inner;
    }
  }

  transformFromStorage(data: Buffer, ctx: Context): MaybePromise<FromStorage> {
    return this.#from(data, ctx, 0, [], this.#rec ? performance.now() : 0);
  }

  /** Tries transformers from index `from` on; `errs` holds the failures of those tried before. */
  #from(data: Buffer, ctx: Context, from: number, errs: unknown[], start: number): MaybePromise<FromStorage> {
    const list = this.#list;
    for (let i = from; i < list.length; i++) {
      const t = list[i]!;
      const p = t.prefix;
      if (p.length > data.length || (p.length > 0 && data.compare(p, 0, p.length, 0, p.length) !== 0)) continue;
      let r: MaybePromise<FromStorage>;
      try {
        r = t.transformer.transformFromStorage(p.length ? data.subarray(p.length) : data, ctx);
      } catch (err) {
        this.#failed(i, err, errs, start);
        continue;
      }
      if (isPromise(r)) {
        return r.then(
          (ok) => this.#read(i, ok, start),
          (err: unknown) => {
            this.#failed(i, err, errs, start);
            return this.#from(data, ctx, i + 1, errs, start);
          },
        );
      }
      return this.#read(i, r, start);
    }
    if (errs.length) throw aggregate(errs);
    const err = new Error(this.#noMatch);
    this.#rec?.record('from_storage', 'unknown', (performance.now() - start) / 1000, err);
    throw err;
  }

  #read(i: number, r: FromStorage, start: number): FromStorage {
    this.#rec?.record('from_storage', this.#labels[i]!, (performance.now() - start) / 1000, undefined);
    return i === 0 || r.stale ? r : { data: r.data, stale: true };
  }

  #failed(i: number, err: unknown, errs: unknown[], start: number): void {
    // Identity reading what another provider wrote is expected while migrating away from encryption (identity
    // listed first, the old provider after it): not an error of this read unless nothing else reads the value.
    if (this.#list[i]!.prefix.length === 0) return;
    this.#rec?.record('from_storage', this.#labels[i]!, (performance.now() - start) / 1000, err);
    errs.push(err);
  }

  transformToStorage(data: Buffer, ctx: Context): MaybePromise<Buffer> {
    const prefix = this.#writePrefix;
    const writer = this.#writer;
    const start = this.#rec ? performance.now() : 0;
    // `whole`: the value written behind the prefix already (see PrefixingTransformer), else `out` still lacks it.
    let whole: Buffer | undefined;
    let out: MaybePromise<Buffer>;
    try {
      if (writesAfterPrefix(writer)) out = whole = writer.transformToStorageAfter(prefix, data, ctx);
      else out = writer.transformToStorage(data, ctx);
    } catch (err) {
      this.#rec?.record('to_storage', this.#labels[0]!, (performance.now() - start) / 1000, err);
      throw err;
    }
    if (isPromise(out)) {
      return out.then(
        (b) => this.#written(prefix, b, start),
        (err: unknown) => {
          this.#rec?.record('to_storage', this.#labels[0]!, (performance.now() - start) / 1000, err);
          throw err;
        },
      );
    }
    return this.#written(whole ? EMPTY : prefix, out, start);
  }

  #written(prefix: Buffer, b: Buffer, start: number): Buffer {
    this.#rec?.record('to_storage', this.#labels[0]!, (performance.now() - start) / 1000, undefined);
    if (prefix.length === 0) return b;
    const out = Buffer.allocUnsafe(prefix.length + b.length);
    prefix.copy(out, 0);
    b.copy(out, prefix.length);
    return out;
  }
}
