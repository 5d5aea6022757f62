/**
 * The max-in-flight filter (upstream `server/filters/maxinflight.go`): non-mutating and mutating requests each have
 * a limit on how many are served at once; the excess is refused with 429 at once rather than queued. Watches and
 * health checks are exempt (the caller decides that). The counters are read before any per-request work so an
 * overloaded server can refuse a request for the price of its headers (see server.ts).
 */

/** Upstream's nonMutatingRequestVerbs: everything else counts against the mutating limit. */
const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);

/** Whether `verb` counts against --max-mutating-requests-inflight (upstream: any verb but get, list and watch). */
export function isMutatingVerb(verb: string): boolean {
  return !NON_MUTATING_VERBS.has(verb);
}

/** The two in-flight counters and their limits (0 = unlimited). */
export class MaxInflight {
  #readonly = 0;
  #mutating = 0;

  constructor(
    readonly maxReadonly: number,
    readonly maxMutating: number,
  ) {}

  /** True when either limit is reached: the one test an unsaturated server pays per request before routing. */
  get saturated(): boolean {
    return (this.maxMutating > 0 && this.#mutating >= this.maxMutating) || (this.maxReadonly > 0 && this.#readonly >= this.maxReadonly);
  }

  /** Whether a request of `verb` would be refused right now. */
  full(verb: string): boolean {
    if (isMutatingVerb(verb)) return this.maxMutating > 0 && this.#mutating >= this.maxMutating;
    return this.maxReadonly > 0 && this.#readonly >= this.maxReadonly;
  }

  /**
   * Counts a request of `verb` against its limit. Returns the function that releases it (call it once, when the
   * response closes), or undefined when the limit is reached and the request must be refused.
   */
  acquire(verb: string): (() => void) | undefined {
    if (this.full(verb)) return undefined;
    if (isMutatingVerb(verb)) {
      if (this.maxMutating <= 0) return noop;
      this.#mutating++;
      return () => void this.#mutating--;
    }
    if (this.maxReadonly <= 0) return noop;
    this.#readonly++;
    return () => void this.#readonly--;
  }

  /** Requests currently counted (for tests and diagnostics). */
  get counts(): { readonly: number; mutating: number } {
    return { readonly: this.#readonly, mutating: this.#mutating };
  }
}

function noop(): void {}
