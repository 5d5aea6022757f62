/** rbac.authorization.k8s.io/v1 RoleBinding: its definition and registration (upstream `pkg/registry/rbac/rolebinding/storage`). */
import { ROLE_BINDING, ROLE_BINDING_LIST, RBAC_DEFS } from '../../apis/rbac/v1/schema.ts';
import type { RoleBinding } from '../../apis/rbac/v1/types.ts';
import { GROUP, VERSION } from '../../apis/rbac/v1/types.ts';
import { ROLE_BINDING_PROTOBUF } from '../../apis/rbac/v1/protobuf.ts';
import { type Registered, type RegisterOptions, type ResourceDefinition, registerResource } from '../generic/registration.ts';
import { BINDING_TABLE } from '../rbac/binding-table.ts';
import { rbacCodec } from '../rbac/codec.ts';
import { rolebindingStrategy } from './strategy.ts';

export function rolebindingDefinition(): ResourceDefinition<RoleBinding> {
  return {
    group: GROUP,
    version: VERSION,
    kind: 'RoleBinding',
    resource: 'rolebindings',
    strategy: rolebindingStrategy,
    codec: rbacCodec<RoleBinding>(ROLE_BINDING),
    defs: RBAC_DEFS,
    definition: ROLE_BINDING,
    listDefinition: ROLE_BINDING_LIST,
    protobuf: ROLE_BINDING_PROTOBUF,
    table: BINDING_TABLE,
  };
}

export function registerRoleBindings(opts: RegisterOptions): Promise<Registered<RoleBinding>> {
  return registerResource(rolebindingDefinition(), opts);
}
