/**
 * An Event recorder with client-go `tools/events` semantics (event_broadcaster.go, event_recorder.go), writing to
 * the events API (`events.cluster.io/v1`) of this server:
 *
 * - `eventf` never waits: it builds the Event, applies the spam filter (client-go's per source and object token
 *   bucket), folds isomorphic events into a series, and puts what must be written on a bounded queue (1000); what
 *   the filter or a full queue drops is counted in `dropped`.
 * - The second isomorphic event within the series window turns the first into a series: `series {count: 2,
 *   lastObservedTime}` by a strategic merge patch of the first Event (created anew if it is gone). Later ones only
 *   count up in memory; every 30 minutes (the heartbeat) each ongoing series is written again, and a series quiet
 *   for 6 minutes is written a last time and forgotten, as is a singleton that old.
 * - 8 writers drain the queue. A transport failure is retried up to 12 tries, 10 s (+25 % jitter) apart; an answer
 *   from the server is final (apart from AlreadyExists for a series, and the REST client's Retry-After retries).
 * - `shutdown` writes the counts of series not yet written and waits for the queue to drain, up to a timeout.
 */
import type { Event } from '../apis/events/v1/types.ts';
import { formatMicroTime, makeEvent, nowMicros, seriesKey, type EventType, type ObjectReference } from './event.ts';
import { sleep, type RestClient } from './rest.ts';
import { SpamFilter, spamKey } from './spam-filter.ts';

/** client-go tools/events' constants. */
export const MAX_TRIES_PER_EVENT = 12;
export const FINISH_TIME_MS = 6 * 60_000;
export const REFRESH_TIME_MS = 30 * 60_000;
export const MAX_QUEUED_EVENTS = 1000;
export const RECORD_WORKERS = 8;
export const DEFAULT_SLEEP_MS = 10_000;

export type Logger = (level: number, msg: string) => void;

export interface EventRecorderOptions {
  client: RestClient;
  /** Who records: e.g. `corelet`, `my-controller`. */
  reportingController: string;
  /** Which instance of it: e.g. the node name, `<controller>-<hostname>`. */
  reportingInstance: string;
  log?: Logger;
  /** The rest are upstream's values unless given (tests make them short). */
  queueSize?: number;
  workers?: number;
  heartbeatMs?: number;
  finishMs?: number;
  retrySleepMs?: number;
  spamBurst?: number;
  spamQps?: number;
}

/** What was not written, by cause. */
export interface DroppedEvents {
  /** Over the spam filter's rate for its source and object. */
  rateLimited: number;
  /** The queue was full. */
  queueFull: number;
  /** Refused by the server, or still failing after the last try. */
  failed: number;
  /** Recorded after shutdown began, or still queued when its timeout passed. */
  shutdown: number;
}

interface CacheEntry {
  event: Event;
  /** Microseconds: eventTime, and the series' lastObservedTime. */
  eventTimeUs: number;
  lastObservedUs: number;
  /** Bumped on each change, so a write that raced with one does not drop or overwrite it. */
  version: number;
  /** The series count the server last accepted. */
  writtenCount: number;
}

interface Job {
  event: Event;
  key: string;
}

const EVENTS_PATH = '/apis/events.cluster.io/v1/namespaces';

export class EventRecorder {
  readonly dropped: DroppedEvents = { rateLimited: 0, queueFull: 0, failed: 0, shutdown: 0 };
  readonly #o: Required<Omit<EventRecorderOptions, 'client' | 'log'>> & { client: RestClient; log: Logger };
  readonly #cache = new Map<string, CacheEntry>();
  readonly #queue: Job[] = [];
  readonly #spam: SpamFilter;
  readonly #abort = new AbortController();
  readonly #timers: NodeJS.Timeout[] = [];
  #active = 0;
  #closed = false;
  #idle: Array<() => void> = [];

  constructor(opts: EventRecorderOptions) {
    this.#o = {
      queueSize: MAX_QUEUED_EVENTS,
      workers: RECORD_WORKERS,
      heartbeatMs: REFRESH_TIME_MS,
      finishMs: FINISH_TIME_MS,
      retrySleepMs: DEFAULT_SLEEP_MS,
      spamBurst: 25,
      spamQps: 1 / 300,
      log: () => {},
      ...opts,
    };
    this.#spam = new SpamFilter(this.#o.spamBurst, this.#o.spamQps);
    const every = (ms: number, fn: () => Promise<void>) => {
      let running = false;
      const t = setInterval(() => {
        if (running) return;
        running = true;
        void fn().finally(() => (running = false));
      }, ms);
      // A recorder alone never keeps a process alive.
      t.unref();
      this.#timers.push(t);
    };
    every(this.#o.heartbeatMs, () => this.#refreshSeries());
    every(this.#o.finishMs, () => this.#finishSeries());
  }

  /** Events waiting to be written. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Records an Event (client-go's Eventf with the note already formatted). Never blocks, never throws. */
  eventf(regarding: ObjectReference, related: ObjectReference | undefined, type: EventType, reason: string, action: string, note: string): void {
    if (this.#closed) {
      this.dropped.shutdown++;
      return;
    }
    if (type !== 'Normal' && type !== 'Warning') {
      this.#o.log(0, `unsupported event type ${JSON.stringify(type)}: event ${reason} not recorded`);
      return;
    }
    const nowUs = nowMicros();
    const source = { controller: this.#o.reportingController, instance: this.#o.reportingInstance };
    if (this.#spam.filter(spamKey(source, regarding, type))) {
      this.dropped.rateLimited++;
      this.#o.log(4, `event ${reason} about ${regarding.kind} ${regarding.namespace ?? ''}/${regarding.name}: over the rate for this object, dropped`);
      return;
    }
    const event = makeEvent({ reportingController: source.controller, reportingInstance: source.instance, regarding, ...(related ? { related } : {}), type, reason, action, note, eventTimeUs: nowUs });
    const key = seriesKey(event);
    const cached = this.#cache.get(key);
    if (!cached) {
      this.#cache.set(key, { event, eventTimeUs: nowUs, lastObservedUs: nowUs, version: 0, writtenCount: 0 });
      this.#enqueue({ event: structuredClone(event), key });
      return;
    }
    cached.version++;
    cached.lastObservedUs = nowUs;
    if (cached.event.series) {
      cached.event.series = { count: cached.event.series.count + 1, lastObservedTime: formatMicroTime(nowUs) };
      return;
    }
    cached.event.series = { count: 2, lastObservedTime: formatMicroTime(nowUs) };
    this.#enqueue({ event: structuredClone(cached.event), key });
  }

  /**
   * Stops recording: writes the counts of series not yet written, then waits until every queued Event is written
   * or `timeoutMs` passed (what is left then is counted as dropped). Resolves true when everything was written.
   */
  async shutdown(timeoutMs = 10_000): Promise<boolean> {
    if (this.#closed) return this.#queue.length === 0 && this.#active === 0;
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    for (const [key, e] of this.#cache) if (e.event.series && e.event.series.count !== e.writtenCount) this.#enqueue({ event: structuredClone(e.event), key }, true);
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      this.#whenIdle().then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (!drained) {
      this.dropped.shutdown += this.#queue.length;
      this.#queue.length = 0;
      this.#abort.abort();
      this.#o.log(0, `event recorder: ${this.#active} event writes still running after ${timeoutMs} ms: abandoned`);
    }
    this.#o.client.close();
    return drained;
  }

  #enqueue(job: Job, force = false): void {
    if (!force && this.#queue.length >= this.#o.queueSize) {
      this.dropped.queueFull++;
      this.#o.log(0, `unable to record event: too many queued events, dropped event ${job.event.reason} about ${job.event.regarding.kind} ${job.event.regarding.name}`);
      return;
    }
    this.#queue.push(job);
    // Writers start on a later tick: eventf's caller goes on at once.
    while (this.#active < this.#o.workers && this.#active < this.#queue.length) {
      this.#active++;
      setImmediate(() => void this.#work());
    }
  }

  async #work(): Promise<void> {
    try {
      for (let job = this.#queue.shift(); job && !this.#abort.signal.aborted; job = this.#queue.shift()) await this.#attempt(job);
    } finally {
      this.#active--;
      if (this.#active === 0 && this.#queue.length === 0) for (const f of this.#idle.splice(0)) f();
    }
  }

  #whenIdle(): Promise<void> {
    if (this.#active === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((r) => this.#idle.push(r));
  }

  async #attempt(job: Job): Promise<void> {
    for (let tries = 1; ; tries++) {
      const r = await this.#record(job.event);
      if (!r.retry) {
        if (r.ok) this.#written(job);
        else this.dropped.failed++;
        return;
      }
      if (tries >= MAX_TRIES_PER_EVENT || this.#abort.signal.aborted) {
        this.dropped.failed++;
        this.#o.log(0, `unable to write event ${job.event.reason} about ${job.event.regarding.kind} ${job.event.regarding.name} (retry limit exceeded!)`);
        return;
      }
      // Jittered, so that many clients do not come back at the same moment after an outage.
      await sleep(this.#o.retrySleepMs * (1 + Math.random() * 0.25), this.#abort.signal);
    }
  }

  #written(job: Job): void {
    const e = this.#cache.get(job.key);
    if (e && job.event.series && e.writtenCount < job.event.series.count) e.writtenCount = job.event.series.count;
  }

  /** recordEvent: a series is patched (created when gone), a singleton created. */
  async #record(event: Event): Promise<{ ok: boolean; retry: boolean }> {
    const ns = event.metadata.namespace!;
    const series = event.series;
    try {
      if (series) {
        const p = await this.#o.client.request('PATCH', `${EVENTS_PATH}/${ns}/events/${event.metadata.name}`, { series }, 'application/strategic-merge-patch+json', this.#abort.signal);
        if (p.status >= 200 && p.status < 300) return { ok: true, retry: false };
        if (p.status !== 404) return this.#refused(event, p.status, p.body);
      }
      const { resourceVersion: _, ...metadata } = event.metadata;
      const c = await this.#o.client.request('POST', `${EVENTS_PATH}/${ns}/events`, { ...event, metadata }, 'application/json', this.#abort.signal);
      if (c.status >= 200 && c.status < 300) return { ok: true, retry: false };
      // The patch found nothing and the create found it there: the first write of this series landed meanwhile.
      if (series && c.status === 409 && c.body.reason === 'AlreadyExists') return { ok: false, retry: true };
      // A singleton that exists already: its series' write created it first.
      if (c.status === 409 && c.body.reason === 'AlreadyExists') return { ok: true, retry: false };
      return this.#refused(event, c.status, c.body);
    } catch (e) {
      if (!this.#abort.signal.aborted) this.#o.log(2, `unable to write event ${event.reason} (may retry after sleeping): ${(e as Error).message}`);
      return { ok: false, retry: true };
    }
  }

  #refused(event: Event, status: number, body: Record<string, any>): { ok: false; retry: false } {
    this.#o.log(0, `server rejected event ${event.reason} about ${event.regarding.kind} ${event.regarding.name} (will not retry!): ${status} ${body.message ?? ''}`);
    return { ok: false, retry: false };
  }

  /** The heartbeat: every ongoing series written again, so its Event outlives the server's event TTL. */
  async #refreshSeries(): Promise<void> {
    for (const [key, e] of [...this.#cache]) {
      if (!e.event.series || this.#closed) continue;
      const job = { event: structuredClone(e.event), key };
      const r = await this.#record(job.event);
      if (r.ok) this.#written(job);
    }
  }

  /** A series quiet for the finish time is written a last time and forgotten; so is a singleton that old. */
  async #finishSeries(): Promise<void> {
    const cutoff = nowMicros() - this.#o.finishMs * 1000;
    for (const [key, e] of [...this.#cache]) {
      if (this.#closed) return;
      const version = e.version;
      if (e.event.series) {
        if (e.lastObservedUs >= cutoff) continue;
        const job = { event: structuredClone(e.event), key };
        const r = await this.#record(job.event);
        if (r.retry) continue;
        if (r.ok) this.#written(job);
      } else if (e.eventTimeUs >= cutoff) continue;
      // An occurrence while the write was under way means the series goes on.
      if (this.#cache.get(key) === e && e.version === version) this.#cache.delete(key);
    }
  }
}
