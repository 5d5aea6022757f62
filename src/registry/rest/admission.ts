/**
 * Admission at upstream's points of a write (`rest.AdmissionToValidateObjectFunc` and friends): the handlers run
 * the mutating plugins on the request's object (for updates, inside the store's retry loop, as a transformer of the
 * new object), and hand the store validation functions that run after the strategy's own validation. With no
 * plugin for an operation the functions are undefined, so an empty chain costs nothing per request.
 */
import type { AdmissionChain } from '../../admission/chain.ts';
import type { AdmissionUser, Attributes, Operation } from '../../admission/interfaces.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { ResourceScope } from './scope.ts';
import type { ValidateObjectFunc, ValidateObjectUpdateFunc } from './strategy.ts';
import type { TransformFunc } from './update.ts';

/** The request-level half of admission attributes; the object halves are filled at each call. */
export interface AdmissionRequest {
  scope: ResourceScope;
  namespace: string;
  name: string;
  user: AdmissionUser;
  dryRun: boolean;
  options?: object;
}

export function admissionAttributes(r: AdmissionRequest, operation: Operation, object: KubeObject | null, oldObject: KubeObject | null): Attributes {
  const s = r.scope;
  return {
    name: r.name || (object?.metadata.name ?? ''),
    namespace: r.namespace,
    resource: { group: s.group, version: s.version, resource: s.resource },
    subresource: '',
    kind: { group: s.group, version: s.version, kind: s.kind },
    operation,
    ...(r.options ? { operationOptions: r.options } : {}),
    dryRun: r.dryRun,
    object,
    oldObject,
    userInfo: r.user,
  };
}

/** Mutating admission of a create (the handler runs it before the store sees the object). */
export async function admitCreate(chain: AdmissionChain, r: AdmissionRequest, obj: KubeObject): Promise<void> {
  if (chain.mutates('CREATE')) await chain.admit(admissionAttributes(r, 'CREATE', obj, null));
}

/** Mutating admission of an update (or of the create an update turns into), as a transformer of the new object. */
export function admitUpdateTransform<T extends KubeObject>(chain: AdmissionChain, r: AdmissionRequest): TransformFunc<T>[] {
  if (!chain.mutates('UPDATE') && !chain.mutates('CREATE')) return [];
  return [
    async (next, current) => {
      const op: Operation = current === null ? 'CREATE' : 'UPDATE';
      if (chain.mutates(op)) await chain.admit(admissionAttributes(r, op, next, current));
      return next;
    },
  ];
}

export function createValidation<T extends KubeObject>(chain: AdmissionChain, r: AdmissionRequest): ValidateObjectFunc<T> | undefined {
  if (!chain.validates('CREATE')) return undefined;
  return (obj) => chain.validate(admissionAttributes(r, 'CREATE', obj, null));
}

export function updateValidation<T extends KubeObject>(chain: AdmissionChain, r: AdmissionRequest): ValidateObjectUpdateFunc<T> | undefined {
  if (!chain.validates('UPDATE')) return undefined;
  return (obj, old) => chain.validate(admissionAttributes(r, 'UPDATE', obj, old));
}

/** Validating admission of each deleted object (the store calls it with the object it is about to delete). */
export function deleteValidation<T extends KubeObject>(chain: AdmissionChain, r: AdmissionRequest): ValidateObjectFunc<T> | undefined {
  if (!chain.validates('DELETE')) return undefined;
  return (old) => chain.validate(admissionAttributes({ ...r, name: old.metadata.name ?? r.name }, 'DELETE', null, old));
}

/** Admission of a DELETE as a request, before any object is read (mutating, then — for collections — validating). */
export async function admitDelete(chain: AdmissionChain, r: AdmissionRequest, collection: boolean): Promise<void> {
  if (chain.mutates('DELETE')) await chain.admit(admissionAttributes(r, 'DELETE', null, null));
  if (collection && chain.validates('DELETE')) await chain.validate(admissionAttributes(r, 'DELETE', null, null));
}
