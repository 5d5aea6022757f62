/**
 * The Node strategies (upstream `pkg/registry/core/node/strategy.go`): cluster-scoped; the main resource never
 * changes status on update and the status subresource never changes spec, so a node agent reporting status and an
 * administrator cordoning the node do not overwrite each other. Status is kept on create: a node agent registers
 * its Node with its status in one request, as upstream allows.
 */
import type { Node } from '../../apis/core/v1/node-types.ts';
import type { Strategy } from '../rest/strategy.ts';
import { validateNode, validateNodeUpdate } from './validation.ts';

/** v1's podCIDR is podCIDRs[0] (upstream's conversion keeps the two in step). */
function syncPodCIDRs(node: Node): void {
  const spec = node.spec;
  if (!spec) return;
  if (!spec.podCIDRs?.length && spec.podCIDR) spec.podCIDRs = [spec.podCIDR];
  if (spec.podCIDRs?.length) spec.podCIDR = spec.podCIDRs[0]!;
}

export const nodeStrategy: Strategy<Node> = {
  namespaceScoped: false,
  defaults: syncPodCIDRs,
  prepareForCreate(): void {},
  validate: validateNode,
  allowCreateOnUpdate: false,
  prepareForUpdate(obj, old): void {
    if (old.status === undefined) delete obj.status;
    else obj.status = structuredClone(old.status);
  },
  validateUpdate: validateNodeUpdate,
  allowUnconditionalUpdate: true,
};

export const nodeStatusStrategy: Strategy<Node> = {
  ...nodeStrategy,
  prepareForUpdate(obj, old): void {
    if (old.spec === undefined) delete obj.spec;
    else obj.spec = structuredClone(old.spec);
  },
};
