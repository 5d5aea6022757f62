/**
 * A token bucket as client-go's `flowcontrol.NewTokenBucketRateLimiterWithClock` builds it on golang.org/x/time/rate:
 * it starts full with `burst` tokens, refills continuously at `qps` tokens a second up to `burst`, and `tryAccept`
 * takes one token if a whole one is there. A refusal changes nothing (x/time/rate updates its state only for a
 * granted reservation), so a client hammering a full bucket does not push its own refill further away.
 */

/** Milliseconds from any fixed origin; injected so that tests move time by hand. */
export type Clock = () => number;

/** A monotonic clock: wall-clock steps (NTP, suspend) must not hand out or withhold tokens. */
export const monotonicClock: Clock = () => performance.now();

export class TokenBucket {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  constructor(qps: number, burst: number, clock: Clock = monotonicClock) {
    // client-go passes qps as a float32; the configurations that feed this hold int32 values, which float32 keeps
    // exactly up to 2^24, far beyond any sensible rate.
    this.#qps = Math.fround(qps);
    this.#burst = burst;
    this.#clock = clock;
    this.#tokens = burst;
    this.#last = clock();
  }

  /**
   * Takes one token when one is available (x/time/rate's `AllowN(now, 1)`). `now` may be passed in by a caller
   * that consults several buckets for one request and reads the clock once.
   */
  tryAccept(now: number = this.#clock()): boolean {
    // A clock that went backwards counts as no time passed (x/time/rate's advance does the same).
    const last = now < this.#last ? now : this.#last;
    const tokens = Math.min(this.#burst, this.#tokens + ((now - last) / 1000) * this.#qps) - 1;
    if (tokens < 0) return false;
    this.#tokens = tokens;
    this.#last = now;
    return true;
  }
}
