/**
 * core/v1 Node (`/api/v1/nodes`, cluster-scoped): the fields this server keeps, named and ordered as the Go structs
 * of kubernetes/api `core/v1/types.go` (the JSON key order clients see). Quantities are kept as their strings.
 */
import type { ListMeta, ObjectMeta } from '../../meta/v1/types.ts';

export const NODE_KIND = 'Node';
export const NODE_LIST_KIND = 'NodeList';
export const NODES_RESOURCE = 'nodes';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string | null;
}

export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  unschedulable?: boolean;
  taints?: Taint[];
}

export interface NodeCondition {
  type: string;
  status: string;
  lastHeartbeatTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

export interface NodeAddress {
  type: string;
  address: string;
}

export interface DaemonEndpoint {
  Port: number;
}

export interface NodeDaemonEndpoints {
  kubeletEndpoint?: DaemonEndpoint;
}

export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

export interface NodeStatus {
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
  phase?: string;
  conditions?: NodeCondition[];
  addresses?: NodeAddress[];
  daemonEndpoints?: NodeDaemonEndpoints;
  nodeInfo?: NodeSystemInfo;
}

export interface Node {
  kind?: string;
  apiVersion?: string;
  metadata: ObjectMeta;
  spec?: NodeSpec;
  status?: NodeStatus;
  [field: string]: unknown;
}

export interface NodeList {
  kind: 'NodeList';
  apiVersion: 'v1';
  metadata: ListMeta;
  items: Node[];
}
