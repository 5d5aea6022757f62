/**
 * The Table of Nodes (upstream `printers.go` printNode): Name, Status (from the Ready condition, plus
 * SchedulingDisabled for a cordoned node), Roles (node-role.kubernetes.io/ labels), Age, Version; `-o wide` adds the
 * addresses and what the node reports about itself.
 */
import type { Node } from '../../apis/core/v1/node-types.ts';
import type { TableColumnDefinition } from '../../apis/meta/v1/types.ts';
import { humanDuration } from '../../apimachinery/duration-human.ts';
import type { TableConvertor } from '../rest/table.ts';

const col = (name: string, description: string, priority = 0, format = ''): TableColumnDefinition => ({ name, type: 'string', format, description, priority });

const ADDRESSES = 'List of addresses reachable to the node. Queried from cloud provider, if available.';

export const NODE_COLUMNS: TableColumnDefinition[] = [
  col('Name', 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.', 0, 'name'),
  col('Status', 'The status of the node'),
  col('Roles', 'The roles of the node'),
  col('Age', 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.'),
  col('Version', 'Kubelet Version reported by the node.'),
  col('Internal-IP', ADDRESSES, 1),
  col('External-IP', ADDRESSES, 1),
  col('OS-Image', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
  col('Kernel-Version', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
  col('Container-Runtime', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
];

const ROLE_PREFIX = 'node-role.kubernetes.io/';
const ROLE_LABEL = 'kubernetes.io/role';

/** Upstream findNodeRoles: the suffixes of node-role.kubernetes.io/<role> labels and a kubernetes.io/role value, sorted. */
export function nodeRoles(node: Node): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith(ROLE_PREFIX)) {
      const role = k.slice(ROLE_PREFIX.length);
      if (role) roles.add(role);
    } else if (k === ROLE_LABEL && v !== '') roles.add(v);
  }
  return [...roles].sort();
}

/** Ready or NotReady from the Ready condition, Unknown without one; SchedulingDisabled when cordoned. */
export function nodeStatusText(node: Node): string {
  const status: string[] = [];
  const ready = node.status?.conditions?.findLast((c) => c.type === 'Ready');
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

function address(node: Node, type: string): string {
  return node.status?.addresses?.find((a) => a.type === type)?.address ?? '<none>';
}

function age(time: string | null | undefined, nowMs: number): string {
  const t = time ? Date.parse(time) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(nowMs - t);
}

export function nodeCells(node: Node, nowMs: number): unknown[] {
  const info = node.status?.nodeInfo;
  const roles = nodeRoles(node).join(',');
  return [
    node.metadata.name ?? '',
    nodeStatusText(node),
    roles || '<none>',
    age(node.metadata.creationTimestamp, nowMs),
    info?.kubeletVersion ?? '',
    address(node, 'InternalIP'),
    address(node, 'ExternalIP'),
    info?.osImage || '<unknown>',
    info?.kernelVersion || '<unknown>',
    info?.containerRuntimeVersion || '<unknown>',
  ];
}

export const NODE_TABLE: TableConvertor<Node> = { columns: NODE_COLUMNS, cells: nodeCells };
