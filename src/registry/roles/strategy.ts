/**
 * The Role strategy (upstream `pkg/registry/rbac/role/strategy.go`): namespaced, upstream's validation; PUT of a
 * missing object creates it and updates may leave out the resourceVersion, as upstream allows (`kubectl auth
 * reconcile` relies on both).
 */
import type { Role } from '../../apis/rbac/v1/types.ts';
import type { Strategy } from '../rest/strategy.ts';
import { validateRole } from '../rbac/validation.ts';

export const roleStrategy: Strategy<Role> = {
  namespaceScoped: true,
  prepareForCreate(): void {},
  validate: (obj) => validateRole(obj),
  allowCreateOnUpdate: true,
  prepareForUpdate(): void {},
  validateUpdate: (obj) => validateRole(obj),
  allowUnconditionalUpdate: true,
};
