/**
 * The admission chain (upstream `admission.chainAdmissionHandler`): every mutating plugin in order, then every
 * validating plugin in order; the first refusal ends the request. An empty chain admits everything and costs one
 * length check, so the seam is free while no plugin is configured.
 */
import type { Attributes, MutationInterface, Operation, Plugin, ValidationInterface } from './interfaces.ts';

export class AdmissionChain {
  readonly #mutating: MutationInterface[];
  readonly #validating: ValidationInterface[];

  constructor(plugins: readonly Plugin[] = []) {
    this.#mutating = plugins.filter((p): p is MutationInterface & Plugin => typeof p.admit === 'function');
    this.#validating = plugins.filter((p): p is ValidationInterface & Plugin => typeof p.validate === 'function');
  }

  /** True when some mutating plugin looks at `op`. */
  mutates(op: Operation): boolean {
    return this.#mutating.some((p) => p.handles(op));
  }

  /** True when some validating plugin looks at `op`. */
  validates(op: Operation): boolean {
    return this.#validating.some((p) => p.handles(op));
  }

  async admit(attrs: Attributes): Promise<void> {
    for (const p of this.#mutating) if (p.handles(attrs.operation)) await p.admit(attrs);
  }

  async validate(attrs: Attributes): Promise<void> {
    for (const p of this.#validating) if (p.handles(attrs.operation)) await p.validate(attrs);
  }
}

/** The chain with no plugins: what the server runs until an AdmissionConfiguration names some. */
export const NO_ADMISSION = new AdmissionChain();
