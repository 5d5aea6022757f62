/** rbac.authorization.k8s.io/v1 ClusterRoleBinding: its definition and registration (upstream `pkg/registry/rbac/clusterrolebinding/storage`). */
import { CLUSTER_ROLE_BINDING, CLUSTER_ROLE_BINDING_LIST, RBAC_DEFS } from '../../apis/rbac/v1/schema.ts';
import type { ClusterRoleBinding } from '../../apis/rbac/v1/types.ts';
import { GROUP, VERSION } from '../../apis/rbac/v1/types.ts';
import { CLUSTER_ROLE_BINDING_PROTOBUF } from '../../apis/rbac/v1/protobuf.ts';
import { type Registered, type RegisterOptions, type ResourceDefinition, registerResource } from '../generic/registration.ts';
import { BINDING_TABLE } from '../rbac/binding-table.ts';
import { rbacCodec } from '../rbac/codec.ts';
import { clusterrolebindingStrategy } from './strategy.ts';

export function clusterrolebindingDefinition(): ResourceDefinition<ClusterRoleBinding> {
  return {
    group: GROUP,
    version: VERSION,
    kind: 'ClusterRoleBinding',
    resource: 'clusterrolebindings',
    strategy: clusterrolebindingStrategy,
    codec: rbacCodec<ClusterRoleBinding>(CLUSTER_ROLE_BINDING),
    defs: RBAC_DEFS,
    definition: CLUSTER_ROLE_BINDING,
    listDefinition: CLUSTER_ROLE_BINDING_LIST,
    protobuf: CLUSTER_ROLE_BINDING_PROTOBUF,
    table: BINDING_TABLE,
  };
}

export function registerClusterRoleBindings(opts: RegisterOptions): Promise<Registered<ClusterRoleBinding>> {
  return registerResource(clusterrolebindingDefinition(), opts);
}
