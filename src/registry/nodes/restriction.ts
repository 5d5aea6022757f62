/**
 * NodeRestriction for Nodes (upstream `plugin/pkg/admission/noderestriction` admitNode): the Node authorizer lets
 * every node write nodes; this keeps each node to its own Node object, keeps it from giving itself labels that steer
 * privileged workloads to it, and from changing its own taints. Always on here (upstream: enabled by cluster set-up
 * tools), beside RBAC escalation prevention, since without it any node could rewrite every other node.
 */
import { nodeIdentity } from '../../apis/core/v1/node-identity.ts';
import type { Node } from '../../apis/core/v1/node-types.ts';
import type { Attributes, Operation, ValidationInterface } from '../../admission/interfaces.ts';
import { newForbidden } from '../../apimachinery/errors.ts';
import { isDeepStrictEqual } from 'node:util';

const GR = { group: '', resource: 'nodes' };

/** Labels under kubernetes.io / k8s.io a node may set on itself (upstream's kubelet label allow-list). */
const ALLOWED_LABELS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'node.kubernetes.io/instance-type',
]);
const ALLOWED_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];
const RESTRICTED_PREFIX = 'node-restriction.kubernetes.io/';

function domainOf(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

/** Upstream getForbiddenLabels: node-restriction.kubernetes.io/*, and kubernetes.io/k8s.io labels outside the allow-list. */
function forbiddenLabels(keys: Iterable<string>): string[] {
  const out: string[] = [];
  for (const k of keys) {
    if (k.startsWith(RESTRICTED_PREFIX)) {
      out.push(k);
      continue;
    }
    const domain = domainOf(k);
    const kube = domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io') || domain === 'k8s.io' || domain.endsWith('.k8s.io');
    if (!kube || ALLOWED_LABELS.has(k) || ALLOWED_NAMESPACES.some((ns) => domain === ns || domain.endsWith(`.${ns}`))) continue;
    out.push(k);
  }
  return out.sort();
}

/** Keys added, removed or changed between two label maps (upstream getModifiedLabels). */
function modifiedLabels(a: Record<string, string> = {}, b: Record<string, string> = {}): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(a)) if (b[k] !== v) out.add(k);
  for (const k of Object.keys(b)) if (!(k in a)) out.add(k);
  return out;
}

export class NodeRestrictionPlugin implements ValidationInterface {
  handles(op: Operation): boolean {
    return op === 'CREATE' || op === 'UPDATE' || op === 'DELETE';
  }

  validate(a: Attributes): void {
    if (a.resource.group !== '' || a.resource.resource !== 'nodes') return;
    const { isNode, nodeName } = nodeIdentity(a.userInfo);
    if (!isNode) return;
    const name = a.name || (a.object?.metadata.name ?? '');
    if (!nodeName) throw newForbidden(GR, name, `could not determine node from user "${a.userInfo.name}"`);
    if (name !== nodeName) throw newForbidden(GR, name, `node "${nodeName}" is not allowed to modify node "${name}"`);
    if (a.operation === 'CREATE' && a.object) {
      const bad = forbiddenLabels(modifiedLabels((a.object as Node).metadata.labels, {}));
      if (bad.length) throw newForbidden(GR, name, `node "${nodeName}" is not allowed to set the following labels: ${bad.join(', ')}`);
    }
    if (a.operation === 'UPDATE' && a.object && a.oldObject) {
      const node = a.object as Node;
      const old = a.oldObject as Node;
      const bad = forbiddenLabels(modifiedLabels(node.metadata.labels, old.metadata.labels));
      if (bad.length) throw newForbidden(GR, name, `is not allowed to modify labels: ${bad.join(', ')}`);
      if (!isDeepStrictEqual(node.spec?.taints ?? [], old.spec?.taints ?? [])) throw newForbidden(GR, name, `node "${nodeName}" is not allowed to modify taints`);
    }
  }
}
