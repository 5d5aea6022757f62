/**
 * The ClusterRole strategy (upstream `pkg/registry/rbac/clusterrole/strategy.go`): cluster-scoped, upstream's validation; PUT of a
 * missing object creates it and updates may leave out the resourceVersion, as upstream allows (`kubectl auth
 * reconcile` relies on both).
 */
import type { ClusterRole } from '../../apis/rbac/v1/types.ts';
import type { Strategy } from '../rest/strategy.ts';
import { validateClusterRole } from '../rbac/validation.ts';

export const clusterroleStrategy: Strategy<ClusterRole> = {
  namespaceScoped: false,
  prepareForCreate(): void {},
  validate: (obj) => validateClusterRole(obj),
  allowCreateOnUpdate: true,
  prepareForUpdate(): void {},
  validateUpdate: (obj) => validateClusterRole(obj),
  allowUnconditionalUpdate: true,
};
