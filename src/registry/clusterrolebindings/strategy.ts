/**
 * The ClusterRoleBinding strategy (upstream `pkg/registry/rbac/clusterrolebinding/strategy.go`): cluster-scoped, upstream's validation; PUT of a
 * missing object creates it and updates may leave out the resourceVersion, as upstream allows (`kubectl auth
 * reconcile` relies on both).
 */
import type { ClusterRoleBinding } from '../../apis/rbac/v1/types.ts';
import type { Strategy } from '../rest/strategy.ts';
import { defaultBinding } from '../rbac/defaults.ts';
import { validateBinding, validateBindingUpdate } from '../rbac/validation.ts';

export const clusterrolebindingStrategy: Strategy<ClusterRoleBinding> = {
  namespaceScoped: false,
  defaults: defaultBinding,
  prepareForCreate(): void {},
  validate: (obj) => validateBinding(obj, false),
  allowCreateOnUpdate: true,
  prepareForUpdate(): void {},
  validateUpdate: (obj, old) => validateBindingUpdate(obj, old, false),
  allowUnconditionalUpdate: true,
};
