/**
 * EventRateLimit (kubernetes `plugin/pkg/admission/eventratelimit`): a validating plugin that refuses creates and
 * updates (so patches and applies) of Events once a token bucket runs dry. Each configured limit keeps buckets by
 * its key — one for the whole server, or one per namespace, per user, or per source and involved object, in an LRU
 * whose evicted buckets come back full — and every limit takes a token from every request, so a refused request
 * still spends the tokens of the limits that admitted it, as upstream. A refusal is 429 `Too many requests: …`
 * without `Retry-After`: an event recorder should drop the event rather than retry it.
 *
 * Upstream matches only the core group's Event; here Events are one object with two views (events.cluster.io/v1
 * and core/v1), and both count against the same buckets. The SourceAndObject key is built from the stored
 * (events.cluster.io) form either view writes: `deprecatedSource` and `regarding`, which are core/v1's `source`
 * and `involvedObject`. Dry-run requests write nothing and take no token.
 */
import { TooManyRequestsError } from '../../../apimachinery/errors.ts';
import { aggregateText } from '../../../apimachinery/field.ts';
import { GROUP as EVENTS_GROUP, KIND as EVENT_KIND, type Event } from '../../../apis/events/v1/types.ts';
import { LRUCache } from '../../../util/lru.ts';
import { type Clock, TokenBucket, monotonicClock } from '../../../util/token-bucket.ts';
import type { Attributes, Operation, ValidationInterface } from '../../interfaces.ts';
import { type Configuration, DEFAULT_CACHE_SIZE, type Limit, type LimitType, decodeConfiguration, validateConfiguration } from './config.ts';

export const PLUGIN_NAME = 'EventRateLimit';

/** The groups whose `Event` kind is the rate-limited Event (its two views). */
const EVENT_GROUPS = new Set(['', EVENTS_GROUP]);

type KeyFunc = (a: Attributes) => string;

const KEY_FUNCS: Record<LimitType, KeyFunc> = {
  Server: () => '',
  Namespace: (a) => a.namespace,
  User: (a) => a.userInfo.name,
  SourceAndObject: (a) => {
    const e = a.object as Partial<Event> | null;
    if (!e) return '';
    const s = e.deprecatedSource;
    const r = e.regarding;
    // Concatenated without a separator, as upstream does.
    return `${s?.component ?? ''}${s?.host ?? ''}${r?.kind ?? ''}${r?.namespace ?? ''}${r?.name ?? ''}${r?.uid ?? ''}${r?.apiVersion ?? ''}`;
  },
};

/** One limit type's buckets and how a request finds its own. */
class LimitEnforcer {
  readonly #type: LimitType;
  readonly #key: KeyFunc;
  readonly #single: TokenBucket | undefined;
  readonly #cache: LRUCache<string, TokenBucket> | undefined;
  readonly #newBucket: () => TokenBucket;

  constructor(limit: Limit, clock: Clock) {
    this.#type = limit.type as LimitType;
    this.#key = KEY_FUNCS[this.#type];
    this.#newBucket = () => new TokenBucket(limit.qps, limit.burst, clock);
    if (this.#type === 'Server') this.#single = this.#newBucket();
    else this.#cache = new LRUCache(limit.cacheSize === 0 ? DEFAULT_CACHE_SIZE : limit.cacheSize);
  }

  /** Takes a token from the request's bucket at `now`; the refusal text when there is none. */
  accept(a: Attributes, now: number): string | undefined {
    const key = this.#key(a);
    let bucket = this.#single;
    if (!bucket) {
      bucket = this.#cache!.get(key);
      if (!bucket) this.#cache!.add(key, (bucket = this.#newBucket()));
    }
    return bucket.tryAccept(now) ? undefined : `limit reached on type ${this.#type} for key ${key}`;
  }
}

export class EventRateLimit implements ValidationInterface {
  readonly #enforcers: LimitEnforcer[];
  readonly #clock: Clock;

  /** `config` must be valid (see {@link newEventRateLimit}). */
  constructor(config: Configuration, clock: Clock = monotonicClock) {
    this.#clock = clock;
    this.#enforcers = (config.limits ?? []).map((l) => new LimitEnforcer(l, clock));
  }

  handles(op: Operation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  validate(a: Attributes): void {
    if (a.kind.kind !== EVENT_KIND || !EVENT_GROUPS.has(a.kind.group)) return;
    // A dry run stores nothing, so it spends nothing (upstream skips it too).
    if (a.dryRun) return;
    let refusals: string[] | undefined;
    // One reading of the clock for every limit: the request arrives once.
    const now = this.#clock();
    for (const e of this.#enforcers) {
      const refused = e.accept(a, now);
      if (refused !== undefined) (refusals ??= []).push(refused);
    }
    if (refusals) throw new TooManyRequestsError(`Too many requests: ${aggregate(refusals)}`);
  }
}

/** utilerrors.NewAggregate's text: one message, or `[a, b]` with repeats once. */
function aggregate(msgs: string[]): string {
  const unique = [...new Set(msgs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/**
 * The plugin from its configuration text (undefined when the AdmissionConfiguration gives none), or an Error with
 * upstream's text: the decoder's, or the validation aggregate (`limits: Invalid value: null: must not be empty`
 * when no configuration was given at all — the plugin has no default limits).
 */
export function newEventRateLimit(data: string | undefined, clock: Clock = monotonicClock): EventRateLimit {
  const config: Configuration = data === undefined ? { limits: null } : decodeConfiguration(data);
  const errs = validateConfiguration(config);
  if (errs.length) throw new Error(aggregateText(errs));
  return new EventRateLimit(config, clock);
}
