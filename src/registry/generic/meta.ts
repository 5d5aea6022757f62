/** Small pieces of the generic store: served values, system-metadata copying, delete preconditions. */
import type { KubeObject, Preconditions } from '../../apis/meta/v1/types.ts';
import { ConflictError, newBadRequest } from '../../apimachinery/errors.ts';
import type { StoredObject } from '../../storage/interface.ts';
import type { Served } from '../rest/served.ts';

export function served(s: StoredObject, obj?: KubeObject): Served {
  const o = s.object ?? obj;
  return o ? { key: s.key, value: s.value, object: o } : { key: s.key, value: s.value };
}

export function copyOrDelete<K extends 'creationTimestamp' | 'deletionTimestamp' | 'deletionGracePeriodSeconds' | 'generation'>(
  m: KubeObject['metadata'],
  o: KubeObject['metadata'],
  k: K,
): void {
  if (o[k] === undefined || o[k] === null) delete m[k];
  else m[k] = o[k];
}

/** DeleteOptions.preconditions (upstream messages name the internal kind, without group). */
export function checkPreconditions(kind: string, name: string, p: Preconditions | undefined, obj: KubeObject, rv: number): void {
  if (!p) return;
  const details = { name, kind };
  if (p.uid !== undefined && p.uid !== obj.metadata.uid) {
    throw new ConflictError(`Operation cannot be fulfilled on ${kind} "${name}": the UID in the precondition (${p.uid}) does not match the UID in record (${obj.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
      details,
    );
  }
  if (p.resourceVersion !== undefined && p.resourceVersion !== String(rv)) {
    throw new ConflictError(`Operation cannot be fulfilled on ${kind} "${name}": the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${rv}). The object might have been modified`,
      details,
    );
  }
}

/**
 * The object's namespace against the request's (upstream EnsureObjectNamespaceMatchesRequestNamespace with the
 * scope's expected namespace: '' for cluster-scoped resources, which clears any namespace the object carries).
 */
export function ensureNamespace(m: KubeObject['metadata'], expected: string): void {
  const ns = m.namespace ?? '';
  if (ns === expected) return;
  if (ns === '') m.namespace = expected;
  else if (expected === '') delete m.namespace;
  else throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
}
