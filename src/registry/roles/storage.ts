/** rbac.authorization.k8s.io/v1 Role: its definition and registration (upstream `pkg/registry/rbac/role/storage`). */
import { ROLE, ROLE_LIST, RBAC_DEFS } from '../../apis/rbac/v1/schema.ts';
import type { Role } from '../../apis/rbac/v1/types.ts';
import { GROUP, VERSION } from '../../apis/rbac/v1/types.ts';
import { ROLE_PROTOBUF } from '../../apis/rbac/v1/protobuf.ts';
import { type Registered, type RegisterOptions, type ResourceDefinition, registerResource } from '../generic/registration.ts';
import { rbacCodec } from '../rbac/codec.ts';
import { roleStrategy } from './strategy.ts';

export function roleDefinition(): ResourceDefinition<Role> {
  return {
    group: GROUP,
    version: VERSION,
    kind: 'Role',
    resource: 'roles',
    strategy: roleStrategy,
    codec: rbacCodec<Role>(ROLE),
    defs: RBAC_DEFS,
    definition: ROLE,
    listDefinition: ROLE_LIST,
    protobuf: ROLE_PROTOBUF,
  };
}

export function registerRoles(opts: RegisterOptions): Promise<Registered<Role>> {
  return registerResource(roleDefinition(), opts);
}
