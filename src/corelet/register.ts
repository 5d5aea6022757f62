/**
 * Node registration (kubelet's API server mode): with --kubeconfig the corelet creates its core/v1 Node
 * (`POST /api/v1/nodes`; 409 AlreadyExists means it is registered already) and then reports the Node's status
 * every 10 s (kubelet's --node-status-update-frequency) with a merge patch of `/api/v1/nodes/<name>/status`:
 * the Ready condition with a fresh heartbeat, addresses and the serving port. Failures are logged and retried;
 * the agent keeps running its static pods whatever the API server does.
 */
import { cpus, totalmem } from 'node:os';
import { RestClient } from '../client/rest.ts';
import { nodeSystemInfo } from './node-info.ts';
import { discardEvents, type EventSink, type ObjectReference } from './event-sink.ts';
import type { Logger } from './runtime.ts';

type Obj = Record<string, any>;

/** kubelet's nodeRef: cluster-scoped (its Events go to `default`), its UID the node's name. */
export function nodeRef(nodeName: string): ObjectReference {
  return { apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeName };
}

/** The Node object the corelet registers: name, hostname label, capacity and system info of this machine. */
export function nodeObject(nodeName: string): Obj {
  const capacity = { cpu: String(cpus().length), memory: `${Math.floor(totalmem() / 1024)}Ki`, pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName, 'kubernetes.io/os': process.platform, 'kubernetes.io/arch': process.arch === 'x64' ? 'amd64' : process.arch } },
    spec: {},
    status: { capacity, allocatable: capacity, nodeInfo: nodeSystemInfo() },
  };
}

/** The status patch: Ready with a fresh heartbeat, the address and port the corelet serves on, the system info (kubelet posts it with every status, so a Node registered by an earlier version gets it too). */
export function statusPatch(nodeName: string, address: string, port: number, since: string, notReady?: string): Obj {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  // kubelet's ReadyCondition setter: NotReady with the runtime state's errors (e.g. an unhealthy PLEG).
  const ready = notReady === undefined
    ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'corelet is posting ready status' }
    : { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: notReady };
  return {
    status: {
      conditions: [{ ...ready, lastHeartbeatTime: now, lastTransitionTime: since }],
      addresses: [
        { type: 'InternalIP', address: address === '0.0.0.0' ? '127.0.0.1' : address },
        { type: 'Hostname', address: nodeName },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
      nodeInfo: nodeSystemInfo(),
    },
  };
}

/**
 * Registers the Node and keeps its status current. `NodeReady` is recorded when the Ready condition the corelet
 * posts differs from the one the Node had (a new Node has none), as kubelet's status setter does.
 */
export function registerNode(o: {
  client: RestClient;
  nodeName: string;
  port: number;
  address: string;
  log: Logger;
  intervalMs?: number;
  events?: EventSink;
  /** What keeps the node from being ready now (kubelet's runtime state errors), or undefined when nothing does. */
  notReady?: () => string | undefined;
}): { stop(): void; registered: Promise<void> } {
  const client = o.client;
  const events = o.events ?? discardEvents;
  let serverReady: string | undefined;
  // The Ready condition's last transition: when the status the corelet posts last changed.
  let since = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  let postedBefore: string | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let registered = false;
  let done!: () => void;
  const registeredP = new Promise<void>((r) => (done = r));
  const tick = async () => {
    try {
      if (!registered) {
        const r = await client.request('POST', '/api/v1/nodes', nodeObject(o.nodeName));
        if (r.status !== 201 && r.status !== 409) throw new Error(`registering node ${o.nodeName}: ${r.status} ${r.body.message ?? ''}`);
        if (r.status === 409) {
          const g = await client.request('GET', `/api/v1/nodes/${o.nodeName}`);
          if (g.status !== 200) throw new Error(`reading node ${o.nodeName}: ${g.status} ${g.body.message ?? ''}`);
          serverReady = readyStatus(g.body);
        }
        registered = true;
        o.log(0, `node ${o.nodeName} registered with ${client.config.server.origin}`);
      }
      const notReady = o.notReady?.();
      const status = notReady === undefined ? 'True' : 'False';
      if (postedBefore !== undefined && status !== postedBefore) since = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      postedBefore = status;
      const patch = statusPatch(o.nodeName, o.address, o.port, since, notReady);
      const r = await client.request('PATCH', `/api/v1/nodes/${o.nodeName}/status`, patch, 'application/merge-patch+json');
      if (r.status !== 200) throw new Error(`updating node ${o.nodeName} status: ${r.status} ${r.body.message ?? ''}`);
      const posted = readyStatus(patch)!;
      if (posted !== serverReady) {
        const reason = posted === 'True' ? 'NodeReady' : 'NodeNotReady';
        events.eventf(nodeRef(o.nodeName), undefined, 'Normal', reason, 'UpdateNodeStatus', `Node ${o.nodeName} status is now: ${reason}`);
        serverReady = posted;
      }
      done();
    } catch (e) {
      o.log(0, (e as Error).message);
    }
    if (!stopped) timer = setTimeout(() => void tick(), o.intervalMs ?? 10_000);
  };
  void tick();
  return {
    registered: registeredP,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

function readyStatus(node: Obj): string | undefined {
  return (node.status?.conditions as Obj[] | undefined)?.find((c) => c.type === 'Ready')?.status;
}
