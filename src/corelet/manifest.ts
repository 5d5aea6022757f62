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
  httpGet?: { path: string; port: number | string; host?: string; scheme: 'HTTP' | 'HTTPS'; httpHeaders: Array<{ name: string; value: string }> };
  tcpSocket?: { port: number | string; host?: string };
  initialDelaySeconds: number;
  periodSeconds: number;
  timeoutSeconds: number;
  successThreshold: number;
  failureThreshold: number;
  /** The grace period of a kill this probe causes; the pod's when not given. */
  terminationGracePeriodSeconds?: number;
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
}

export interface ContainerSpec {
  name: string;
  command: string[];
  args: string[];
  env: Array<{ name: string; value: string }>;
  workingDir?: string;
  limits: Resources;
  requests: Resources;
  ports: ContainerPort[];
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

/** apimachinery's IsValidPortName (an IANA_SVC_NAME), its texts. */
function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (/[a-z]/.test(name) === false) errs.push('must contain at least one letter (a-z)');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** core validation's ValidatePortNumOrName: a number in 1–65535 or a valid port name. */
function portNumOrName(v: unknown, field: string): number | string {
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 1 || v > 65535) throw new ManifestError(`${field}: Invalid value: ${JSON.stringify(v)}: must be between 1 and 65535, inclusive`);
    return v;
  }
  if (typeof v === 'string') {
    const errs = portNameErrors(v);
    if (errs.length) throw new ManifestError(`${field}: Invalid value: ${JSON.stringify(v)}: ${errs.join(', ')}`);
    return v;
  }
  if (v === undefined || v === null) throw new ManifestError(`${field}: Required value`);
  throw new ManifestError(`${field}: Invalid value: ${JSON.stringify(v)}: must be a port number or name`);
}

const HTTP_HEADER_NAME = /^[-A-Za-z0-9]+$/;

/**
 * A probe as the API server defaults (0 means the default) and validates it (core validation's validateProbe and
 * validateHandler), with its error texts.
 */
function probe(v: unknown, field: string, kind: 'liveness' | 'readiness' | 'startup'): Probe | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw new ManifestError(`${field}: Invalid value: must be an object`);
  const num = (name: string, def: number) => {
    const x = v[name];
    if (x === undefined || x === null || x === 0) return def;
    if (typeof x !== 'number' || !Number.isInteger(x)) throw new ManifestError(`${field}.${name}: Invalid value: ${JSON.stringify(x)}: must be an integer`);
    if (x < 0) throw new ManifestError(`${field}.${name}: Invalid value: ${x}: must be greater than or equal to 0`);
    return x;
  };
  const p: Probe = {
    initialDelaySeconds: num('initialDelaySeconds', 0),
    timeoutSeconds: num('timeoutSeconds', 1),
    periodSeconds: num('periodSeconds', 10),
    successThreshold: num('successThreshold', 1),
    failureThreshold: num('failureThreshold', 3),
  };
  if (v.terminationGracePeriodSeconds !== undefined && v.terminationGracePeriodSeconds !== null) {
    const g = v.terminationGracePeriodSeconds;
    if (typeof g !== 'number' || !Number.isInteger(g) || g <= 0) throw new ManifestError(`${field}.terminationGracePeriodSeconds: Invalid value: ${JSON.stringify(g)}: must be greater than 0`);
    p.terminationGracePeriodSeconds = g;
  }
  const handlers = ['exec', 'httpGet', 'tcpSocket', 'grpc'].filter((h) => v[h] !== undefined && v[h] !== null);
  if (handlers.length === 0) throw new ManifestError(`${field}: Required value: must specify a handler type`);
  if (handlers.length > 1) throw new ManifestError(`${field}.${handlers[1]}: Forbidden: may not specify more than 1 handler type`);
  const h = v[handlers[0]!];
  const hf = `${field}.${handlers[0]}`;
  if (!isObj(h)) throw new ManifestError(`${hf}: Invalid value: must be an object`);
  if (handlers[0] === 'exec') {
    const command = strings(h.command, `${hf}.command`);
    if (command.length === 0) throw new ManifestError(`${hf}.command: Required value`);
    p.exec = { command };
  } else if (handlers[0] === 'httpGet') {
    const path = h.path === undefined || h.path === null || h.path === '' ? '/' : h.path;
    if (typeof path !== 'string') throw new ManifestError(`${hf}.path: Invalid value: ${JSON.stringify(path)}: must be a string`);
    const scheme = h.scheme === undefined || h.scheme === null || h.scheme === '' ? 'HTTP' : h.scheme;
    if (scheme !== 'HTTP' && scheme !== 'HTTPS') throw new ManifestError(`${hf}.scheme: Unsupported value: ${JSON.stringify(scheme)}: supported values: "HTTP", "HTTPS"`);
    if (h.host !== undefined && h.host !== null && typeof h.host !== 'string') throw new ManifestError(`${hf}.host: Invalid value: ${JSON.stringify(h.host)}: must be a string`);
    const httpHeaders: Array<{ name: string; value: string }> = [];
    if (h.httpHeaders !== undefined && h.httpHeaders !== null) {
      if (!Array.isArray(h.httpHeaders)) throw new ManifestError(`${hf}.httpHeaders: Invalid value: must be a list`);
      for (const hd of h.httpHeaders) {
        const name = isObj(hd) && typeof hd.name === 'string' ? hd.name : '';
        if (!HTTP_HEADER_NAME.test(name)) {
          throw new ManifestError(`${hf}.httpHeaders: Invalid value: ${JSON.stringify(name)}: a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')`);
        }
        httpHeaders.push({ name, value: isObj(hd) && hd.value !== undefined && hd.value !== null ? String(hd.value) : '' });
      }
    }
    p.httpGet = { path, port: portNumOrName(h.port, `${hf}.port`), scheme, httpHeaders, ...(h.host ? { host: h.host as string } : {}) };
  } else if (handlers[0] === 'tcpSocket') {
    if (h.host !== undefined && h.host !== null && typeof h.host !== 'string') throw new ManifestError(`${hf}.host: Invalid value: ${JSON.stringify(h.host)}: must be a string`);
    p.tcpSocket = { port: portNumOrName(h.port, `${hf}.port`), ...(h.host ? { host: h.host as string } : {}) };
  } else {
    throw new ManifestError(`${hf}: Unsupported value: the corelet runs exec, httpGet and tcpSocket probes`);
  }
  // Only readiness may ask for several successes in a row: liveness and startup act on the first.
  if (kind !== 'readiness' && p.successThreshold !== 1) throw new ManifestError(`${field}.successThreshold: Invalid value: ${p.successThreshold}: must be 1`);
  return p;
}

function containerPorts(v: unknown, field: string): ContainerPort[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ManifestError(`${field}: Invalid value: must be a list`);
  return v.map((p, i) => {
    const f = `${field}[${i}]`;
    if (!isObj(p)) throw new ManifestError(`${f}: Invalid value: must be an object`);
    const cp = p.containerPort;
    if (cp === undefined || cp === null || cp === 0) throw new ManifestError(`${f}.containerPort: Required value`);
    if (typeof cp !== 'number' || !Number.isInteger(cp) || cp < 1 || cp > 65535) throw new ManifestError(`${f}.containerPort: Invalid value: ${JSON.stringify(cp)}: must be between 1 and 65535, inclusive`);
    if (p.name === undefined || p.name === null || p.name === '') return { containerPort: cp };
    const errs = typeof p.name === 'string' ? portNameErrors(p.name) : ['must be a string'];
    if (errs.length) throw new ManifestError(`${f}.name: Invalid value: ${JSON.stringify(p.name)}: ${errs.join(', ')}`);
    return { name: p.name as string, containerPort: cp };
  });
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
    ports: containerPorts(v.ports, `${field}.ports`),
    livenessProbe: probe(v.livenessProbe, `${field}.livenessProbe`, 'liveness'),
    readinessProbe: probe(v.readinessProbe, `${field}.readinessProbe`, 'readiness'),
    startupProbe: probe(v.startupProbe, `${field}.startupProbe`, 'startup'),
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
