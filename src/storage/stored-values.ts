/**
 * The bytes between a backend's database and its callers (see "Stored and served bytes" in interface.ts). Values
 * go in encoded without resourceVersion and through the transformer; they come out through the transformer and
 * with their revision's resourceVersion set. A backend turns every row it reads into served bytes here, so no
 * read path can skip a step, and every failure to read a value back becomes a StorageError Corrupt for its key (the
 * Storage interface's key on every backend, also where the value is bound to another context, as on etcd).
 */
import type { Codec } from './interface.ts';
import { StorageError } from './interface.ts';
import { KeyContext, isPromise, type FromStorage, type MaybePromise, type Transformer } from './value/transformer.ts';

/** A value read back from the database, as the write path needs it. */
export interface ReadValue {
  /** Served bytes: `plain` with resourceVersion = the row's revision. */
  readonly value: Buffer;
  /** The stored bytes with the transformer undone: the encoding without resourceVersion. */
  readonly plain: Buffer;
  /** The transformer asks for the value to be written again (see FromStorage.stale). */
  readonly stale: boolean;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// Errors are made by plain functions, never by closures per call: these paths run once per value, and a closure
// costs an allocation (and under tsx a defineProperty for its name) every time.
function notStorable(key: string, err: unknown): never {
  throw new StorageError('Internal', key, `unable to transform the value of ${key} for storage: ${message(err)}`);
}

function notTransformable(key: string, rv: number, err: unknown): never {
  // Upstream's wording (etcd3 corruptObjectError, whose revision is 0 for a value that does not transform): the
  // Status built from it (registry/generic/storage-errors.ts) names the key.
  throw new StorageError('Corrupt', key, `data from the storage is not transformable revision=0: ${message(err)}`, rv);
}

export class StoredValues {
  constructor(
    private readonly transformer: Transformer,
    private readonly codec: Codec,
  ) {}

  /**
   * The bytes to store for `plain` (an encoding without resourceVersion) under `key`. `context`: the authenticated
   * data the value is bound to when it is not the key itself (etcd: the full etcd key, prefix included); errors
   * always name `key`, the Storage interface's key.
   */
  toStorage(key: string, plain: Buffer, context = key): MaybePromise<Buffer> {
    let out: MaybePromise<Buffer>;
    try {
      out = this.transformer.transformToStorage(plain, new KeyContext(key, context));
    } catch (err) {
      return notStorable(key, err);
    }
    return isPromise(out) ? out.then(undefined, (err: unknown) => notStorable(key, err)) : out;
  }

  /** The served bytes of the row of `key` at revision `rv` holding `data` (`context`: as for toStorage). */
  read(key: string, rv: number, data: Buffer, context = key): MaybePromise<Buffer> {
    const r = this.fromStorage(key, rv, data, context);
    return isPromise(r) ? r.then((f) => this.served(key, rv, f.data)) : this.served(key, rv, r.data);
  }

  /** As `read`, keeping what the write path needs besides the served bytes. */
  readFull(key: string, rv: number, data: Buffer, context = key): MaybePromise<ReadValue> {
    const r = this.fromStorage(key, rv, data, context);
    if (isPromise(r)) return r.then((f) => ({ value: this.served(key, rv, f.data), plain: f.data, stale: f.stale }));
    return { value: this.served(key, rv, r.data), plain: r.data, stale: r.stale };
  }

  /** Served bytes of a stored encoding (the transformer already undone) at revision `rv`. */
  served(key: string, rv: number, plain: Buffer): Buffer {
    try {
      return this.codec.setResourceVersion(plain, rv);
    } catch (err) {
      throw new StorageError('Corrupt', key, `object not decodable revision=${rv}: ${message(err)}`, rv);
    }
  }

  private fromStorage(key: string, rv: number, data: Buffer, context: string): MaybePromise<FromStorage> {
    let r: MaybePromise<FromStorage>;
    try {
      r = this.transformer.transformFromStorage(data, new KeyContext(key, context));
    } catch (err) {
      return notTransformable(key, rv, err);
    }
    return isPromise(r) ? r.then(undefined, (err: unknown) => notTransformable(key, rv, err)) : r;
  }
}

/** True for the StorageError of a value that cannot be read back (what collectCorrupt and ignoreStoreReadError skip). */
export function isCorrupt(err: unknown): err is StorageError {
  return err instanceof StorageError && err.code === 'Corrupt';
}
