/**
 * Static pod manifests: one core/v1 Pod per file (YAML or JSON) in `--pod-manifest-path`, as kubelet's file
 * source reads them. Only what the corelet uses is decoded and checked; a manifest that fails is reported by
 * file and field and skipped, never fatal.
 */
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { isDNS1123Label, isDNS1123Subdomain } from '../apimachinery/validation/content.ts';
import { parseQuantity, type Quantity } from '../cel/library-quantity.ts';
import { podQOS, type QOSClass, type Resources } from './cgroups.ts';

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

export interface Probe {
  exec?: { command: string[] };
  httpGet?: { path?: string; port: number | string; host?: string; scheme?: string };
  tcpSocket?: { port: number | string; host?: string };
  initialDelaySeconds: number;
  periodSeconds: number;
  timeoutSeconds: number;
  successThreshold: number;
  failureThreshold: number;
}

export interface ContainerSpec {
  name: string;
  command: string[];
  args: string[];
  env: Array<{ name: string; value: string }>;
  workingDir?: string;
  limits: Resources;
  requests: Resources;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
}

export interface StaticPod {
  name: string;
  namespace: string;
  uid: string;
  restartPolicy: RestartPolicy;
  terminationGracePeriodSeconds: number;
  containers: ContainerSpec[];
  qos: QOSClass;
  /** The file it came from. */
  source: string;
}

export class ManifestError extends Error {
  override name = 'ManifestError';
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function strings(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new ManifestError(`${field}: Invalid value: must be a list of strings`);
  return v as string[];
}

function int(v: unknown, field: string, def: number, min: number): number {
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new ManifestError(`${field}: Invalid value: ${JSON.stringify(v)}: must be an integer ≥ ${min}`);
  return v;
}

/** A quantity in the unit asked for (millicores or bytes), rounded up as apimachinery's MilliValue/Value do. */
function quantity(v: unknown, field: string, milli: boolean): number {
  let q: Quantity;
  try {
    if (typeof v === 'number') q = parseQuantity(String(v));
    else if (typeof v === 'string') q = parseQuantity(v);
    else throw new Error('must be a quantity');
  } catch (e) {
    throw new ManifestError(`${field}: Invalid value: ${JSON.stringify(v)}: ${(e as Error).message}`);
  }
  const exp = q.scale + (milli ? 3 : 0);
  let n: bigint;
  if (exp >= 0) n = q.value * 10n ** BigInt(exp);
  else {
    const div = 10n ** BigInt(-exp);
    n = q.value / div + (q.value % div > 0n ? 1n : 0n);
  }
  if (n < 0n) throw new ManifestError(`${field}: Invalid value: ${JSON.stringify(v)}: must be greater than or equal to 0`);
  return Number(n);
}

function resources(v: unknown, field: string): Resources {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw new ManifestError(`${field}: Invalid value: must be an object`);
  const out: Resources = {};
  if (v.cpu !== undefined) out.cpu = quantity(v.cpu, `${field}.cpu`, true);
  if (v.memory !== undefined) out.memory = quantity(v.memory, `${field}.memory`, false);
  return out;
}

function port(v: unknown, field: string): number | string {
  if (typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 65536) return v;
  if (typeof v === 'string' && v !== '') return v;
  throw new ManifestError(`${field}: Invalid value: ${JSON.stringify(v)}: must be a port number or name`);
}

function probe(v: unknown, field: string): Probe | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw new ManifestError(`${field}: Invalid value: must be an object`);
  const p: Probe = {
    initialDelaySeconds: int(v.initialDelaySeconds, `${field}.initialDelaySeconds`, 0, 0),
    periodSeconds: int(v.periodSeconds, `${field}.periodSeconds`, 10, 1),
    timeoutSeconds: int(v.timeoutSeconds, `${field}.timeoutSeconds`, 1, 1),
    successThreshold: int(v.successThreshold, `${field}.successThreshold`, 1, 1),
    failureThreshold: int(v.failureThreshold, `${field}.failureThreshold`, 3, 1),
  };
  const handlers = ['exec', 'httpGet', 'tcpSocket', 'grpc'].filter((h) => v[h] !== undefined);
  if (handlers.length !== 1) throw new ManifestError(`${field}: Required value: must specify exactly one handler type (exec, httpGet, tcpSocket)`);
  if (isObj(v.exec)) p.exec = { command: strings(v.exec.command, `${field}.exec.command`) };
  else if (isObj(v.httpGet)) p.httpGet = { path: typeof v.httpGet.path === 'string' ? v.httpGet.path : '/', port: port(v.httpGet.port, `${field}.httpGet.port`), scheme: typeof v.httpGet.scheme === 'string' ? v.httpGet.scheme : 'HTTP', ...(typeof v.httpGet.host === 'string' ? { host: v.httpGet.host } : {}) };
  else if (isObj(v.tcpSocket)) p.tcpSocket = { port: port(v.tcpSocket.port, `${field}.tcpSocket.port`), ...(typeof v.tcpSocket.host === 'string' ? { host: v.tcpSocket.host } : {}) };
  else throw new ManifestError(`${field}.${handlers[0]}: Unsupported value: the corelet runs exec, httpGet and tcpSocket probes`);
  return p;
}

function container(v: unknown, field: string): ContainerSpec {
  if (!isObj(v)) throw new ManifestError(`${field}: Invalid value: must be an object`);
  if (typeof v.name !== 'string' || v.name === '') throw new ManifestError(`${field}.name: Required value`);
  const nameErrs = isDNS1123Label(v.name);
  if (nameErrs.length) throw new ManifestError(`${field}.name: Invalid value: ${JSON.stringify(v.name)}: ${nameErrs.join(', ')}`);
  const command = strings(v.command, `${field}.command`);
  const args = strings(v.args, `${field}.args`);
  // There are no images: the process is the command (and args) itself.
  if (command.length === 0) throw new ManifestError(`${field}.command: Required value: the corelet runs processes, not images`);
  const env: Array<{ name: string; value: string }> = [];
  if (v.env !== undefined && v.env !== null) {
    if (!Array.isArray(v.env)) throw new ManifestError(`${field}.env: Invalid value: must be a list`);
    v.env.forEach((e, i) => {
      if (!isObj(e) || typeof e.name !== 'string' || e.name === '') throw new ManifestError(`${field}.env[${i}].name: Required value`);
      if (e.valueFrom !== undefined) throw new ManifestError(`${field}.env[${i}].valueFrom: Unsupported value: a static pod has no API objects to read`);
      env.push({ name: e.name, value: e.value === undefined || e.value === null ? '' : String(e.value) });
    });
  }
  if (v.workingDir !== undefined && typeof v.workingDir !== 'string') throw new ManifestError(`${field}.workingDir: Invalid value: must be a string`);
  const res = v.resources === undefined || v.resources === null ? {} : v.resources;
  if (!isObj(res)) throw new ManifestError(`${field}.resources: Invalid value: must be an object`);
  const limits = resources(res.limits, `${field}.resources.limits`);
  const requests = resources(res.requests, `${field}.resources.requests`);
  for (const r of ['cpu', 'memory'] as const) {
    if (requests[r] !== undefined && limits[r] !== undefined && requests[r]! > limits[r]!) {
      throw new ManifestError(`${field}.resources.requests: Invalid value: must be less than or equal to ${r} limit`);
    }
  }
  return {
    name: v.name,
    command,
    args,
    env,
    ...(v.workingDir ? { workingDir: v.workingDir as string } : {}),
    limits,
    requests,
    livenessProbe: probe(v.livenessProbe, `${field}.livenessProbe`),
    readinessProbe: probe(v.readinessProbe, `${field}.readinessProbe`),
    startupProbe: probe(v.startupProbe, `${field}.startupProbe`),
  };
}

/**
 * Decodes one manifest file. Static pods are named `<name>-<node name>` and get a UID that is a hash of the file's
 * content, node name and source, as kubelet's file source does: a changed manifest is a new pod.
 */
export function parseManifest(text: string, source: string, nodeName: string): StaticPod {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new ManifestError(`could not decode: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) throw new ManifestError('could not decode: not an object');
  if (doc.apiVersion !== 'v1' || doc.kind !== 'Pod') throw new ManifestError(`expected apiVersion "v1" and kind "Pod", got ${JSON.stringify(doc.apiVersion)} ${JSON.stringify(doc.kind)}`);
  const meta = isObj(doc.metadata) ? doc.metadata : {};
  if (typeof meta.name !== 'string' || meta.name === '') throw new ManifestError('metadata.name: Required value');
  const name = `${meta.name}-${nodeName}`;
  const nameErrs = isDNS1123Subdomain(name);
  if (nameErrs.length) throw new ManifestError(`metadata.name: Invalid value: ${JSON.stringify(name)}: ${nameErrs.join(', ')}`);
  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : 'default';
  const spec = doc.spec;
  if (!isObj(spec)) throw new ManifestError('spec: Required value');
  if (!Array.isArray(spec.containers) || spec.containers.length === 0) throw new ManifestError('spec.containers: Required value');
  const containers = spec.containers.map((c, i) => container(c, `spec.containers[${i}]`));
  const seen = new Set<string>();
  containers.forEach((c, i) => {
    if (seen.has(c.name)) throw new ManifestError(`spec.containers[${i}].name: Duplicate value: ${JSON.stringify(c.name)}`);
    seen.add(c.name);
  });
  const restartPolicy = (spec.restartPolicy ?? 'Always') as RestartPolicy;
  if (!['Always', 'OnFailure', 'Never'].includes(restartPolicy)) {
    throw new ManifestError(`spec.restartPolicy: Unsupported value: ${JSON.stringify(spec.restartPolicy)}: supported values: "Always", "OnFailure", "Never"`);
  }
  const grace = int(spec.terminationGracePeriodSeconds, 'spec.terminationGracePeriodSeconds', 30, 0);
  const h = createHash('md5').update(nodeName).update(JSON.stringify(doc)).update(source).digest('hex');
  const uid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  return { name, namespace, uid, restartPolicy, terminationGracePeriodSeconds: grace, containers, qos: podQOS(containers), source };
}
