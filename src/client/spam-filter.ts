/**
 * client-go's EventSourceObjectSpamFilter (tools/record/events_cache.go): one token bucket per source and object
 * (and event type), 25 events at once and one more every 5 minutes, its buckets kept in a 4096-entry LRU cache.
 * An object that is always unhealthy cannot flood the API server with Events from one reporter.
 */

/** client-go's defaultSpamBurst, defaultSpamQPS and maxLruCacheEntries. */
export const SPAM_BURST = 25;
export const SPAM_QPS = 1 / 300;
export const SPAM_CACHE_ENTRIES = 4096;

/** A passive token bucket (flowcontrol.NewTokenBucketPassiveRateLimiter): full at first, refilled at `qps`. */
class TokenBucket {
  #tokens: number;
  #last: number;
  constructor(
    readonly qps: number,
    readonly burst: number,
    now: number,
  ) {
    this.#tokens = burst;
    this.#last = now;
  }

  tryAccept(now: number): boolean {
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) / 1000) * this.qps);
    this.#last = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

export class SpamFilter {
  readonly #buckets = new Map<string, TokenBucket>();

  constructor(
    readonly burst = SPAM_BURST,
    readonly qps = SPAM_QPS,
    readonly size = SPAM_CACHE_ENTRIES,
    readonly now: () => number = Date.now,
  ) {}

  /** True when the event of this key is over its rate and must be dropped. */
  filter(key: string): boolean {
    const t = this.now();
    let b = this.#buckets.get(key);
    if (b) this.#buckets.delete(key);
    else b = new TokenBucket(this.qps, this.burst, t);
    // Re-inserted last: a Map iterates in insertion order, so the first key is the least recently used.
    this.#buckets.set(key, b);
    if (this.#buckets.size > this.size) this.#buckets.delete(this.#buckets.keys().next().value!);
    return !b.tryAccept(t);
  }
}

/** getSpamKey: the source (reporting controller and instance), the object, and the event type. */
export function spamKey(source: { controller: string; instance: string }, regarding: { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string }, type: string): string {
  // client-go joins without a separator; a NUL keeps distinct field splits distinct.
  return [source.controller, source.instance, regarding.kind, regarding.namespace, regarding.name, regarding.uid, regarding.apiVersion, type].map((s) => s ?? '').join('\0');
}
