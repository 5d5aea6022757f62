/**
 * core/v1 Node definitions (kubernetes/api `core/v1/types.go`): the subset of fields this server keeps, in Go
 * struct order, with upstream's list types and patch strategies (conditions and addresses merge by `type`).
 */
import { type Definition, type Definitions, bool, defineAll, int32, prop, ref, str, stringMap } from '../../../apimachinery/schema.ts';
import { OBJECT_META, TIME, listDefinition, metaDefinitions, typeMeta } from '../../meta/v1/schema.ts';
import { GROUP, VERSION } from './types.ts';
import { NODE_KIND, NODE_LIST_KIND } from './node-types.ts';

export const NODE = 'io.k8s.api.core.v1.Node';
export const NODE_LIST = 'io.k8s.api.core.v1.NodeList';
const NODE_SPEC = 'io.k8s.api.core.v1.NodeSpec';
const NODE_STATUS = 'io.k8s.api.core.v1.NodeStatus';
const TAINT = 'io.k8s.api.core.v1.Taint';
const NODE_CONDITION = 'io.k8s.api.core.v1.NodeCondition';
const NODE_ADDRESS = 'io.k8s.api.core.v1.NodeAddress';
const NODE_DAEMON_ENDPOINTS = 'io.k8s.api.core.v1.NodeDaemonEndpoints';
const DAEMON_ENDPOINT = 'io.k8s.api.core.v1.DaemonEndpoint';
const NODE_SYSTEM_INFO = 'io.k8s.api.core.v1.NodeSystemInfo';

/** Structs are written even when empty (Go's omitempty never drops a struct), as kubectl's -o yaml shows. */
/** A Go string without omitempty: always written, "" included. */
const s = (name: string, description: string) => prop(name, str(description), true);

export const nodeDefinitions: Definition[] = [
  {
    name: TAINT,
    description: 'The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.',
    required: ['key', 'effect'],
    properties: [
      prop('key', str('Required. The taint key to be applied to a node.'), true),
      prop('value', str('The taint value corresponding to the taint key.')),
      prop('effect', str('Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.'), true),
      prop('timeAdded', ref(TIME, 'TimeAdded represents the time at which the taint was added.')),
    ],
  },
  {
    name: NODE_SPEC,
    description: 'NodeSpec describes the attributes that a node is created with.',
    properties: [
      prop('podCIDR', str('PodCIDR represents the pod IP range assigned to the node.')),
      prop('podCIDRs', { type: 'array', items: str(), description: 'podCIDRs represents the IP ranges assigned to the node for usage by Pods on that node.', listType: 'set', patchStrategy: 'merge' }),
      prop('providerID', str('ID of the node assigned by the cloud provider in the format: <ProviderName>://<ProviderSpecificNodeID>')),
      prop('unschedulable', bool('Unschedulable controls node schedulability of new pods. By default, node is schedulable.')),
      prop('taints', { type: 'array', items: ref(TAINT), description: "If specified, the node's taints.", listType: 'atomic' }),
    ],
  },
  {
    name: NODE_CONDITION,
    description: 'NodeCondition contains condition information for a node.',
    required: ['type', 'status'],
    properties: [
      s('type', 'Type of node condition.'),
      s('status', 'Status of the condition, one of True, False, Unknown.'),
      prop('lastHeartbeatTime', ref(TIME, 'Last time we got an update on a given condition.')),
      prop('lastTransitionTime', ref(TIME, 'Last time the condition transit from one status to another.')),
      prop('reason', str("(brief) reason for the condition's last transition.")),
      prop('message', str('Human readable message indicating details about last transition.')),
    ],
  },
  {
    name: NODE_ADDRESS,
    description: "NodeAddress contains information for the node's address.",
    required: ['type', 'address'],
    properties: [s('type', 'Node address type, one of Hostname, ExternalIP or InternalIP.'), s('address', 'The node address.')],
  },
  {
    name: DAEMON_ENDPOINT,
    description: 'DaemonEndpoint contains information about a single Daemon endpoint.',
    required: ['Port'],
    properties: [prop('Port', int32('Port number of the given endpoint.'), true)],
  },
  {
    name: NODE_DAEMON_ENDPOINTS,
    description: 'NodeDaemonEndpoints lists ports opened by daemons running on the Node.',
    properties: [prop('kubeletEndpoint', ref(DAEMON_ENDPOINT, 'Endpoint on which Kubelet is listening.'), true)],
  },
  {
    name: NODE_SYSTEM_INFO,
    description: 'NodeSystemInfo is a set of ids/uuids to uniquely identify the node.',
    required: ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'],
    properties: [
      s('machineID', 'MachineID reported by the node.'),
      s('systemUUID', 'SystemUUID reported by the node.'),
      s('bootID', 'Boot ID reported by the node.'),
      s('kernelVersion', "Kernel Version reported by the node from 'uname -r'."),
      s('osImage', 'OS Image reported by the node from /etc/os-release.'),
      s('containerRuntimeVersion', 'ContainerRuntime Version reported by the node through runtime remote API.'),
      s('kubeletVersion', 'Kubelet Version reported by the node.'),
      s('kubeProxyVersion', 'Deprecated: KubeProxy Version reported by the node.'),
      s('operatingSystem', 'The Operating System reported by the node'),
      s('architecture', 'The Architecture reported by the node'),
    ],
  },
  {
    name: NODE_STATUS,
    description: 'NodeStatus is information about the current status of a node.',
    properties: [
      prop('capacity', stringMap('Capacity represents the total resources of a node.')),
      prop('allocatable', stringMap('Allocatable represents the resources of a node that are available for scheduling.')),
      prop('phase', str('NodePhase is the recently observed lifecycle phase of the node.')),
      prop('conditions', { type: 'array', items: ref(NODE_CONDITION), description: 'Conditions is an array of current observed node conditions.', listType: 'map', listMapKeys: ['type'], patchStrategy: 'merge', patchMergeKey: 'type' }),
      prop('addresses', { type: 'array', items: ref(NODE_ADDRESS), description: 'List of addresses reachable to the node.', listType: 'map', listMapKeys: ['type'], patchStrategy: 'merge', patchMergeKey: 'type' }),
      prop('daemonEndpoints', ref(NODE_DAEMON_ENDPOINTS, 'Endpoints of daemons running on the Node.'), true),
      prop('nodeInfo', ref(NODE_SYSTEM_INFO, 'Set of ids/uuids to uniquely identify the node.'), true),
    ],
  },
  {
    name: NODE,
    description: 'Node is a worker node. Each node will have a unique identifier in the cache (i.e. in etcd).',
    gvk: [{ group: GROUP, version: VERSION, kind: NODE_KIND }],
    properties: [
      ...typeMeta,
      prop('metadata', ref(OBJECT_META, "Standard object's metadata."), true),
      prop('spec', ref(NODE_SPEC, 'Spec defines the behavior of a node.'), true),
      prop('status', ref(NODE_STATUS, 'Most recently observed status of the node.'), true),
    ],
  },
  listDefinition(NODE_LIST, NODE, { group: GROUP, version: VERSION, kind: NODE_LIST_KIND }, 'NodeList is the whole list of all Nodes which have been registered with master.', 'List of nodes'),
];

export const NODE_DEFS: Definitions = defineAll([...metaDefinitions, ...nodeDefinitions]);
