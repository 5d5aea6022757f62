/**
 * The node's cgroups as the corelet finds and uses them: a writable cgroup v2 hierarchy wherever the machine mounts
 * it (`/sys/fs/cgroup` on a unified host, `/sys/fs/cgroup/unified` on a hybrid one), and the cgroup v1 `cpu`,
 * `cpuacct`, `memory` hierarchies where v2 lacks those controllers. Upstream's kubelet supports both versions,
 * so applying limits and reading statistics through v1 where v2 cannot is the same behaviour, not a workaround;
 * every pod and container cgroup is created in each hierarchy the agent uses, at the same relative path.
 *
 * Layout (kubelet's cgroupfs driver): `<cgroup-root>/kubepods/pod<uid>/<container-id>` for Guaranteed pods,
 * `<cgroup-root>/kubepods/{burstable,besteffort}/pod<uid>/<container-id>` for the others.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** What the machine offers, found once at start. */
export interface CgroupEnv {
  /** Mount point of a writable cgroup v2 hierarchy, if any. */
  v2?: string;
  /** Controllers the v2 hierarchy's root offers (`cgroup.controllers`). */
  v2Controllers: Set<string>;
  /** Mount points of writable v1 hierarchies by controller, used for what v2 lacks. */
  v1: Partial<Record<'cpu' | 'cpuacct' | 'memory', string>>;
  /** One line for each thing the spec wants that this machine cannot give; logged once at start. */
  missing: string[];
}

/** Parses /proc/self/mounts into cgroup mounts: v2 mount points, and v1 mount points with their controllers. */
export function parseCgroupMounts(mounts: string): { v2: string[]; v1: Array<{ path: string; controllers: string[] }> } {
  const v2: string[] = [];
  const v1: Array<{ path: string; controllers: string[] }> = [];
  for (const line of mounts.split('\n')) {
    const [, path, type, opts] = line.split(' ');
    if (!path || !opts) continue;
    // /proc/mounts escapes blanks in paths as octal (\040).
    const p = path.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (type === 'cgroup2') v2.push(p);
    else if (type === 'cgroup') v1.push({ path: p, controllers: opts.split(',').filter((o) => ['cpu', 'cpuacct', 'memory', 'pids', 'cpuset', 'blkio', 'devices', 'freezer', 'hugetlb'].includes(o)) });
  }
  return { v2, v1 };
}

/** Whether the agent may create cgroups under `dir` (a probe directory made and removed). */
function writable(dir: string): boolean {
  const probe = join(dir, `corelet-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

/** Finds the hierarchies to use. `mounts` is /proc/self/mounts' text (a parameter so tests can give their own). */
export function discoverCgroups(mounts = readFileSync('/proc/self/mounts', 'utf8')): CgroupEnv {
  const found = parseCgroupMounts(mounts);
  const env: CgroupEnv = { v2Controllers: new Set(), v1: {}, missing: [] };
  for (const path of found.v2) {
    if (!writable(path)) continue;
    env.v2 = path;
    env.v2Controllers = new Set(readFileSync(join(path, 'cgroup.controllers'), 'utf8').split(/\s+/).filter(Boolean));
    break;
  }
  for (const c of ['cpu', 'cpuacct', 'memory'] as const) {
    if (env.v2Controllers.has(c === 'cpuacct' ? 'cpu' : c)) continue;
    // v2's cpu.stat reports usage without the cpu controller: cpuacct is needed only without v2.
    if (c === 'cpuacct' && env.v2) continue;
    const m = found.v1.find((h) => h.controllers.includes(c) && writable(h.path));
    if (m) env.v1[c] = m.path;
  }
  if (!env.v2) env.missing.push('no writable cgroup v2 hierarchy: pressure stall information (PSI) of pods and containers is not reported');
  if (!env.v2Controllers.has('cpu')) {
    env.missing.push(env.v1.cpu ? `cgroup v2 has no cpu controller: CPU limits are applied through cgroup v1 (${env.v1.cpu})` : 'no cpu controller in cgroup v2 or v1: CPU limits are not applied');
  }
  if (!env.v2Controllers.has('memory')) {
    env.missing.push(
      env.v1.memory
        ? `cgroup v2 has no memory controller: memory limits are applied and memory statistics read through cgroup v1 (${env.v1.memory})`
        : 'no memory controller in cgroup v2 or v1: memory limits are not applied and memory statistics of pods and containers are not reported',
    );
  }
  if (!env.v2 && !env.v1.cpuacct && !env.v1.cpu) env.missing.push('no cgroup reports CPU usage: CPU statistics of pods and containers are not reported');
  return env;
}

/** The QoS class of a pod from its containers' requests and limits (upstream's GetPodQOS, cpu and memory only). */
export function podQOS(containers: ReadonlyArray<{ requests: Resources; limits: Resources }>): QOSClass {
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    // A limit without a request means request = limit (API defaulting).
    for (const r of ['cpu', 'memory'] as const) {
      const req = c.requests[r] ?? c.limits[r];
      const lim = c.limits[r];
      if (req !== undefined || lim !== undefined) any = true;
      if (lim === undefined || req !== lim) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** cpu in millicores, memory in bytes. */
export interface Resources {
  cpu?: number;
  memory?: number;
}

/** Relative path of a pod's cgroup under the cgroup root (cgroupfs driver naming). */
export function podCgroupName(cgroupRoot: string, qos: QOSClass, uid: string): string {
  const parts = [cgroupRoot, 'kubepods'];
  if (qos !== 'Guaranteed') parts.push(qos.toLowerCase());
  parts.push(`pod${uid}`);
  return join(...parts.filter(Boolean));
}

const CPU_PERIOD_US = 100_000;

/** One cgroup (pod or container), present at the same relative path in each hierarchy the agent uses. */
export class Cgroup {
  constructor(
    readonly env: CgroupEnv,
    /** Path relative to the hierarchy roots, e.g. `kubepods/besteffort/pod<uid>`. */
    readonly name: string,
  ) {}

  /** Absolute directories of this cgroup: v2 first, then each v1 hierarchy in use (deduplicated). */
  dirs(): string[] {
    const roots = [this.env.v2, ...new Set(Object.values(this.env.v1))].filter((r): r is string => r !== undefined);
    return roots.map((r) => join(r, this.name));
  }

  get v2Dir(): string | undefined {
    return this.env.v2 ? join(this.env.v2, this.name) : undefined;
  }

  v1Dir(c: 'cpu' | 'cpuacct' | 'memory'): string | undefined {
    const root = this.env.v1[c];
    return root ? join(root, this.name) : undefined;
  }

  /** Creates the cgroup (and its parents) in every hierarchy, enabling in v2 the controllers it has on the way. */
  create(): void {
    for (const d of this.dirs()) mkdirSync(d, { recursive: true });
    if (this.env.v2) {
      // A v2 controller works in a cgroup only when every ancestor delegates it (cgroup.subtree_control).
      const wanted = ['cpu', 'memory', 'pids'].filter((c) => this.env.v2Controllers.has(c));
      if (wanted.length > 0) {
        let dir = this.env.v2;
        for (const part of this.name.split('/').filter(Boolean)) {
          writeFileSync(join(dir, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
          dir = join(dir, part);
        }
      }
    }
  }

  /** `cgroup.procs` files a new process writes its pid to, one per hierarchy. */
  procsFiles(): string[] {
    return this.dirs().map((d) => join(d, 'cgroup.procs'));
  }

  /** Applies CPU (millicores) and memory (bytes) limits; returns what could not be applied, for the log. */
  applyLimits(limits: Resources): string[] {
    const notApplied: string[] = [];
    if (limits.cpu !== undefined) {
      // kubelet's MilliCPUToQuota: quota = millis × period / 1000, at least 1ms.
      const quota = Math.max(1000, Math.ceil((limits.cpu * CPU_PERIOD_US) / 1000));
      if (this.env.v2 && this.env.v2Controllers.has('cpu')) writeFileSync(join(this.v2Dir!, 'cpu.max'), `${quota} ${CPU_PERIOD_US}`);
      else if (this.v1Dir('cpu')) {
        writeFileSync(join(this.v1Dir('cpu')!, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
        writeFileSync(join(this.v1Dir('cpu')!, 'cpu.cfs_quota_us'), String(quota));
      } else notApplied.push(`cpu limit ${limits.cpu}m`);
    }
    if (limits.memory !== undefined) {
      if (this.env.v2 && this.env.v2Controllers.has('memory')) writeFileSync(join(this.v2Dir!, 'memory.max'), String(limits.memory));
      else if (this.v1Dir('memory')) writeFileSync(join(this.v1Dir('memory')!, 'memory.limit_in_bytes'), String(limits.memory));
      else notApplied.push(`memory limit ${limits.memory} bytes`);
    }
    return notApplied;
  }

  /**
   * How many processes the kernel's OOM killer killed in this cgroup because of its memory limit: `oom_kill` of
   * memory.events (v2) or memory.oom_control (v1), from the hierarchy whose memory controller applied the limit.
   * Undefined where no memory controller is in use.
   */
  oomKills(): number | undefined {
    const file = this.env.v2 && this.env.v2Controllers.has('memory') ? join(this.v2Dir!, 'memory.events') : this.v1Dir('memory') ? join(this.v1Dir('memory')!, 'memory.oom_control') : undefined;
    if (!file) return undefined;
    try {
      const m = /^oom_kill (\d+)$/m.exec(readFileSync(file, 'utf8'));
      return m ? Number(m[1]) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Pids of every process in this cgroup and its descendants (from the first hierarchy, all hold the same). */
  pids(): number[] {
    const root = this.dirs()[0];
    if (!root || !existsSync(root)) return [];
    const out: number[] = [];
    const walk = (d: string) => {
      try {
        for (const l of readFileSync(join(d, 'cgroup.procs'), 'utf8').split('\n')) if (l) out.push(Number(l));
        for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(join(d, e.name));
      } catch {
        // The cgroup went away while being read: its processes are gone with it.
      }
    };
    walk(root);
    return out;
  }

  /** Kills every process in the cgroup: v2's cgroup.kill where present, else SIGKILL to each pid. */
  killAll(): void {
    const kill = this.v2Dir ? join(this.v2Dir, 'cgroup.kill') : undefined;
    if (kill && existsSync(kill)) {
      try {
        writeFileSync(kill, '1');
        return;
      } catch {
        // Fall through to signalling pid by pid.
      }
    }
    for (const pid of this.pids()) signal(pid, 'SIGKILL');
  }

  /** Removes the cgroup (children first) from every hierarchy; true when none is left. */
  remove(): boolean {
    let ok = true;
    for (const d of this.dirs()) if (!removeTree(d)) ok = false;
    return ok;
  }
}

function removeTree(dir: string): boolean {
  if (!existsSync(dir)) return true;
  try {
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeTree(join(dir, e.name));
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/** Removes parents left empty up to (not including) the cgroup root's `kubepods`' parent. */
export function removeEmptyParents(env: CgroupEnv, name: string, stopAt: string): void {
  const parts = name.split('/').filter(Boolean);
  const stop = stopAt.split('/').filter(Boolean).length;
  for (let n = parts.length - 1; n > stop; n--) {
    const rel = parts.slice(0, n).join('/');
    for (const d of new Cgroup(env, rel).dirs()) {
      try {
        rmdirSync(d);
      } catch {
        // Not empty (another pod) or already gone.
      }
    }
  }
}
