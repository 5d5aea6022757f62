/**
 * Storage errors become Status errors here and nowhere else (upstream `storage/errors.go` InterpretCreateError,
 * InterpretUpdateError, InterpretDeleteError, InterpretWatchError). Anything that is not a StorageError passes
 * through unchanged: the store's own checks already throw Status errors.
 */
import { type GroupResource, newAlreadyExists, newConflict, newInternalError, newNotFound, newResourceExpired } from '../../apimachinery/errors.ts';
import { StorageError } from '../../storage/interface.ts';

export function interpretStorageError(err: unknown, gr: GroupResource, name: string): unknown {
  if (!(err instanceof StorageError)) return err;
  switch (err.code) {
    case 'KeyNotFound':
      return newNotFound(gr, name);
    case 'KeyExists':
      return newAlreadyExists(gr, name);
    case 'Expired':
      return newResourceExpired(err.message);
    case 'TooLargeResourceVersion':
    case 'Corrupt':
    case 'Internal':
      return newInternalError(err);
  }
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
