/**
 * Runs static pods as processes: each container is a child process in its own cgroup under the pod's
 * (`.../pod<uid>/<container-id>`), restarted by the pod's restartPolicy with kubelet's crash-loop back-off, and
 * stopped with SIGTERM then SIGKILL after the grace period. Nothing it starts outlives it: a stopped container's
 * cgroup is emptied (cgroup.kill where v2 has it) and removed, so children the process forked go too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:os';
import { Cgroup, podCgroupName, removeEmptyParents, signal, type CgroupEnv } from './cgroups.ts';
import type { ContainerSpec, StaticPod } from './manifest.ts';
import { discardEvents, type EventSink, type ObjectReference } from './event-sink.ts';
import { PodProber, POD_IP, type ProbeHost, type ProbedContainer } from './prober.ts';
import type { ProbeMetrics } from './probe-metrics.ts';
import { execProbe } from './probe-exec.ts';
import type { ProbeOutcome } from './probe-result.ts';

/** kubelet's container restart back-off: 10s doubling to 5m, forgotten once a container ran 10 minutes. */
export const BACKOFF_INITIAL_MS = 10_000;
export const BACKOFF_MAX_MS = 300_000;
export const BACKOFF_RESET_MS = 600_000;

/**
 * The delay before the next restart and the back-off to keep, given the current back-off and how long the
 * container ran. The first restart is immediate; every later one waits the back-off, which doubles each time.
 */
export function nextBackoff(current: number, ranMs: number): { delay: number; next: number } {
  const base = ranMs >= BACKOFF_RESET_MS ? 0 : current;
  return { delay: base, next: base === 0 ? BACKOFF_INITIAL_MS : Math.min(base * 2, BACKOFF_MAX_MS) };
}

export type Logger = (level: number, msg: string) => void;

/** What the pod runners report to the corelet's metrics as it happens. */
export interface RuntimeObserver {
  /** A pod's first container runs, `seconds` after the agent first saw the pod. */
  podStarted(seconds: number): void;
  /** A pod's sandbox (here: its cgroup with limits) is being created; `failed` when that did not work. */
  podSandbox(failed: boolean): void;
  /** kubelet's container types: `container`, `init_container`, `ephemeral_container`. */
  containerStarted(containerType: string): void;
  containerStartFailed(containerType: string): void;
  /** kubelet's cgroup manager operations on pod cgroups: `create`, `update`, `destroy`. */
  cgroupOperation(operation: 'create' | 'update' | 'destroy', seconds: number): void;
}

const noObserver: RuntimeObserver = { podStarted() {}, podSandbox() {}, containerStarted() {}, containerStartFailed() {}, cgroupOperation() {} };

function timed<T>(fn: () => T, done: (seconds: number) => void): T {
  const began = process.hrtime.bigint();
  try {
    return fn();
  } finally {
    done(Number(process.hrtime.bigint() - began) / 1e9);
  }
}

/**
 * Puts the shell in the container's cgroups before it becomes the container's command, so the process (and all it
 * forks) is accounted and limited from its first instruction. The cgroup.procs paths come in an environment
 * variable, the command as "$@": no quoting of user text.
 */
const WRAPPER = 'for f in $CORELET_CGROUP_PROCS; do echo $$ > "$f" || exit 126; done; unset CORELET_CGROUP_PROCS; exec "$@"';

type State =
  | { kind: 'waiting'; reason: string; message?: string }
  | { kind: 'running'; startedAt: string }
  | { kind: 'terminated'; exitCode: number; signal?: string; reason: string; startedAt: string; finishedAt: string };

/** kubelet never gives a killed container less than this many seconds to stop (minimumGracePeriodInSeconds). */
const MIN_GRACE_SECONDS = 2;

type ConditionType = 'Initialized' | 'Ready' | 'ContainersReady';

class Container implements ProbedContainer {
  state: State = { kind: 'waiting', reason: 'ContainerCreating' };
  lastState?: State;
  restartCount = 0;
  id = '';
  cgroup?: Cgroup;
  child?: ChildProcess;
  startedAtMs = 0;
  backoff = 0;
  timer?: NodeJS.Timeout;
  exited?: Promise<void>;
  /** The SIGKILL that follows a probe's kill after its grace period. */
  killTimer?: NodeJS.Timeout;
  constructor(readonly spec: ContainerSpec) {}

  get running(): boolean {
    return this.state.kind === 'running';
  }

  get terminated(): boolean {
    return this.state.kind === 'terminated';
  }
}

export class PodRunner implements ProbeHost {
  readonly cgroup: Cgroup;
  readonly containers: Container[];
  readonly startTime = new Date().toISOString();
  /** Set by the agent before start(). */
  observer: RuntimeObserver = noObserver;
  readonly #seenAt = process.hrtime.bigint();
  #reportedStart = false;
  readonly prober: PodProber;
  #stopping = false;
  /** Pod conditions with the time each last changed status. */
  readonly #conditions = new Map<ConditionType, { status: string; lastTransitionTime: string }>();

  constructor(
    readonly pod: StaticPod,
    readonly env: CgroupEnv,
    readonly cgroupRoot: string,
    readonly log: Logger,
    readonly events: EventSink = discardEvents,
    probeMetrics?: ProbeMetrics,
    /** When the agent started: probes of pods found at its start are spread over their first period. */
    agentStartMs?: number,
  ) {
    this.cgroup = new Cgroup(env, podCgroupName(cgroupRoot, pod.qos, pod.uid));
    this.containers = pod.containers.map((c) => new Container(c));
    this.prober = new PodProber(this, probeMetrics, agentStartMs);
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  /** Every container has ended and none will be restarted: the pod no longer counts as active. */
  get terminal(): boolean {
    return this.containers.every((c) => c.state.kind === 'terminated' && !c.timer);
  }

  start(): void {
    // kubelet counts a sandbox start before it runs, and its failure after.
    let missed: string[];
    try {
      timed(() => this.cgroup.create(), (s) => this.observer.cgroupOperation('create', s));
      // The pod cgroup's limit is the sum of its containers' when every container has one (kubelet's pod-level limits).
      const sum = (r: 'cpu' | 'memory') => (this.pod.containers.every((c) => c.limits[r] !== undefined) ? this.pod.containers.reduce((a, c) => a + c.limits[r]!, 0) : undefined);
      const cpu = sum('cpu');
      const memory = sum('memory');
      missed = timed(() => this.cgroup.applyLimits({ ...(cpu !== undefined ? { cpu } : {}), ...(memory !== undefined ? { memory } : {}) }), (s) => this.observer.cgroupOperation('update', s));
    } catch (e) {
      this.observer.podSandbox(true);
      throw e;
    }
    this.observer.podSandbox(false);
    if (missed.length) this.log(0, `pod ${this.ref}: not applied (no controller on this machine): ${missed.join(', ')}`);
    for (const c of this.containers) this.#run(c);
    this.prober.start();
  }

  container(name: string): Container | undefined {
    return this.containers.find((c) => c.spec.name === name);
  }

  phase(): string {
    return this.#phase();
  }

  /** The environment every process of the container gets: a PATH and HOSTNAME as a runtime sets, then the manifest's. */
  #processEnv(c: Container): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOSTNAME: this.pod.name };
    for (const e of c.spec.env) env[e.name] = e.value;
    return env;
  }

  exec(name: string, id: string, command: string[], timeoutMs: number): Promise<ProbeOutcome> {
    const c = this.container(name);
    if (!c || c.id !== id || !c.cgroup || c.state.kind !== 'running') return Promise.resolve({ result: 'unknown', output: '', error: new Error(`container ${name} is not running`) });
    const env = { ...this.#processEnv(c), CORELET_CGROUP_PROCS: c.cgroup.procsFiles().join(' ') };
    return execProbe({ command, env, cwd: c.spec.workingDir ?? '/', argv: ['/bin/sh', ['-c', WRAPPER, 'sh', ...command]], timeoutMs });
  }

  /**
   * kubelet's answer to a failed liveness or startup probe: a Killing event, SIGTERM to the container's processes,
   * SIGKILL after the probe's grace period (else the pod's, never under 2 s); it then restarts by restartPolicy.
   */
  probeFailed(name: string, id: string, type: 'Liveness' | 'Startup', graceSeconds: number | undefined): void {
    const c = this.container(name);
    if (!c || c.id !== id || !c.child || this.#stopping) return;
    const message = `Container ${name} failed ${type.toLowerCase()} probe, will be restarted`;
    this.log(1, `pod ${this.ref} container ${name}: Killing: ${message}`);
    this.events.eventf(this.objectRef(name), undefined, 'Normal', 'Killing', 'KillContainer', message);
    const grace = Math.max(graceSeconds ?? this.pod.terminationGracePeriodSeconds, MIN_GRACE_SECONDS);
    const pids = c.cgroup?.pids() ?? [];
    for (const pid of pids.length ? pids : [c.child.pid!]) signal(pid, 'SIGTERM');
    const cg = c.cgroup;
    const pid = c.child.pid;
    c.killTimer = setTimeout(() => {
      c.killTimer = undefined;
      if (c.id !== id) return;
      cg?.killAll();
      if (pid) signal(-pid, 'SIGKILL');
    }, grace * 1000);
  }

  /** kubelet's format.Pod: `name_namespace(uid)`. */
  get podFullName(): string {
    return `${this.pod.name}_${this.pod.namespace}(${this.pod.uid})`;
  }

  get ref(): string {
    return `${this.pod.namespace}/${this.pod.name}`;
  }

  /** The Event object reference of the pod, or of one of its containers (kubelet's fieldPath). */
  objectRef(container?: string): ObjectReference {
    return { apiVersion: 'v1', kind: 'Pod', name: this.pod.name, namespace: this.pod.namespace, uid: this.pod.uid, ...(container ? { fieldPath: `spec.containers{${container}}` } : {}) };
  }

  #run(c: Container): void {
    if (this.#stopping) return;
    // A new container per start, as a runtime creates one per restart: a fresh id and cgroup.
    c.id = randomBytes(32).toString('hex');
    c.cgroup = new Cgroup(this.env, `${this.cgroup.name}/${c.id}`);
    try {
      c.cgroup.create();
      const missed = c.cgroup.applyLimits(c.spec.limits);
      if (missed.length) this.log(0, `pod ${this.ref} container ${c.spec.name}: not applied (no controller on this machine): ${missed.join(', ')}`);
    } catch (e) {
      c.cgroup.remove();
      this.log(0, `pod ${this.ref} container ${c.spec.name}: Failed: cannot create cgroup: ${(e as Error).message}`);
      this.observer.containerStartFailed('container');
      this.events.eventf(this.objectRef(c.spec.name), undefined, 'Warning', 'Failed', 'CreateContainer', `Error: cannot create cgroup: ${(e as Error).message}`);
      this.#exited(c, { exitCode: 128, reason: 'StartError' });
      return;
    }
    this.events.eventf(this.objectRef(c.spec.name), undefined, 'Normal', 'Created', 'CreateContainer', `Created container: ${c.spec.name}`);
    const env = this.#processEnv(c);
    env.CORELET_CGROUP_PROCS = c.cgroup.procsFiles().join(' ');
    const startedAt = new Date();
    c.startedAtMs = startedAt.getTime();
    let child: ChildProcess;
    try {
      child = spawn('/bin/sh', ['-c', WRAPPER, 'sh', ...c.spec.command, ...c.spec.args], {
        cwd: c.spec.workingDir ?? '/',
        env,
        // Its own process group: a Ctrl-C to the agent's terminal reaches the agent, which stops containers itself.
        detached: true,
        stdio: 'ignore',
      });
    } catch (e) {
      this.log(0, `pod ${this.ref} container ${c.spec.name}: Failed: ${(e as Error).message}`);
      this.observer.containerStartFailed('container');
      this.events.eventf(this.objectRef(c.spec.name), undefined, 'Warning', 'Failed', 'StartContainer', `Error: ${(e as Error).message}`);
      this.#exited(c, { exitCode: 128, reason: 'StartError' });
      return;
    }
    c.child = child;
    c.state = { kind: 'running', startedAt: startedAt.toISOString() };
    // No pid: the spawn failed; its 'error' counts the failure.
    if (child.pid !== undefined) {
      this.observer.containerStarted('container');
      if (!this.#reportedStart) {
        this.#reportedStart = true;
        this.observer.podStarted(Number(process.hrtime.bigint() - this.#seenAt) / 1e9);
      }
    }
    this.log(2, `pod ${this.ref} container ${c.spec.name}: Started (pid ${child.pid})`);
    // No pid: the spawn failed, and its 'error' records Failed instead.
    if (child.pid !== undefined) this.events.eventf(this.objectRef(c.spec.name), undefined, 'Normal', 'Started', 'StartContainer', `Started container ${c.spec.name}`);
    c.exited = new Promise((resolve) => {
      child.once('error', (err) => {
        this.log(0, `pod ${this.ref} container ${c.spec.name}: Failed: ${err.message}`);
        this.events.eventf(this.objectRef(c.spec.name), undefined, 'Warning', 'Failed', 'StartContainer', `Error: ${err.message}`);
        // A process that never started (no pid) gets no 'exit': it ends here, as a runtime's StartError (128).
        if (child.pid !== undefined) return;
        this.observer.containerStartFailed('container');
        c.child = undefined;
        void this.#cleanupCgroup(c.cgroup).then(() => {
          this.#exited(c, { exitCode: 128, reason: 'StartError' });
          resolve();
        });
      });
      child.once('exit', (code, sig) => {
        c.child = undefined;
        // Read before the cgroup goes: the kernel counted the kill when it chose the victim, before the exit.
        const oomKilled = (c.cgroup?.oomKills() ?? 0) > 0;
        // Whatever the command forked dies with it, as in a container whose init process exits.
        c.cgroup?.killAll();
        void this.#cleanupCgroup(c.cgroup).then(() => {
          // As the CRI runtimes report it: an OOM kill in the container's cgroup names the exit, whatever its code.
          const reason = oomKilled ? 'OOMKilled' : code === 0 ? 'Completed' : 'Error';
          if (oomKilled) this.log(1, `pod ${this.ref} container ${c.spec.name}: OOMKilled (memory limit ${c.spec.limits.memory ?? 'none'} bytes)`);
          this.#exited(c, { exitCode: code ?? 128 + signalNumber(sig), ...(sig ? { signal: sig } : {}), reason });
          resolve();
        });
      });
    });
  }

  /** Removes an emptied container cgroup, waiting briefly for killed processes to leave it. */
  async #cleanupCgroup(cg: Cgroup | undefined): Promise<void> {
    if (!cg) return;
    for (let i = 0; i < 50; i++) {
      if (cg.remove()) return;
      await new Promise((r) => setTimeout(r, 20));
      cg.killAll();
    }
    this.log(0, `cgroup ${cg.name} could not be removed: processes remain in it`);
  }

  #exited(c: Container, t: { exitCode: number; signal?: string; reason: string }): void {
    if (c.killTimer) clearTimeout(c.killTimer);
    c.killTimer = undefined;
    const startedAt = c.state.kind === 'running' ? c.state.startedAt : new Date(c.startedAtMs || Date.now()).toISOString();
    const term: State = { kind: 'terminated', ...t, startedAt, finishedAt: new Date().toISOString() };
    c.lastState = term;
    c.state = term;
    if (this.#stopping) return;
    const policy = this.pod.restartPolicy;
    if (policy === 'Never' || (policy === 'OnFailure' && t.exitCode === 0)) return;
    const { delay, next } = nextBackoff(c.backoff, Date.now() - c.startedAtMs);
    c.backoff = next;
    if (delay > 0) {
      const msg = `back-off ${formatDelay(delay)} restarting failed container=${c.spec.name} pod=${this.podFullName}`;
      c.state = { kind: 'waiting', reason: 'CrashLoopBackOff', message: msg };
      this.log(1, `pod ${this.ref}: BackOff: Back-off restarting failed container ${c.spec.name}`);
      this.events.eventf(this.objectRef(c.spec.name), undefined, 'Warning', 'BackOff', 'RestartContainer', `Back-off restarting failed container ${c.spec.name} in pod ${this.podFullName}`);
    }
    c.timer = setTimeout(() => {
      c.timer = undefined;
      c.restartCount++;
      this.#run(c);
    }, delay);
  }

  /** Stops every container (SIGTERM, SIGKILL after the grace period) and removes the pod's cgroups. */
  async stop(graceMs = this.pod.terminationGracePeriodSeconds * 1000): Promise<void> {
    this.#stopping = true;
    const probesStopped = this.prober.stop();
    for (const c of this.containers) {
      if (c.timer) clearTimeout(c.timer);
      c.timer = undefined;
    }
    await Promise.all(
      this.containers.map(async (c) => {
        if (!c.child || !c.exited) return;
        this.log(2, `pod ${this.ref} container ${c.spec.name}: Killing: Stopping container ${c.spec.name}`);
        this.events.eventf(this.objectRef(c.spec.name), undefined, 'Normal', 'Killing', 'KillContainer', `Stopping container ${c.spec.name}`);
        const pids = c.cgroup?.pids() ?? [];
        for (const pid of pids.length ? pids : [c.child.pid!]) signal(pid, 'SIGTERM');
        const kill = setTimeout(() => {
          c.cgroup?.killAll();
          if (c.child?.pid) signal(-c.child.pid, 'SIGKILL');
        }, graceMs);
        await c.exited;
        clearTimeout(kill);
      }),
    );
    await probesStopped;
    const began = process.hrtime.bigint();
    await this.#cleanupCgroup(this.cgroup);
    this.observer.cgroupOperation('destroy', Number(process.hrtime.bigint() - began) / 1e9);
    removeEmptyParents(this.env, this.cgroup.name, this.cgroupRoot);
  }

  #phase(): string {
    const states = this.containers.map((c) => c.state);
    let phase = 'Pending';
    if (states.some((s) => s.kind === 'running')) phase = 'Running';
    else if (states.every((s) => s.kind === 'terminated')) {
      phase = states.every((s) => s.kind === 'terminated' && s.exitCode === 0) ? 'Succeeded' : 'Failed';
      if (this.pod.restartPolicy === 'Always' || (this.pod.restartPolicy === 'OnFailure' && phase === 'Failed')) phase = 'Running';
    } else if (this.containers.some((c) => c.restartCount > 0)) phase = 'Running';
    return phase;
  }

  /** A condition with its lastTransitionTime kept while its status holds. */
  #condition(type: ConditionType, status: 'True' | 'False', reason?: string, message?: string): Record<string, unknown> {
    let held = this.#conditions.get(type);
    if (!held || held.status !== status) this.#conditions.set(type, (held = { status, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }));
    return { type, status, lastProbeTime: null, lastTransitionTime: held.lastTransitionTime, ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
  }

  /** core/v1 PodStatus of the pod as it runs here (for `/pods`), with readiness from its probes. */
  status(): Record<string, unknown> {
    const containerStatuses = this.containers.map((c) => ({
      name: c.spec.name,
      state: stateJSON(c.state),
      ...(c.lastState && c.lastState !== c.state ? { lastState: stateJSON(c.lastState) } : {}),
      ready: this.prober.ready(c.spec.name),
      restartCount: c.restartCount,
      image: '',
      imageID: '',
      ...(c.id ? { containerID: `corelet://${c.id}` } : {}),
      started: this.prober.started(c.spec.name),
    }));
    const phase = this.#phase();
    // kubelet's GeneratePodInitializedCondition / GenerateContainersReadyCondition / GeneratePodReadyCondition for a
    // pod without init containers or readiness gates.
    const unready = containerStatuses.filter((s) => !s.ready).map((s) => s.name);
    const completed = phase === 'Succeeded';
    const notReady = completed ? { reason: 'PodCompleted' } : unready.length ? { reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` } : undefined;
    const conditions = [
      this.#condition('Initialized', 'True', completed ? 'PodCompleted' : undefined),
      this.#condition('Ready', notReady ? 'False' : 'True', notReady?.reason, notReady?.message),
      this.#condition('ContainersReady', notReady ? 'False' : 'True', notReady?.reason, notReady?.message),
    ];
    return { phase, conditions, podIP: POD_IP, podIPs: [{ ip: POD_IP }], qosClass: this.pod.qos, startTime: this.startTime, containerStatuses };
  }
}

function stateJSON(s: State): Record<string, unknown> {
  if (s.kind === 'waiting') return { waiting: { reason: s.reason, ...(s.message ? { message: s.message } : {}) } };
  if (s.kind === 'running') return { running: { startedAt: s.startedAt } };
  return { terminated: { exitCode: s.exitCode, ...(s.signal ? { signal: signalNumber(s.signal) } : {}), reason: s.reason, startedAt: s.startedAt, finishedAt: s.finishedAt } };
}

function signalNumber(sig: NodeJS.Signals | string | null): number {
  return sig ? ((constants.signals as Record<string, number>)[sig] ?? 0) : 0;
}

/** Go's time.Duration String for whole seconds, as kubelet's back-off message prints it (`10s`, `2m40s`, `5m0s`). */
function formatDelay(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s}s`;
}
