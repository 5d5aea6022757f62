/**
 * The storage interface, shaped like k8s.io/apiserver `pkg/storage/interfaces.go`: a flat key space of serialized
 * objects under one global, strictly increasing revision counter. The revision of a write is the object's
 * resourceVersion.
 *
 * Stored and served bytes. A backend may learn the revision of a write only when it commits (etcd's mod_revision),
 * so the bytes it stores never contain the resourceVersion: it encodes the object with `metadata.resourceVersion`
 * removed (upstream's `versioner.PrepareObjectForStorage`) and passes those bytes through its value transformer
 * (`value/`, keyed by the storage key). Every value it hands out (StoredObject.value, StorageEvent.value and
 * prevValue) is served bytes instead: the stored bytes, transformed back, with `"resourceVersion":"<rv>"` set in
 * place by `Codec.setResourceVersion` (upstream's `versioner.UpdateObject`, on bytes). The served bytes are what
 * clients receive, as they are: serialize once, reuse for get, list and watch (the watch cache keeps them).
 *
 * Why this way: writing the revision into the stored bytes would need it before the write (impossible for etcd)
 * or a second write after it; decoding and re-encoding every value read would cost a parse and an encode per
 * object. Setting the field in the bytes is a short scan to its place in ObjectMeta's field order plus one copy,
 * and gives exactly the bytes the encoder writes for the object with that resourceVersion, so nothing above
 * this interface sees a difference (byte offsets recorded in served values included).
 *
 * Backends: `sqlite/` (embedded default) and, later, `etcd3/`. Every backend passes the shared conformance suite in
 * `conformance.ts`. Keys look like `/events/<namespace>/<name>`; prefixes end with `/`.
 */
import type { KubeObject } from '../apis/meta/v1/types.ts';

/** Turns objects into the bytes that are stored and served, and back. Provided by the registry. */
export interface Codec {
  /**
   * Serializes `obj` as it is. Backends call it with metadata.resourceVersion removed (the stored form); an
   * object that carries one (a dry run's answer) is encoded with it, exactly as clients will receive it.
   */
  encode(obj: KubeObject): Buffer;
  decode(value: Buffer): KubeObject;
  /**
   * `value` (this codec's encoding of an object) with metadata.resourceVersion set to `rv` at its place in the
   * encoding, so that the result is byte for byte what `encode` writes for the object carrying that
   * resourceVersion. Replaces one already there. Throws when `value` is not such an encoding.
   */
  setResourceVersion(value: Buffer, rv: number): Buffer;
}

/** One object at one revision. */
export interface StoredObject {
  readonly key: string;
  /** Revision of the write that produced this value (= metadata.resourceVersion inside `value`). */
  readonly rv: number;
  /** The served bytes: the serialized object with its resourceVersion set (see the top of this file). Never mutated. */
  readonly value: Buffer;
  /** Epoch milliseconds at which the object expires, if it was written with a TTL. */
  readonly expiresAt?: number;
  /** The decoded object, when the backend still has it in hand (saves a parse); treat as read-only. */
  readonly object?: KubeObject;
}

export type StorageEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change, as delivered by `watch`. */
export interface StorageEvent {
  readonly type: StorageEventType;
  readonly key: string;
  /** Revision of this change. For DELETED: the revision of the deletion. */
  readonly rv: number;
  /**
   * Served bytes. ADDED/MODIFIED: the new value. DELETED: the last value with resourceVersion = the deletion
   * revision (what upstream sends to watchers).
   */
  readonly value: Buffer;
  readonly expiresAt?: number;
  readonly object?: KubeObject;
  /** The value before this change (MODIFIED and DELETED), when known: served bytes at its own revision. */
  readonly prevValue?: Buffer;
}

/** What a guaranteedUpdate callback returns: the new object and its TTL (a TTL is set on every write). */
export interface UpdateResult {
  object: KubeObject;
  ttlSeconds?: number;
}

export interface GuaranteedUpdateOptions {
  /**
   * Computes the new state from the current one (`null` when the key does not exist and `ignoreNotFound` is set).
   * May throw to abort (the error is passed through unchanged). May be called more than once when the object
   * changes underneath (optimistic retry), so it must not have side effects.
   */
  tryUpdate(current: StoredObject | null): UpdateResult | Promise<UpdateResult>;
  /** When the key is missing: call tryUpdate(null) and create (true), or throw KeyNotFound (false). */
  ignoreNotFound?: boolean;
}

export interface GuaranteedUpdateResult {
  stored: StoredObject;
  /** True when the key did not exist and was created. */
  created: boolean;
  /**
   * True when the new object encodes to the stored bytes (both without resourceVersion, as upstream compares them)
   * and the transformer did not report the stored value stale: nothing written, same revision, no event.
   */
  noop: boolean;
}

export interface DeleteOptions {
  /** Checks the current object before deleting it (preconditions); may throw to abort. Re-run on retry. */
  validateDeletion?(current: StoredObject): void | Promise<void>;
  /**
   * Delete the key even when its stored value cannot be read back (upstream's IgnoreStoreReadError, behind
   * `ignoreStoreReadErrorWithClusterBreakingPotential`, and the TTL sweep): for an unreadable value `validateDeletion`
   * gets the row's key and revision with an empty `value`, and the returned object and the DELETED change carry an
   * empty `value` and no `object`.
   */
  ignoreStoreReadError?: boolean;
}

export interface ListOptions {
  /** Read at exactly this revision (must not be compacted, must not be in the future). Unset: latest. */
  rv?: number;
  /** Only keys >= startKey (a continue token's key: the last returned key followed by "\0"). */
  startKey?: string;
  /** Maximum items to return; 0 or unset: all. */
  limit?: number;
  /** Only matching objects are returned and count towards `limit`. */
  predicate?(obj: StoredObject): boolean;
  /**
   * Values that cannot be read back are left out and reported in `ListResult.corrupt` instead of failing the
   * list (what lets a watch cache start while one object is unreadable).
   */
  collectCorrupt?: boolean;
}

export interface ListResult {
  items: StoredObject[];
  /** The revision the list was read at. */
  rv: number;
  /** True when more matching items follow the last one returned. */
  more: boolean;
  /** Items after the returned ones at `rv` (only computed when no predicate is given). */
  remaining?: number;
  /** Objects the backend read to answer, filtered out or beyond the page included (the storage list metrics). */
  fetched?: number;
  /** With `collectCorrupt`: the values in range that could not be read back (StorageError Corrupt), in key order. */
  corrupt?: StorageError[];
}

export interface WatchHandler {
  /** Called in revision order, each change once. */
  onEvent(ev: StorageEvent): void;
  /**
   * The store's revision has reached `rv` and every change under the prefix up to it has been delivered, though
   * none may have been under the prefix (upstream's watch progress notification). Lets a watch cache of one
   * resource answer consistent reads while other resources' writes move the shared revision on.
   */
  onProgress?(rv: number): void;
  /** The watch ended with an error (e.g. Expired when `fromRV` was compacted); no more events follow. */
  onError(err: Error): void;
}

export interface Watch {
  stop(): void;
}

export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  /** The requested revision has been compacted away. */
  | 'Expired'
  /** The requested revision is newer than the current one. */
  | 'TooLargeResourceVersion'
  /**
   * A stored value could not be read back: the transformer refused it (wrong key, tampered, unknown provider) or
   * it is not an encoding of an object (upstream ErrCodeCorruptObj). `key` names the value.
   */
  | 'Corrupt'
  | 'Internal';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    readonly rv = 0,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

/**
 * A list that met values it cannot read back (upstream's aggregatedStorageError): one Corrupt error per object, at
 * most MAX_CORRUPT_REPORTED of them, `truncated` when there were more.
 */
export class CorruptObjectsError extends StorageError {
  constructor(
    prefix: string,
    readonly errors: readonly StorageError[],
    readonly truncated: boolean,
  ) {
    super('Corrupt', prefix, `unable to transform or decode ${errors.length + (truncated ? 1 : 0)} objects: {\n${errors.map((e) => `\t${corruptText(e)}\n`).join('')}${truncated ? '\ttoo many errors, the list is truncated\n' : ''}}`);
    this.name = 'CorruptObjectsError';
  }

  /** Upstream aggregates the first 100 and marks the list truncated after them. */
  static of(prefix: string, errors: readonly StorageError[]): CorruptObjectsError {
    return new CorruptObjectsError(prefix, errors.slice(0, MAX_CORRUPT_REPORTED), errors.length > MAX_CORRUPT_REPORTED);
  }
}

export const MAX_CORRUPT_REPORTED = 100;

/** Upstream's StorageError text of a corrupt object (code 7): what its get answers and its list causes carry. */
export function corruptText(e: StorageError): string {
  return `StorageError: corrupt object, Code: 7, Key: ${e.key}, ResourceVersion: 0, AdditionalErrorMsg: ${e.message}`;
}

export interface Storage {
  /**
   * Backend name: `sqlite` names its health check (`/readyz/sqlite`); `etcd3` its storage spans, as upstream (etcd's
   * checks are upstream's `etcd` and `etcd-readiness`, one per cluster, registered where the clusters are known).
   */
  readonly name: string;

  /**
   * false when the backend cannot tell a watch cache reliably that it has caught up with a revision (etcd before
   * 3.4.31 / 3.5.13, whose watch progress answers can overtake queued events): consistent reads are then served by
   * the backend itself, as upstream's cacher delegates them when etcd lacks RequestWatchProgress. Unset: true.
   */
  readonly consistentReadsFromCache?: boolean;

  /**
   * Current value of `key`, or null. Always the latest committed state. A stored value that cannot be read back
   * fails every read that meets it (get, list, watch, and the reads of guaranteedUpdate and delete) with StorageError
   * Corrupt for its key.
   */
  get(key: string): Promise<StoredObject | null>;

  /**
   * Objects whose keys start with `prefix`, in byte order of key, as of revision `opts.rv` (latest if unset).
   * A revision at or below the compacted revision throws StorageError Expired; a future one TooLargeResourceVersion.
   */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;

  /**
   * Stores a new object. With `ttlSeconds` the backend deletes it once that time has passed since this write (an
   * ordinary DELETED change for watchers); every later write restarts the clock with its own TTL.
   * The object is encoded before its revision is known, without metadata.resourceVersion (removed from `obj`), so a
   * backend may assign the revision when the write commits; once it has, `obj.metadata.resourceVersion` is set to
   * it and the returned value carries it. Throws StorageError KeyExists when the key exists. The returned value is
   * durable per the backend's settings.
   */
  create(key: string, obj: KubeObject, ttlSeconds?: number): Promise<StoredObject>;

  /**
   * Read-modify-write with optimistic concurrency; see GuaranteedUpdateOptions. As with create, the new object is
   * encoded without resourceVersion (whatever tryUpdate left there is removed) and carries the new revision once
   * the write has committed.
   */
  guaranteedUpdate(key: string, opts: GuaranteedUpdateOptions): Promise<GuaranteedUpdateResult>;

  /**
   * Deletes `key`; returns the deleted object's last state with resourceVersion = the deletion revision.
   * KeyNotFound when absent.
   */
  delete(key: string, opts?: DeleteOptions): Promise<StoredObject>;

  /**
   * Delivers every change under `prefix` with revision > `fromRV`, first from history, then live. `fromRV` below
   * the compacted revision ends the watch at once with StorageError Expired through `onError`; a new value that
   * cannot be read back ends it with StorageError Corrupt. The deletion of a value that cannot be read back (see
   * DeleteOptions.ignoreStoreReadError; on etcd also a lease ending it) is a DELETED with an empty `value`; on etcd a
   * `prevValue` that cannot be read back is left out. Neither ends the watch.
   */
  watch(prefix: string, fromRV: number, handler: WatchHandler): Watch;

  /** Number of objects under `prefix` now. */
  count(prefix: string): Promise<number>;

  /** The revision of the latest committed write (0 for an empty store). */
  currentRevision(): Promise<number>;

  /** Drops history at and below `rv`; lists and watches from there on get Expired. */
  compact(rv: number): Promise<void>;

  /** Highest compacted revision (0 if none). */
  compactedRevision(): number;

  /** Throws when the backend cannot serve (used by /readyz). */
  readinessCheck(): Promise<void>;

  /** Flushes pending writes and releases resources; later calls fail. */
  close(): Promise<void>;
}
