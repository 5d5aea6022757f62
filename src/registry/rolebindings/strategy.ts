/**
 * The RoleBinding strategy (upstream `pkg/registry/rbac/rolebinding/strategy.go`): namespaced, upstream's validation; PUT of a
 * missing object creates it and updates may leave out the resourceVersion, as upstream allows (`kubectl auth
 * reconcile` relies on both).
 */
import type { RoleBinding } from '../../apis/rbac/v1/types.ts';
import type { Strategy } from '../rest/strategy.ts';
import { defaultBinding } from '../rbac/defaults.ts';
import { validateBinding, validateBindingUpdate } from '../rbac/validation.ts';

export const rolebindingStrategy: Strategy<RoleBinding> = {
  namespaceScoped: true,
  defaults: defaultBinding,
  prepareForCreate(): void {},
  validate: (obj) => validateBinding(obj, true),
  allowCreateOnUpdate: true,
  prepareForUpdate(): void {},
  validateUpdate: (obj, old) => validateBindingUpdate(obj, old, true),
  allowUnconditionalUpdate: true,
};
