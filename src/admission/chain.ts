/**
 * The admission chain (upstream `admission.chainAdmissionHandler`): every mutating plugin in order, then every
 * validating plugin in order; the first refusal ends the request. An empty chain admits everything and costs one
 * lookup, so the seam is free while no plugin is configured.
 *
 * Two kinds of plugin run here. Built-in checks (RBAC escalation prevention) are part of a resource's REST strategy
 * upstream: always on, unnamed, unmeasured, and run first, as a strategy's validation runs before admission. Named
 * plugins are what `--enable-admission-plugins` and the AdmissionConfiguration choose; they are measured as
 * upstream's admission metrics measure them — each plugin's admit or validate call (`controller`), and the named
 * chain as one step per request (`step`), for every operation some named plugin handles.
 */
import type { Attributes, MutationInterface, Operation, Plugin, ValidationInterface } from './interfaces.ts';

export type StepType = 'admit' | 'validate';

/** A plugin under the name it was registered and configured with. */
export interface NamedPlugin {
  readonly name: string;
  readonly plugin: Plugin;
}

/** Where the chain reports durations (upstream `admission/metrics`), implemented above this layer. */
export interface AdmissionObserver {
  step(type: StepType, operation: Operation, rejected: boolean, seconds: number): void;
  controller(name: string, type: StepType, operation: Operation, rejected: boolean, seconds: number): void;
}

type Mutator = MutationInterface & Plugin;
type Validator = ValidationInterface & Plugin;

/** What runs for one operation, decided once at construction so that a request only looks it up. */
interface PerOperation {
  builtInMutating: Mutator[];
  builtInValidating: Validator[];
  /** Some named plugin handles the operation: the named chain is a step of the request (both admit and validate). */
  named: boolean;
  namedMutating: { name: string; plugin: Mutator }[];
  namedValidating: { name: string; plugin: Validator }[];
}

const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

const isMutator = (p: Plugin): p is Mutator => typeof p.admit === 'function';
const isValidator = (p: Plugin): p is Validator => typeof p.validate === 'function';

export class AdmissionChain {
  readonly #ops = new Map<Operation, PerOperation>();
  readonly #observer: AdmissionObserver | undefined;
  readonly #names: readonly string[];

  constructor(builtIn: readonly Plugin[] = [], opts: { plugins?: readonly NamedPlugin[]; observer?: AdmissionObserver } = {}) {
    const named = opts.plugins ?? [];
    this.#observer = opts.observer;
    this.#names = named.map((p) => p.name);
    for (const op of OPERATIONS) {
      const handling = named.filter((n) => n.plugin.handles(op));
      this.#ops.set(op, {
        builtInMutating: builtIn.filter((p) => p.handles(op)).filter(isMutator),
        builtInValidating: builtIn.filter((p) => p.handles(op)).filter(isValidator),
        named: handling.length > 0,
        namedMutating: handling.flatMap((n) => (isMutator(n.plugin) ? [{ name: n.name, plugin: n.plugin }] : [])),
        namedValidating: handling.flatMap((n) => (isValidator(n.plugin) ? [{ name: n.name, plugin: n.plugin }] : [])),
      });
    }
  }

  /** The named plugins, in the order they run (the start-up log names them). */
  get pluginNames(): readonly string[] {
    return this.#names;
  }

  /** True when admission has a mutating step for `op` (built-in mutators, or a named chain that handles it). */
  mutates(op: Operation): boolean {
    const o = this.#ops.get(op)!;
    return o.builtInMutating.length > 0 || o.named;
  }

  /** True when admission has a validating step for `op`. */
  validates(op: Operation): boolean {
    const o = this.#ops.get(op)!;
    return o.builtInValidating.length > 0 || o.named;
  }

  /**
   * Runs the mutating step. Synchronous plugins complete synchronously (no promise, no microtask per plugin); the
   * result is a promise only once some plugin returns one. Callers await it either way.
   */
  admit(attrs: Attributes): void | Promise<void> {
    const o = this.#ops.get(attrs.operation)!;
    const named = o.named ? () => this.#step('admit', attrs.operation, o.namedMutating, (p) => (p as Mutator).admit(attrs)) : undefined;
    const r = runAll(o.builtInMutating, (p) => p.admit(attrs), 0);
    if (r) return named ? r.then(named) : r;
    return named?.();
  }

  /** Runs the validating step: built-in checks, then the named plugins (see {@link admit} on promises). */
  validate(attrs: Attributes): void | Promise<void> {
    const o = this.#ops.get(attrs.operation)!;
    const named = o.named ? () => this.#step('validate', attrs.operation, o.namedValidating, (p) => (p as Validator).validate(attrs)) : undefined;
    const r = runAll(o.builtInValidating, (p) => p.validate(attrs), 0);
    if (r) return named ? r.then(named) : r;
    return named?.();
  }

  #step(type: StepType, op: Operation, plugins: readonly { name: string; plugin: Plugin }[], call: (p: Plugin) => void | Promise<void>): void | Promise<void> {
    const obs = this.#observer;
    if (!obs) return runAll(plugins, (n) => call(n.plugin), 0);
    // A step in which no named plugin has work (the admit step of validating-only plugins) takes no measurable time.
    if (plugins.length === 0) return obs.step(type, op, false, 0);
    const start = performance.now();
    let r: void | Promise<void>;
    try {
      r = measured(obs, type, op, plugins, call, 0);
    } catch (e) {
      obs.step(type, op, true, (performance.now() - start) / 1000);
      throw e;
    }
    if (!r) return obs.step(type, op, false, (performance.now() - start) / 1000);
    return r.then(
      () => obs.step(type, op, false, (performance.now() - start) / 1000),
      (e: unknown) => {
        obs.step(type, op, true, (performance.now() - start) / 1000);
        throw e;
      },
    );
  }
}

/** Calls `fn` on each item from `i` on, in order; turns into a promise chain at the first promise returned. */
function runAll<P>(list: readonly P[], fn: (p: P) => void | Promise<void>, i: number): void | Promise<void> {
  for (; i < list.length; i++) {
    const r = fn(list[i]!);
    if (r) {
      const next = i + 1;
      return r.then(() => runAll(list, fn, next));
    }
  }
}

/** runAll over named plugins, observing each call's duration and outcome (upstream's controller metrics). */
function measured(
  obs: AdmissionObserver,
  type: StepType,
  op: Operation,
  plugins: readonly { name: string; plugin: Plugin }[],
  call: (p: Plugin) => void | Promise<void>,
  i: number,
): void | Promise<void> {
  for (; i < plugins.length; i++) {
    const { name, plugin } = plugins[i]!;
    const start = performance.now();
    let r: void | Promise<void>;
    try {
      r = call(plugin);
    } catch (e) {
      obs.controller(name, type, op, true, (performance.now() - start) / 1000);
      throw e;
    }
    if (r) {
      const next = i + 1;
      return r.then(
        () => {
          obs.controller(name, type, op, false, (performance.now() - start) / 1000);
          return measured(obs, type, op, plugins, call, next);
        },
        (e: unknown) => {
          obs.controller(name, type, op, true, (performance.now() - start) / 1000);
          throw e;
        },
      );
    }
    obs.controller(name, type, op, false, (performance.now() - start) / 1000);
  }
}

/** The chain with no plugins: what a server without admission configuration runs. */
export const NO_ADMISSION = new AdmissionChain();
