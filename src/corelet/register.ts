/**
 * Node registration (kubelet's API server mode): with --kubeconfig the corelet creates its core/v1 Node
 * (`POST /api/v1/nodes`; 409 AlreadyExists means it is registered already) and then reports the Node's status
 * every 10 s (kubelet's --node-status-update-frequency) with a merge patch of `/api/v1/nodes/<name>/status`:
 * the Ready condition with a fresh heartbeat, addresses and the serving port. Failures are logged and retried;
 * the agent keeps running its static pods whatever the API server does.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { cpus, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Logger } from './runtime.ts';

export interface ClientConfig {
  server: URL;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
}

type Obj = Record<string, any>;

/** The current context's cluster and user from a kubeconfig (inline `*-data` or files relative to it). */
export function loadKubeconfig(path: string): ClientConfig {
  const cfg = parseYaml(readFileSync(path, 'utf8')) as Obj;
  const ctxName = cfg['current-context'];
  const ctx = (cfg.contexts as Obj[] | undefined)?.find((c) => c.name === ctxName)?.context ?? (cfg.contexts as Obj[] | undefined)?.[0]?.context;
  if (!ctx) throw new Error(`${path}: no context`);
  const cluster = (cfg.clusters as Obj[] | undefined)?.find((c) => c.name === ctx.cluster)?.cluster;
  const user = (cfg.users as Obj[] | undefined)?.find((u) => u.name === ctx.user)?.user ?? {};
  if (!cluster?.server) throw new Error(`${path}: cluster ${ctx.cluster} has no server`);
  const base = dirname(resolve(path));
  const pem = (data: unknown, file: unknown) =>
    typeof data === 'string' ? Buffer.from(data, 'base64').toString('utf8') : typeof file === 'string' ? readFileSync(resolve(base, file), 'utf8') : undefined;
  const out: ClientConfig = { server: new URL(cluster.server) };
  const ca = pem(cluster['certificate-authority-data'], cluster['certificate-authority']);
  if (ca) out.ca = ca;
  const cert = pem(user['client-certificate-data'], user['client-certificate']);
  const key = pem(user['client-key-data'], user['client-key']);
  if (cert && key) Object.assign(out, { cert, key });
  const token = typeof user.token === 'string' ? user.token : typeof user.tokenFile === 'string' ? readFileSync(resolve(base, user.tokenFile), 'utf8').trim() : undefined;
  if (token) out.token = token;
  return out;
}

/** One JSON request to the API server; resolves with the status code and decoded body. */
export function apiRequest(c: ClientConfig, method: string, path: string, body: unknown, contentType = 'application/json'): Promise<{ status: number; body: Obj }> {
  return new Promise((resolveReq, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      new URL(path, c.server),
      {
        method,
        ...(c.ca ? { ca: c.ca } : {}),
        ...(c.cert ? { cert: c.cert, key: c.key } : {}),
        headers: { 'Content-Type': contentType, Accept: 'application/json', 'User-Agent': 'corelet', ...(c.token ? { Authorization: `Bearer ${c.token}` } : {}) },
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          let parsed: Obj = {};
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj;
          } catch {
            // Not JSON (a proxy's error page): the status code says enough.
          }
          resolveReq({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(data);
  });
}

/** The Node object the corelet registers: name, hostname label, capacity of this machine. */
export function nodeObject(nodeName: string): Obj {
  const capacity = { cpu: String(cpus().length), memory: `${Math.floor(totalmem() / 1024)}Ki`, pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName, 'kubernetes.io/os': process.platform, 'kubernetes.io/arch': process.arch === 'x64' ? 'amd64' : process.arch } },
    spec: {},
    status: { capacity, allocatable: capacity },
  };
}

/** The status patch: Ready with a fresh heartbeat, the address and port the corelet serves on. */
export function statusPatch(nodeName: string, address: string, port: number, readySince: string): Obj {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'corelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: readySince }],
      addresses: [
        { type: 'InternalIP', address: address === '0.0.0.0' ? '127.0.0.1' : address },
        { type: 'Hostname', address: nodeName },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
    },
  };
}

export function registerNode(o: { kubeconfigPath: string; nodeName: string; port: number; address: string; log: Logger; intervalMs?: number }): { stop(): void; registered: Promise<void> } {
  const client = loadKubeconfig(o.kubeconfigPath);
  const readySince = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let registered = false;
  let done!: () => void;
  const registeredP = new Promise<void>((r) => (done = r));
  const tick = async () => {
    try {
      if (!registered) {
        const r = await apiRequest(client, 'POST', '/api/v1/nodes', nodeObject(o.nodeName));
        if (r.status !== 201 && r.status !== 409) throw new Error(`registering node ${o.nodeName}: ${r.status} ${r.body.message ?? ''}`);
        registered = true;
        o.log(0, `node ${o.nodeName} registered with ${client.server.origin}`);
      }
      const r = await apiRequest(client, 'PATCH', `/api/v1/nodes/${o.nodeName}/status`, statusPatch(o.nodeName, o.address, o.port, readySince), 'application/merge-patch+json');
      if (r.status !== 200) throw new Error(`updating node ${o.nodeName} status: ${r.status} ${r.body.message ?? ''}`);
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
