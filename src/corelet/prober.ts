/**
 * kubelet's prober (`pkg/kubelet/prober`): one worker per container and probe type, each probing every
 * periodSeconds once initialDelaySeconds have passed since the container started. A result counts once it held
 * successThreshold (or failureThreshold) runs in a row. Startup gates the others: liveness and readiness wait until
 * the startup probe succeeded, and the startup probe stops once it has. Results belong to a container instance: a
 * restarted container starts over (not ready, not started), and a worker whose liveness or startup probe failed
 * waits for the next instance. A failing liveness or startup probe asks the runner to kill the container.
 */
import type { ContainerSpec, Probe, StaticPod } from './manifest.ts';
import type { EventSink, ObjectReference } from './event-sink.ts';
import type { ProbeMetrics } from './probe-metrics.ts';
import { httpProbe } from './probe-http.ts';
import { tcpProbe } from './probe-tcp.ts';
import type { ProbeOutcome, ProbeResult } from './probe-result.ts';

export type ProbeType = 'Liveness' | 'Readiness' | 'Startup';

/** The value a results manager holds for a container instance (upstream `results.Result`). */
type Held = 'success' | 'failure' | 'unknown';

/** Upstream retries a probe that errored (could not run) this many times before giving up on the period. */
const MAX_PROBE_RETRIES = 3;

/**
 * Pods run in the host's network here, so the pod's IP — the default host of httpGet and tcpSocket probes, as
 * kubelet uses status.podIP — is the loopback address the containers' servers listen on.
 */
export const POD_IP = '127.0.0.1';

/** What the prober reads of a container and asks of the runner. */
export interface ProbedContainer {
  readonly spec: ContainerSpec;
  /** The current instance's id; empty before the first start. */
  readonly id: string;
  readonly running: boolean;
  readonly terminated: boolean;
  /** When the running instance started (ms since the epoch). */
  readonly startedAtMs: number;
}

export interface ProbeHost {
  readonly pod: StaticPod;
  readonly events: EventSink;
  readonly log: (level: number, msg: string) => void;
  readonly stopping: boolean;
  /** The pod's phase as its status reports it. */
  phase(): string;
  container(name: string): ProbedContainer | undefined;
  objectRef(container?: string): ObjectReference;
  /** Runs a command in the container instance `id` (its cgroup, env, working directory). */
  exec(name: string, id: string, command: string[], timeoutMs: number): Promise<ProbeOutcome>;
  /** The container instance `id` failed its liveness or startup probe: kill it (it restarts by restartPolicy). */
  probeFailed(name: string, id: string, type: 'Liveness' | 'Startup', graceSeconds: number | undefined): void;
}

/** Resolves a probe's port: a number, a named container port, or (upstream's last resort) a name that is a number. */
export function resolvePort(port: number | string, spec: ContainerSpec): number {
  let n: number;
  if (typeof port === 'number') n = port;
  else {
    const named = spec.ports.find((p) => p.name === port);
    if (named) n = named.containerPort;
    else if (/^\d+$/.test(port)) n = Number(port);
    else throw new Error(`port ${port} not found`);
  }
  if (n > 0 && n < 65536) return n;
  throw new Error(`invalid port number: ${n}`);
}

/** Runs one probe of a container instance once (upstream prober.runProbe). */
export async function runProbe(host: ProbeHost, spec: ContainerSpec, id: string, p: Probe): Promise<ProbeOutcome> {
  const timeoutMs = p.timeoutSeconds * 1000;
  if (p.exec) return host.exec(spec.name, id, p.exec.command, timeoutMs);
  if (p.httpGet) {
    const g = p.httpGet;
    let port: number;
    try {
      port = resolvePort(g.port, spec);
    } catch (e) {
      return { result: 'unknown', output: '', error: e as Error };
    }
    const h = g.host || POD_IP;
    const hostPort = h.includes(':') ? `[${h}]:${port}` : `${h}:${port}`;
    let url: URL;
    try {
      url = new URL(g.path.startsWith('/') ? g.path : `/${g.path}`, `${g.scheme.toLowerCase()}://${hostPort}`);
    } catch (e) {
      return { result: 'failure', output: (e as Error).message };
    }
    return httpProbe({ url, headers: g.httpHeaders, timeoutMs });
  }
  if (p.tcpSocket) {
    try {
      return await tcpProbe(p.tcpSocket.host || POD_IP, resolvePort(p.tcpSocket.port, spec), timeoutMs);
    } catch (e) {
      return { result: 'unknown', output: '', error: e as Error };
    }
  }
  return { result: 'unknown', output: '' };
}

class Worker {
  #stopped = false;
  #wake?: () => void;
  #triggered = false;
  /** The instance the worker follows and the value held for it. */
  #id = '';
  #held: Held | undefined;
  #lastResult: Held | undefined;
  #resultRun = 0;
  #onHold = false;
  done: Promise<void> = Promise.resolve();

  constructor(
    readonly prober: PodProber,
    readonly spec: ContainerSpec,
    readonly type: ProbeType,
    readonly probe: Probe,
  ) {}

  begin(): void {
    this.done = this.#run();
  }

  /** The value held for instance `id`, if the worker has one for it. */
  result(id: string): Held | undefined {
    return id && id === this.#id ? this.#held : undefined;
  }

  get initialValue(): Held {
    return this.type === 'Readiness' ? 'failure' : this.type === 'Liveness' ? 'success' : 'unknown';
  }

  stop(): void {
    this.#stopped = true;
    this.#wake?.();
  }

  /** Probes now rather than at the next tick (upstream manualTriggerCh). */
  trigger(): void {
    this.#triggered = true;
    this.#wake?.();
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(t);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  async #run(): Promise<void> {
    const period = this.probe.periodSeconds * 1000;
    // Probes of pods found at the agent's start would all fire at once: spread them over the first period.
    if (period > Date.now() - this.prober.startedAt) await this.#sleep(Math.random() * period);
    const tickerStart = Date.now();
    while (!this.#stopped && (await this.#doProbe())) {
      if (this.#triggered) {
        this.#triggered = false;
        continue;
      }
      const elapsed = Date.now() - tickerStart;
      await this.#sleep(period - (elapsed % period));
      this.#triggered = false;
    }
    this.prober.metrics?.forget(this.prober.host.pod, this.spec.name, this.type);
  }

  /** One round of upstream worker.doProbe; false when the worker is done. */
  async #doProbe(): Promise<boolean> {
    const host = this.prober.host;
    if (host.stopping) return false;
    const phase = host.phase();
    if (phase === 'Failed' || phase === 'Succeeded') {
      host.log(3, `pod ${host.pod.namespace}/${host.pod.name}: Pod is terminated, exiting probe worker (${this.type}, ${this.spec.name})`);
      return false;
    }
    const c = host.container(this.spec.name);
    if (!c || !c.id) return true;
    if (c.id !== this.#id) {
      this.#id = c.id;
      this.#held = this.initialValue;
      this.#onHold = false;
    }
    if (this.#onHold) return true;
    if (!c.running) {
      this.#held = 'failure';
      return !c.terminated || host.pod.restartPolicy !== 'Never';
    }
    if (Math.floor((Date.now() - c.startedAtMs) / 1000) < this.probe.initialDelaySeconds) return true;
    const started = this.prober.started(this.spec.name);
    if (started ? this.type === 'Startup' : this.type !== 'Startup') return true;

    const begin = process.hrtime.bigint();
    const outcome = await this.#probeWithRetries(c.id);
    if (this.#stopped || c.id !== host.container(this.spec.name)?.id) return !this.#stopped;
    const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
    if (outcome.error) return true;
    const result: Held = outcome.result === 'success' || outcome.result === 'warning' ? 'success' : 'failure';
    this.prober.metrics?.observe(host.pod, this.spec.name, this.type, outcome.result, seconds);

    if (this.#lastResult === result) this.#resultRun++;
    else {
      this.#lastResult = result;
      this.#resultRun = 1;
    }
    if ((result === 'failure' && this.#resultRun < this.probe.failureThreshold) || (result === 'success' && this.#resultRun < this.probe.successThreshold)) return true;
    const changed = this.#held !== result;
    this.#held = result;
    if (changed) host.log(2, `pod ${host.pod.namespace}/${host.pod.name} container ${this.spec.name}: ${this.type} probe result: ${result}`);
    if ((this.type === 'Liveness' || this.type === 'Startup') && result === 'failure') {
      // Wait for the next instance of the container: probing one that is being stopped tells nothing.
      this.#onHold = true;
      this.#resultRun = 0;
      host.probeFailed(this.spec.name, c.id, this.type, this.probe.terminationGracePeriodSeconds);
    }
    return true;
  }

  /** upstream prober.probe: runs (retrying errors), records Unhealthy / ProbeWarning events and logs. */
  async #probeWithRetries(id: string): Promise<ProbeOutcome> {
    const host = this.prober.host;
    let outcome: ProbeOutcome = { result: 'unknown', output: '' };
    for (let i = 0; i < MAX_PROBE_RETRIES; i++) {
      outcome = await runProbe(host, this.spec, id, this.probe);
      if (!outcome.error) break;
    }
    const ref = host.objectRef(this.spec.name);
    const who = `pod ${host.pod.namespace}/${host.pod.name} container ${this.spec.name}`;
    if (outcome.error) {
      const note = `${this.type} probe errored and resulted in ${outcome.result} state: ${outcome.error.message}`;
      host.log(1, `${who}: Unhealthy: ${note}`);
      host.events.eventf(ref, undefined, 'Warning', 'Unhealthy', 'ProbeContainer', note);
    } else if (outcome.result === 'warning') {
      const note = `${this.type} probe warning: ${outcome.output}`;
      host.log(3, `${who}: ProbeWarning: ${note}`);
      host.events.eventf(ref, undefined, 'Warning', 'ProbeWarning', 'ProbeContainer', note);
    } else if (outcome.result === 'failure') {
      const note = `${this.type} probe failed: ${outcome.output}`;
      host.log(1, `${who}: Unhealthy: ${note}`);
      host.events.eventf(ref, undefined, 'Warning', 'Unhealthy', 'ProbeContainer', note);
    } else if (outcome.result === 'unknown') {
      host.log(1, `${who}: ${this.type} probe unknown without error`);
    }
    return outcome;
  }
}

/** The probe workers of one pod, and the started/ready values kubelet's prober manager derives from them. */
export class PodProber {
  readonly #workers = new Map<string, Worker>();
  readonly startedAt: number;

  constructor(
    readonly host: ProbeHost,
    readonly metrics?: ProbeMetrics,
    startedAt = Date.now(),
  ) {
    this.startedAt = startedAt;
  }

  /** Starts a worker for every probe the pod's containers declare. */
  start(): void {
    for (const spec of this.host.pod.containers) {
      const probes: Array<[ProbeType, Probe | undefined]> = [
        ['Liveness', spec.livenessProbe],
        ['Readiness', spec.readinessProbe],
        ['Startup', spec.startupProbe],
      ];
      for (const [type, p] of probes) if (p) this.#workers.set(`${spec.name}/${type}`, new Worker(this, spec, type, p));
    }
    // Only once all are known: a worker's first round asks whether the container has a startup probe.
    for (const w of this.#workers.values()) w.begin();
  }

  /** Stops every worker; resolves when they have finished their current probe. */
  async stop(): Promise<void> {
    const ws = [...this.#workers.values()];
    for (const w of ws) w.stop();
    await Promise.all(ws.map((w) => w.done));
  }

  #worker(name: string, type: ProbeType): Worker | undefined {
    return this.#workers.get(`${name}/${type}`);
  }

  /** Whether the running container has started: no startup probe, or one that succeeded for this instance. */
  started(name: string): boolean {
    const c = this.host.container(name);
    if (!c?.running) return false;
    const w = this.#worker(name, 'Startup');
    return w ? w.result(c.id) === 'success' : true;
  }

  /** Whether the container is ready: started, and no readiness probe or one that succeeded for this instance. */
  ready(name: string): boolean {
    const c = this.host.container(name);
    if (!c?.running || !this.started(name)) return false;
    const w = this.#worker(name, 'Readiness');
    if (!w) return true;
    const r = w.result(c.id);
    // Not probed yet for this instance: probe now rather than report not-ready for a whole period.
    if (r === undefined) w.trigger();
    return r === 'success';
  }
}

export type { ProbeResult };
