/** rbac.authorization.k8s.io/v1 ClusterRole: its definition and registration (upstream `pkg/registry/rbac/clusterrole/storage`). */
import { CLUSTER_ROLE, CLUSTER_ROLE_LIST, RBAC_DEFS } from '../../apis/rbac/v1/schema.ts';
import type { ClusterRole } from '../../apis/rbac/v1/types.ts';
import { GROUP, VERSION } from '../../apis/rbac/v1/types.ts';
import { CLUSTER_ROLE_PROTOBUF } from '../../apis/rbac/v1/protobuf.ts';
import { type Registered, type RegisterOptions, type ResourceDefinition, registerResource } from '../generic/registration.ts';
import { rbacCodec } from '../rbac/codec.ts';
import { clusterroleStrategy } from './strategy.ts';

export function clusterroleDefinition(): ResourceDefinition<ClusterRole> {
  return {
    group: GROUP,
    version: VERSION,
    kind: 'ClusterRole',
    resource: 'clusterroles',
    strategy: clusterroleStrategy,
    codec: rbacCodec<ClusterRole>(CLUSTER_ROLE),
    defs: RBAC_DEFS,
    definition: CLUSTER_ROLE,
    listDefinition: CLUSTER_ROLE_LIST,
    protobuf: CLUSTER_ROLE_PROTOBUF,
  };
}

export function registerClusterRoles(opts: RegisterOptions): Promise<Registered<ClusterRole>> {
  return registerResource(clusterroleDefinition(), opts);
}
