/**
 * One update path for PUT, PATCH and server-side apply (upstream `rest.UpdatedObjectInfo`): the store reads the
 * current object inside its optimistic retry loop and asks the request for the new one; a PUT answers with its
 * body, a patch and an apply compute theirs from the current object. Everything else — name and namespace checks,
 * preconditions, create-on-update, validation, TTL, no-op detection — is the store's, once.
 */
import type { KubeObject, Preconditions } from '../../apis/meta/v1/types.ts';

export interface UpdatedObjectInfo<T extends KubeObject> {
  /** Preconditions the request carries besides the object's own resourceVersion (a PUT's body uid). */
  preconditions?(): Preconditions | undefined;
  /**
   * The new object given the current one (a private copy the callee may change; null when nothing is stored).
   * Called again when the object changed underneath, so it must not have side effects.
   */
  updatedObject(current: T | null): T | Promise<T>;
}

/** Transforms the new object after the request produced it (upstream's TransformFunc; admission mutation). */
export type TransformFunc<T extends KubeObject> = (next: T, current: T | null) => T | Promise<T>;

/** A PUT: the request's object as it is, then the transformers in order (upstream DefaultUpdatedObjectInfo). */
export function defaultUpdatedObjectInfo<T extends KubeObject>(obj: T, ...transformers: TransformFunc<T>[]): UpdatedObjectInfo<T> {
  return {
    preconditions: () => (obj.metadata.uid ? { uid: obj.metadata.uid } : undefined),
    async updatedObject(current) {
      let next = structuredClone(obj);
      for (const t of transformers) next = await t(next, current);
      return next;
    },
  };
}
