/**
 * Storage errors become Status errors here and nowhere else (upstream `storage/errors.go` InterpretCreateError,
 * InterpretUpdateError, InterpretDeleteError, InterpretWatchError). Anything that is not a StorageError passes
 * through unchanged: the store's own checks already throw Status errors.
 */
import {
  type GroupResource,
  StoreReadError,
  newAlreadyExists,
  newConflict,
  newInternalError,
  newNotFound,
  newResourceExpired,
  newUnclassified,
  qualifiedResource,
} from '../../apimachinery/errors.ts';
import { CorruptObjectsError, StorageError, corruptText } from '../../storage/interface.ts';

export function interpretStorageError(err: unknown, gr: GroupResource, name: string): unknown {
  if (!(err instanceof StorageError)) return err;
  switch (err.code) {
    case 'KeyNotFound':
      return newNotFound(gr, name);
    case 'KeyExists':
      return newAlreadyExists(gr, name);
    case 'Expired':
      return newResourceExpired(err.message);
    case 'Corrupt':
      return interpretCorrupt(err, gr);
    case 'TooLargeResourceVersion':
    case 'Internal':
      return newInternalError(err);
  }
}

/**
 * Stored values that cannot be read back, as upstream answers them (etcd3 corrupt-object handling): one object (a
 * get, an update or delete reading it) is a reason-less 500 carrying the storage error's text, which names the key;
 * a list that meets such objects is a 500 StoreReadError `failed to read one or more <resource> from the storage`
 * with one cause per object (its key as `field`), so clients and operators see exactly which objects to look at.
 */
function interpretCorrupt(err: StorageError, gr: GroupResource): unknown {
  if (!(err instanceof CorruptObjectsError)) return newUnclassified(corruptText(err));
  const causes = err.errors.map((e) => ({ reason: 'UnexpectedServerResponse', field: e.key, message: corruptText(e) }));
  if (err.truncated) causes.push({ reason: 'FieldValueTooMany', message: 'too many errors, the list is truncated' } as (typeof causes)[number]);
  const details = { ...(gr.group ? { group: gr.group } : {}), kind: gr.resource, name: 'list', causes };
  return new StoreReadError(`failed to read one or more ${qualifiedResource(gr)} from the storage`, details);
}

/** A watch that cannot start or go on from its revision (upstream's `too old resource version` 410). */
export function interpretWatchError(err: Error, compactedRevision: number): unknown {
  if (err instanceof StorageError && err.code === 'Expired') return newResourceExpired(`too old resource version: ${err.rv} (${compactedRevision})`);
  return err;
}

/** The Conflict a failed uid precondition gets, worded as upstream's storage error. */
export function uidPreconditionConflict(gr: GroupResource, name: string, key: string, want: string, have: string): unknown {
  return newConflict(
    gr,
    name,
    `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${want}, UID in object meta: ${have}`,
  );
}
