/**
 * etcd leases for TTLs, reused as upstream's leaseManager (pkg/storage/etcd3/lease_manager.go) does: granting a
 * lease is a Raft write and every live lease costs the leader a timer, so writes with similar deadlines share one.
 * The previous lease is reused while it expires within [now + ttl, now + ttl + reuse], where reuse is 5 % of the
 * TTL capped at --lease-reuse-duration-seconds (60 s by default: an Event with the default 1 h TTL lives at most a
 * minute longer), and while fewer than 1000 objects have been attached to it (upstream's cap, so that one lease's
 * expiry never deletes an unbounded number of keys in one Raft entry). A new lease is granted for ttl + reuse.
 */
import type { EtcdClient } from './client.ts';
import { int64String, leaseIdOf, type LeaseId } from './proto.ts';

/** Upstream's defaults: 5 % of the TTL, at most 1000 objects per lease. */
export const LEASE_REUSE_PERCENT = 0.05;
export const LEASE_MAX_OBJECTS = 1000;

export interface LeaseManagerOptions {
  /** --lease-reuse-duration-seconds (default 60). */
  reuseDurationSeconds?: number;
  maxObjectsPerLease?: number;
  now?: () => number;
  /** Called with the number of objects a lease had when it is replaced (etcd_lease_object_counts). */
  onLeaseRetired?: (objects: number) => void;
}

export class LeaseManager {
  readonly #client: EtcdClient;
  readonly #reuseSeconds: number;
  readonly #maxObjects: number;
  readonly #now: () => number;
  readonly #onRetired: ((objects: number) => void) | undefined;
  #prevId = '0';
  /** #prevId in the encoder's form, parsed once when granted (the encoder would parse the string on every put). */
  #prevEncoded: LeaseId | string = '0';
  #prevExpiresAt = 0;
  #attached = 0;
  /** A grant under way: concurrent writes wait for it instead of each granting their own lease. */
  #granting: Promise<void> | undefined;
  /** Leases granted (for tests and the lease metrics). */
  granted = 0;

  constructor(client: EtcdClient, opts: LeaseManagerOptions = {}) {
    this.#client = client;
    this.#reuseSeconds = opts.reuseDurationSeconds ?? 60;
    this.#maxObjects = opts.maxObjectsPerLease ?? LEASE_MAX_OBJECTS;
    this.#now = opts.now ?? Date.now;
    this.#onRetired = opts.onLeaseRetired;
  }

  /** etcd no longer has lease `id`: stop handing it out. */
  forget(id: string): void {
    if (this.#prevId === id) {
      this.#prevId = '0';
      this.#prevEncoded = '0';
      this.#prevExpiresAt = 0;
      this.#attached = 0;
    }
  }

  /** The reuse window for `ttl` seconds: 5 % of it, whole seconds, capped at the flag. */
  reuseSeconds(ttl: number): number {
    return Math.min(Math.floor(LEASE_REUSE_PERCENT * ttl), this.#reuseSeconds);
  }

  /** A lease ID from getLease in the form a put request carries it. */
  encoded(id: string): LeaseId | string {
    return id === this.#prevId ? this.#prevEncoded : leaseIdOf(id);
  }

  /**
   * A lease ID (decimal int64) that expires no earlier than `ttlSeconds` from now: the current one, at once, while it
   * may be reused (nearly every call: no promise per write), else once a new one is granted.
   */
  getLease(ttlSeconds: number): string | Promise<string> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    return this.#reuse(ttl) ?? this.#grant(ttl);
  }

  #reuse(ttl: number): string | undefined {
    const now = this.#now();
    const reuse = this.reuseSeconds(ttl);
    const valid = now + ttl * 1000 < this.#prevExpiresAt;
    const sufficient = now + (ttl + reuse) * 1000 > this.#prevExpiresAt;
    if (!(valid && sufficient && this.#attached < this.#maxObjects)) return undefined;
    this.#attached++;
    return this.#prevId;
  }

  async #grant(ttl: number): Promise<string> {
    for (;;) {
      if (this.#granting) {
        await this.#granting.catch(() => {});
        const id = this.#reuse(ttl);
        if (id !== undefined) return id;
        continue;
      }
      const now = this.#now();
      const reuse = this.reuseSeconds(ttl);
      let done!: () => void;
      this.#granting = new Promise<void>((r) => (done = r));
      try {
        const res = await this.#client.call('leaseGrant', { TTL: ttl + reuse });
        if (res.error) throw new Error(`etcd refused a lease of ${ttl + reuse}s: ${res.error}`);
        if (this.#attached > 0) this.#onRetired?.(this.#attached);
        this.granted++;
        this.#prevId = int64String(res.ID);
        this.#prevEncoded = leaseIdOf(this.#prevId);
        // From the time of asking, as upstream: the lease started no earlier than that.
        this.#prevExpiresAt = now + (ttl + reuse) * 1000;
        this.#attached = 1;
        return this.#prevId;
      } finally {
        this.#granting = undefined;
        done();
      }
    }
  }
}
