/**
 * The max-in-flight filter (upstream `server/filters/maxinflight.go`): non-mutating and mutating requests each have
 * a limit on how many are served at once; the excess is refused with 429 at once rather than queued. Watches and
 * the public paths (health checks, /version) are exempt. The counters can be read before any per-request work, so
 * that an overloaded server can refuse an HTTP/2 request for the price of its headers (http2-early-refusal.ts).
 */
import type { Handler } from '../handler.ts';
import type { RequestInfo } from '../request-info.ts';
import { writeTooManyRequests } from '../responsewriters.ts';
import type { FilterOutcomes } from './filter-latency.ts';
import { requestInfoOf } from './request-info.ts';

/**
 * Counts each request that is not exempt against its limit while its response is open. Unlike upstream, members
 * of system:masters are not exempt: the admin certificate is the one identity this server authorizes today, and
 * the limits are what keep an overloaded server answering.
 */
export function withMaxInFlightLimit(handler: Handler, limits: MaxInflight, outcomes?: FilterOutcomes): Handler {
  return function maxInFlight(req, res, ctx) {
    const info = requestInfoOf(ctx);
    if (isExemptFromMaxInFlight(info, ctx.publicPath)) return handler(req, res, ctx);
    const release = limits.acquire(info.verb);
    if (!release) {
      outcomes?.tooManyRequests(req.method ?? 'GET', req.headers['content-type'], info, ctx.query);
      writeTooManyRequests(res);
      return DONE;
    }
    res.once('close', release);
    return handler(req, res, ctx);
  };
}

const DONE = Promise.resolve();

/**
 * Watches (upstream's long-running check: one may last for its whole timeout) and the public paths, which probes
 * and load balancers must reach however busy the server is.
 */
export function isExemptFromMaxInFlight(info: RequestInfo, publicPath: boolean): boolean {
  return publicPath || info.verb === 'watch';
}

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
  /** The most counted at once since the last takeWatermarks() (upstream's requestWatermark). */
  #readonlyHigh = 0;
  #mutatingHigh = 0;
  /** Told every change of a count (apiserver_flowcontrol_read_vs_write_current_requests). */
  onChange: ((kind: 'readOnly' | 'mutating', count: number) => void) | undefined;

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
      if (++this.#mutating > this.#mutatingHigh) this.#mutatingHigh = this.#mutating;
      this.onChange?.('mutating', this.#mutating);
      return () => {
        this.#mutating--;
        this.onChange?.('mutating', this.#mutating);
      };
    }
    if (this.maxReadonly <= 0) return noop;
    if (++this.#readonly > this.#readonlyHigh) this.#readonlyHigh = this.#readonly;
    this.onChange?.('readOnly', this.#readonly);
    return () => {
      this.#readonly--;
      this.onChange?.('readOnly', this.#readonly);
    };
  }

  /** The highest counts since the last call, then starts the next period from the counts of now. */
  takeWatermarks(): { readonly: number; mutating: number } {
    const high = { readonly: this.#readonlyHigh, mutating: this.#mutatingHigh };
    this.#readonlyHigh = this.#readonly;
    this.#mutatingHigh = this.#mutating;
    return high;
  }

  /** Requests currently counted (for tests and diagnostics). */
  get counts(): { readonly: number; mutating: number } {
    return { readonly: this.#readonly, mutating: this.#mutating };
  }
}

function noop(): void {}
