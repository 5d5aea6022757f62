/**
 * The corelet: follows the static pod manifests in a folder (kubelet's file source: a change notification from
 * the filesystem, and a full rescan every 20 s for what notifications miss), runs their pods, and serves
 * `/stats/summary`, `/pods`, `/healthz`, its metrics endpoints, `/statusz` and `/flagz` over HTTPS (one file per
 * endpoint; `routes` maps paths to them).
 */
import { existsSync, mkdirSync, rmdirSync, watch, readdirSync, readFileSync, statSync, type FSWatcher } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Cgroup, discoverCgroups, type CgroupEnv } from './cgroups.ts';
import { parseManifest, type StaticPod } from './manifest.ts';
import { PodRunner, type Logger } from './runtime.ts';
import { GenericPLEG, registerPlegMetrics, type RelistPod } from './pleg.ts';
import { discardEvents, type EventSink } from './event-sink.ts';
import { authorizeRequest, type CoreletAuth } from './auth.ts';
import { ProbeMetrics } from './probe-metrics.ts';
import { nodeRef } from './register.ts';
import { CpuRates, cgroupCpu, cgroupIO, cgroupMemory, nodeCpu, nodeIO, nodeFs, nodeMemory, nodeRlimit } from './stats.ts';
import type { FlagValue } from '../util/zpages/flagz.ts';
import { CoreletHealth } from './healthz.ts';
import { CoreletMetrics } from './metrics.ts';
import { containerStatsMetrics } from './metrics-containerstats.ts';
import { resourceMetrics, type ResourceSummary } from './metrics-resource.ts';
import { metricsRoute, serveRoute, type RouteHandler } from './routes.ts';
import { coreletZpages } from './zpages.ts';

export interface AgentOptions {
  nodeName: string;
  manifestPath: string;
  /** kubelet's --root-dir: made at start; its filesystem is the node's `fs` in the summary. */
  rootDir?: string;
  cgroupRoot: string;
  address: string;
  port: number;
  tls: { certPem: string; keyPem: string };
  log: Logger;
  /** Found at start unless given (tests). */
  cgroups?: CgroupEnv;
  /** kubelet's --file-check-frequency. */
  fileCheckMs?: number;
  /** Where Events go; none recorded when not given. */
  events?: EventSink;
  /**
   * Who may use the API (kubelet's auth filter, auth.ts); every request goes through it. `clientCA`: the
   * handshake asks for a client certificate and verifies it against these authorities (--client-ca-file).
   */
  auth?: CoreletAuth & { clientCA?: string };
  /** The command line's flags with their values, for /flagz. */
  flags?: () => FlagValue[];
}

/** kubelet's stats/v1alpha1 Summary: the fields the resource metrics read, typed; the others as JSON. */
type Open<T> = T & Record<string, unknown>;
export interface Summary {
  node: Open<ResourceSummary['node']>;
  pods: Open<Omit<ResourceSummary['pods'][number], 'containers'> & { containers: Open<ResourceSummary['pods'][number]['containers'][number]>[] }>[];
}

export class Agent {
  readonly env: CgroupEnv;
  readonly pods = new Map<string, PodRunner>();
  /** Last manifest error per file, so a broken file is reported once, not every rescan. */
  readonly #badFiles = new Map<string, string>();
  readonly #rates = new CpuRates();
  readonly startTime = new Date().toISOString();
  readonly probeMetrics = new ProbeMetrics();
  #watcher?: FSWatcher;
  #rescan?: NodeJS.Timeout;
  #debounce?: NodeJS.Timeout;
  #server?: Server;
  #syncing = Promise.resolve();
  #createdRoots: string[] = [];
  #lastSyncStart: number | undefined;
  readonly metrics: CoreletMetrics;
  /** The relisting pod lifecycle event generator: its last list is the pod cache; its health the node's readiness. */
  readonly pleg: GenericPLEG;
  readonly health: CoreletHealth;
  /** Path → handler of every endpoint the server answers. */
  readonly routes = new Map<string, RouteHandler>();

  constructor(readonly opts: AgentOptions) {
    this.env = opts.cgroups ?? discoverCgroups();
    this.metrics = new CoreletMetrics({ nodeName: opts.nodeName, cgroups: this.env, pods: () => this.pods.values(), relisted: () => this.pleg.pods() });
    this.pleg = new GenericPLEG({
      list: () => this.#relist(),
      // The runners restart containers on their exit themselves; the events say what the relist saw, for the log.
      onEvent: (e) => opts.log(4, `PLEG: pod ${e.podUid}: ${e.type} ${e.data}`),
      metrics: registerPlegMetrics(this.metrics.registry),
    });
    this.health = new CoreletHealth({ lastSyncStart: () => this.#lastSyncStart, periodMs: opts.fileCheckMs ?? 20_000 });
    // The resource endpoint keeps its own CPU samples: its scrapes must not shorten /stats/summary's rate window.
    const resourceRates = new CpuRates();
    const json = (body: () => unknown): RouteHandler => (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body()));
    };
    const r = this.routes;
    r.set('/healthz', this.health.handler);
    r.set('/stats/summary', json(() => this.summary()));
    r.set('/pods', json(() => this.podList()));
    r.set('/metrics', metricsRoute(this.metrics.registry));
    r.set('/metrics/slis', metricsRoute(this.health.slis));
    r.set('/metrics/resource', metricsRoute(resourceMetrics(() => this.summary(resourceRates))));
    r.set('/metrics/containerstats', metricsRoute(containerStatsMetrics(() => this.#runningContainers())));
    r.set('/metrics/probes', metricsRoute(this.probeMetrics.registry));
    for (const [path, page] of coreletZpages({ startTime: new Date(this.startTime), flags: opts.flags ?? (() => []), paths: () => [...r.keys()] })) r.set(path, page);
  }

  /**
   * Every container instance the corelet has, with its state as the kernel has it: one the runner thinks running is
   * running only while its process (or, once it forked, its cgroup) is still there; the last instance of a restarting
   * container is listed as exited.
   */
  #relist(): RelistPod[] {
    return [...this.pods.values()].map((p) => ({
      uid: p.pod.uid,
      namespace: p.pod.namespace,
      name: p.pod.name,
      containers: p.containers
        .filter((c) => c.id !== '')
        .map((c) => ({ id: c.id, name: c.spec.name, state: c.state.kind === 'running' && (processAlive(c.child?.pid) || (c.cgroup?.pids().length ?? 0) > 0) ? ('running' as const) : ('exited' as const) })),
    }));
  }

  *#runningContainers() {
    for (const p of this.pods.values()) {
      for (const c of p.containers) {
        if (c.state.kind === 'running' && c.cgroup) yield { pod: p.pod.name, namespace: p.pod.namespace, container: c.spec.name, id: c.id, cgroup: c.cgroup };
      }
    }
  }

  /** kubelet's runtime state errors, which make the node NotReady: an unhealthy PLEG. */
  notReady(): string | undefined {
    const pleg = this.pleg.unhealthy();
    return pleg === undefined ? undefined : `PLEG is not healthy: ${pleg}`;
  }

  get events(): EventSink {
    return this.opts.events ?? discardEvents;
  }

  async start(): Promise<void> {
    this.events.eventf(nodeRef(this.opts.nodeName), undefined, 'Normal', 'Starting', 'StartCorelet', 'Starting corelet.');
    for (const m of this.env.missing) this.opts.log(0, `cgroups: ${m}`);
    // kubelet makes its root dir at start; the summary's node fs is the filesystem it lands on.
    if (this.opts.rootDir) mkdirSync(this.opts.rootDir, { recursive: true });
    // A --cgroup-root the agent creates is its own to remove at stop; one that existed is left as found.
    if (this.opts.cgroupRoot) this.#createdRoots = new Cgroup(this.env, this.opts.cgroupRoot).dirs().filter((d) => !existsSync(d));
    if (this.opts.manifestPath) {
      this.#watcher = watch(this.opts.manifestPath, () => this.#scheduleSync());
      this.#watcher.on('error', (e) => this.opts.log(0, `watching ${this.opts.manifestPath}: ${e.message}`));
      this.#rescan = setInterval(() => this.#scheduleSync(), this.opts.fileCheckMs ?? 20_000);
      await this.sync();
    }
    await this.#removeOrphanedPodCgroups();
    this.pleg.start();
    const auth = this.opts.auth;
    // A client certificate is asked for, never required: requests without one go on to tokens and anonymous.
    const clientCerts = auth?.clientCA ? { requestCert: true, rejectUnauthorized: false, ca: auth.clientCA } : {};
    const filter = auth ? (req: IncomingMessage, res: ServerResponse) => authorizeRequest(auth, this.opts.nodeName, req, res, this.opts.log) : undefined;
    this.#server = createServer({ cert: this.opts.tls.certPem, key: this.opts.tls.keyPem, ...clientCerts }, (req, res) => void serveRoute(this.routes, this.metrics.http, req, res, filter));
    await new Promise<void>((resolve, reject) => {
      this.#server!.once('error', reject);
      this.#server!.listen(this.opts.port, this.opts.address, () => resolve());
    });
  }

  get port(): number {
    return (this.#server?.address() as AddressInfo).port;
  }

  #scheduleSync(): void {
    // Editors write a file in several steps: act once they are done.
    if (this.#debounce) clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => {
      this.#debounce = undefined;
      void this.sync();
    }, 100);
  }

  /** Brings the running pods in line with the folder: new and changed manifests start, removed ones stop. */
  sync(): Promise<void> {
    this.#syncing = this.#syncing.then(() => this.#sync()).catch((e) => this.opts.log(0, `sync: ${(e as Error).message}`));
    return this.#syncing;
  }

  async #sync(): Promise<void> {
    this.#lastSyncStart = Date.now();
    const wanted = new Map<string, StaticPod>();
    let names: string[];
    try {
      names = readdirSync(this.opts.manifestPath);
    } catch (e) {
      this.opts.log(0, `reading ${this.opts.manifestPath}: ${(e as Error).message}`);
      return;
    }
    for (const name of names.sort()) {
      // kubelet's file source skips hidden files (editors' swap files, atomic-write temporaries).
      if (name.startsWith('.')) continue;
      const file = join(this.opts.manifestPath, name);
      try {
        if (!statSync(file).isFile()) continue;
        const pod = parseManifest(readFileSync(file, 'utf8'), file, this.opts.nodeName);
        const clash = [...wanted.values()].find((p) => p.name === pod.name && p.namespace === pod.namespace);
        if (clash) {
          const msg = `pod ${pod.namespace}/${pod.name} is already defined by ${clash.source}`;
          if (this.#badFiles.get(file) !== msg) {
            this.opts.log(0, `static pod manifest ${file} skipped: ${msg}`);
            // kubelet's config source: a duplicate name is a FailedValidation Event about the pod it ignores.
            const ref = { apiVersion: 'v1', kind: 'Pod', name: pod.name, namespace: pod.namespace, uid: pod.uid };
            this.events.eventf(ref, undefined, 'Warning', 'FailedValidation', 'ValidatePod', `Error validating pod ${pod.name}_${pod.namespace}(${pod.uid}) from file due to duplicate pod name ${JSON.stringify(pod.name)}, ignoring`);
          }
          this.#badFiles.set(file, msg);
          continue;
        }
        wanted.set(pod.uid, pod);
        this.#badFiles.delete(file);
      } catch (e) {
        const msg = (e as Error).message;
        if (this.#badFiles.get(file) !== msg) {
          this.opts.log(0, `static pod manifest ${file} skipped: ${msg}`);
          // kubelet only logs a manifest it cannot read; with no Pod to point at, the Event is about the Node, under
          // the reason kubelet's config source gives pods that fail validation.
          this.events.eventf(nodeRef(this.opts.nodeName), undefined, 'Warning', 'FailedValidation', 'ValidatePod', `Could not process manifest file ${file}: ${msg}`);
        }
        this.#badFiles.set(file, msg);
      }
    }
    const stops: Promise<void>[] = [];
    for (const [uid, runner] of this.pods) {
      if (wanted.has(uid)) continue;
      this.pods.delete(uid);
      this.opts.log(1, `pod ${runner.ref} (${uid}): manifest removed or changed, stopping`);
      stops.push(runner.stop());
    }
    // A changed manifest is a new pod (new UID): the old one stops before the new one starts, as kubelet does.
    await Promise.all(stops);
    for (const [uid, pod] of wanted) {
      if (this.pods.has(uid)) continue;
      const runner = new PodRunner(pod, this.env, this.opts.cgroupRoot, this.opts.log, this.events, this.probeMetrics, Date.parse(this.startTime));
      runner.observer = this.metrics.runtime;
      this.metrics.podAdmitted(pod.containers.length);
      this.pods.set(uid, runner);
      this.opts.log(1, `pod ${runner.ref} (${uid}): starting from ${pod.source}`);
      try {
        runner.start();
      } catch (e) {
        this.opts.log(0, `pod ${runner.ref}: cannot start: ${(e as Error).message}`);
      }
    }
  }

  /**
   * Pod cgroups under kubepods that no running pod owns were left by an agent that was killed (SIGKILL, a crash):
   * their processes are killed and the cgroups removed, as kubelet's cleanupOrphanedPodCgroups does.
   */
  async #removeOrphanedPodCgroups(): Promise<void> {
    const kubepods = join(this.opts.cgroupRoot, 'kubepods');
    const owned = new Set([...this.pods.values()].map((r) => r.cgroup.name));
    const first = new Cgroup(this.env, kubepods).dirs()[0];
    if (!first || !existsSync(first)) return;
    const found: string[] = [];
    for (const sub of ['', 'burstable', 'besteffort']) {
      try {
        for (const e of readdirSync(join(first, sub), { withFileTypes: true })) if (e.isDirectory() && e.name.startsWith('pod')) found.push(join(kubepods, sub, e.name));
      } catch {
        // No such QoS level.
      }
    }
    for (const name of found) {
      if (owned.has(name)) continue;
      const cg = new Cgroup(this.env, name);
      this.opts.log(0, `removing orphaned pod cgroup ${name} (${cg.pids().length} processes)`);
      for (let i = 0; i < 50 && !cg.remove(); i++) {
        for (const d of readdirSync(cg.dirs()[0]!, { withFileTypes: true })) if (d.isDirectory()) new Cgroup(this.env, join(name, d.name)).killAll();
        cg.killAll();
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  /** kubelet's stats/v1alpha1 Summary; `rates` keeps the previous CPU readings usageNanoCores is measured from. */
  summary(rates = this.#rates): Summary {
    const time = new Date().toISOString();
    const node: Summary['node'] = { nodeName: this.opts.nodeName, startTime: this.startTime };
    const cpu = nodeCpu(rates, time, this.env.v2);
    if (cpu) node.cpu = cpu;
    const mem = nodeMemory(time);
    if (mem) node.memory = mem;
    const io = nodeIO(time);
    if (io) node.io = io;
    if (this.opts.rootDir) {
      const fs = nodeFs(this.opts.rootDir, time);
      if (fs) node.fs = fs;
    }
    node.rlimit = nodeRlimit(time);
    const pods = [...this.pods.values()].map((r) => {
      const containers = r.containers
        .filter((c) => c.state.kind === 'running' && c.cgroup)
        .map((c) => {
          const s: Summary['pods'][number]['containers'][number] = { name: c.spec.name, startTime: c.state.kind === 'running' ? c.state.startedAt : time };
          const ccpu = cgroupCpu(c.cgroup!, rates, time);
          if (ccpu) s.cpu = ccpu;
          const cmem = cgroupMemory(c.cgroup!, time, c.spec.limits.memory);
          if (cmem) s.memory = cmem;
          const cio = cgroupIO(c.cgroup!, time);
          if (cio) s.io = cio;
          return s;
        });
      const p: Summary['pods'][number] = { podRef: { name: r.pod.name, namespace: r.pod.namespace, uid: r.pod.uid }, startTime: r.startTime, containers };
      const pcpu = cgroupCpu(r.cgroup, rates, time);
      if (pcpu) p.cpu = pcpu;
      const limits = r.pod.containers.every((c) => c.limits.memory !== undefined) ? r.pod.containers.reduce((a, c) => a + c.limits.memory!, 0) : undefined;
      const pmem = cgroupMemory(r.cgroup, time, limits);
      if (pmem) p.memory = pmem;
      const pio = cgroupIO(r.cgroup, time);
      if (pio) p.io = pio;
      p.process_stats = { process_count: r.cgroup.pids().length };
      return p;
    });
    return { node, pods };
  }

  /** A core/v1 PodList of the static pods as they run here (kubelet's `/pods`). */
  podList(): Record<string, unknown> {
    return {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: {},
      items: [...this.pods.values()].map((r) => ({
        metadata: {
          name: r.pod.name,
          namespace: r.pod.namespace,
          uid: r.pod.uid,
          annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': r.pod.uid.replaceAll('-', '') },
        },
        spec: {
          nodeName: this.opts.nodeName,
          restartPolicy: r.pod.restartPolicy,
          terminationGracePeriodSeconds: r.pod.terminationGracePeriodSeconds,
          containers: r.pod.containers.map((c) => ({ name: c.name, command: c.command, ...(c.args.length ? { args: c.args } : {}) })),
        },
        status: r.status(),
      })),
    };
  }

  /** Stops watching, stops every pod (grace period, then SIGKILL) and removes their cgroups; closes the server. */
  async stop(): Promise<void> {
    this.pleg.stop();
    this.#watcher?.close();
    if (this.#rescan) clearInterval(this.#rescan);
    if (this.#debounce) clearTimeout(this.#debounce);
    await this.#syncing;
    const runners = [...this.pods.values()];
    this.pods.clear();
    await Promise.all(runners.map((r) => r.stop()));
    // The QoS level cgroups and kubepods itself, when no pod is left in them (an orphan cleanup may leave them).
    const kubepods = join(this.opts.cgroupRoot, 'kubepods');
    for (const rel of [join(kubepods, 'burstable'), join(kubepods, 'besteffort'), kubepods]) {
      for (const d of new Cgroup(this.env, rel).dirs()) {
        try {
          rmdirSync(d);
        } catch {
          // Not there, or still in use.
        }
      }
    }
    for (const d of [...this.#createdRoots].reverse()) {
      try {
        rmdirSync(d);
      } catch {
        // Something else put a cgroup there meanwhile: leave it.
      }
    }
    // close() waits for open connections; keep-alive ones would hold the stop for minutes.
    const closed = new Promise<void>((resolve) => (this.#server?.listening ? this.#server.close(() => resolve()) : resolve()));
    this.#server?.closeAllConnections();
    await closed;
    this.metrics.stop();
  }
}

/** Whether a process exists and is not a zombie (/proc/<pid>/stat's state). */
function processAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}
