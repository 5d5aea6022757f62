/**
 * Value transformers at the storage boundary, as k8s.io/apiserver `pkg/storage/value`: a backend passes every value
 * it writes through `transformToStorage` and every value it reads through `transformFromStorage`, so that
 * encryption at rest (EncryptionConfiguration's providers, later) sits below every read and write path without any
 * of them knowing. The storage key is the authenticated data: a value copied under another key must not read back.
 *
 * Unlike upstream's blocking Go calls, an answer may be a Promise, because a KMS plugin is a remote call. Providers
 * that compute locally (identity, aesgcm, aescbc, secretbox, KMS v2 with its data key cached) answer synchronously,
 * and backends keep such answers on a synchronous path: a Promise per value would add a microtask to every row of a
 * list, and a list or the step where a watch goes live must read its rows in one synchronous step to be one
 * consistent state.
 */

/** Either a value now or the promise of one. */
export type MaybePromise<T> = T | Promise<T>;

/** What a transformation may bind a value to (upstream `value.Context`). */
export interface Context {
  /** The storage key the value lives under, when known (it picks the resource's transformer: by-resource.ts). */
  readonly key?: string;
  /**
   * Bytes that identify the value where it is stored: the storage key. A transformer that authenticates its output
   * (AEAD) binds it to these bytes, so a value moved to another key fails to read instead of passing for that
   * object.
   */
  authenticatedData(): Buffer;
}

/** A value read back from storage. */
export interface FromStorage {
  /** The bytes as they were before transformToStorage. */
  readonly data: Buffer;
  /**
   * The value was not written the way transformToStorage writes now (an older key or provider): the next write
   * must store it again even if the object is unchanged, so that a rotation can be completed by rewriting.
   */
  readonly stale: boolean;
}

/**
 * Transforms values on their way into and out of storage; each method undoes the other. A transformer that cannot
 * read a value throws (or rejects); the backend reports that as a StorageError `Corrupt` for the key.
 *
 * An answer given as a Promise must be cacheable: asked again about the same value after the promise has settled,
 * the transformer answers synchronously (a KMS v2 provider keeps the data keys it has decrypted). A backend that
 * needs a synchronous pass over many values waits for the promises of one pass and then makes another.
 */
export interface Transformer {
  transformFromStorage(data: Buffer, ctx: Context): MaybePromise<FromStorage>;
  transformToStorage(data: Buffer, ctx: Context): MaybePromise<Buffer>;
}

/**
 * The context of a value stored under `key` (the Storage interface's key, which picks the resource's transformer).
 * Its authenticated data (upstream `authenticatedDataString`) is the bytes of `where`, the value's full location in
 * the store: the key itself on SQLite, the etcd key (`--etcd-prefix` + key) on etcd, as upstream binds a value to
 * its etcd path.
 */
export class KeyContext implements Context {
  #data: Buffer | undefined;

  constructor(
    readonly key: string,
    readonly where: string = key,
  ) {}

  authenticatedData(): Buffer {
    // Made on first use: most transformers (identity) never ask.
    return (this.#data ??= Buffer.from(this.where));
  }
}

/**
 * A transformer that can write its output behind given leading bytes, into one buffer of its own: the prefix
 * transformers above it (prefix.ts) then prepend nothing, which saved a copy of every value per prefix level
 * (two for a provider's key). Synchronous transformers only; `transformToStorageAfter(EMPTY, …)` is
 * `transformToStorage`.
 */
export interface PrefixingTransformer extends Transformer {
  transformToStorageAfter(prefix: Buffer, data: Buffer, ctx: Context): Buffer;
}

export function writesAfterPrefix(t: Transformer): t is PrefixingTransformer {
  return typeof (t as Partial<PrefixingTransformer>).transformToStorageAfter === 'function';
}

export function isPromise<T>(v: MaybePromise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}
