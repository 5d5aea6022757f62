/** Shared plumbing for the storage conformance suite (see ../conformance.ts). */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Storage, StorageErrorCode, StorageEvent, Watch } from '../interface.ts';
import { StorageError } from '../interface.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { jsonCodec } from './json-codec.ts';

/** What a backend factory hands the suite for one test. */
export interface ConformanceBackend {
  storage: Storage;
  /** Closes the storage (if the test did not) and removes what the backend created. */
  cleanup(): Promise<void>;
  /**
   * Moves the backend's TTL clock forward by `ms` (backends with an injectable clock). Without it the TTL tests
   * wait in real time.
   */
  advanceClock?(ms: number): void;
}

export interface ConformanceOptions {
  /** How long an expired object may linger before the backend deletes it (default 3000 ms). */
  ttlGraceMs?: number;
  /** TTL used by the real-time TTL tests, in seconds (default 2). */
  realTimeTtlSeconds?: number;
}

export interface ConformanceContext {
  make: () => Promise<ConformanceBackend>;
  opts: ConformanceOptions;
}

/** Runs `fn` against a fresh backend and a fresh key prefix, cleaning up whatever happens. */
export async function withStorage(ctx: ConformanceContext, fn: (s: Storage, p: string, b: ConformanceBackend) => Promise<void>): Promise<void> {
  const b = await ctx.make();
  try {
    await fn(b.storage, `/conformance-${randomBytes(4).toString('hex')}/`, b);
  } finally {
    await b.cleanup();
  }
}

export function obj(name: string, data: unknown = 'x'): KubeObject {
  return { apiVersion: 'v1', kind: 'Thing', metadata: { name, namespace: 'ns' }, data };
}

/** The suite's view of stored bytes: backends under test are built with `jsonCodec` (./json-codec.ts). */
export function decode(value: Buffer): KubeObject {
  return jsonCodec.decode(value);
}

/** Asserts that `value` carries metadata.resourceVersion == rv. */
export function assertRvInside(value: Buffer, rv: number): void {
  assert.equal(decode(value).metadata.resourceVersion, String(rv));
}

export async function rejectsWith(p: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof StorageError, `expected StorageError ${code}, got ${String(err)}`);
    assert.equal(err.code, code);
    return err;
  }
  assert.fail(`expected StorageError ${code}, but the call succeeded`);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `cond` every 10 ms until it holds or `timeoutMs` passes (then fails with `what`). */
export async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** A watch that records what it receives. */
export class Recorder {
  readonly events: StorageEvent[] = [];
  error: Error | undefined;
  watch!: Watch;

  static start(s: Storage, prefix: string, fromRV: number): Recorder {
    const r = new Recorder();
    r.watch = s.watch(prefix, fromRV, { onEvent: (ev) => r.events.push(ev), onError: (err) => (r.error = err) });
    return r;
  }

  async waitFor(n: number, timeoutMs = 5000): Promise<StorageEvent[]> {
    await waitUntil(() => this.events.length >= n || this.error !== undefined, timeoutMs, `${n} watch events (have ${this.events.length})`);
    if (this.error) throw this.error;
    return this.events;
  }

  async waitForError(timeoutMs = 5000): Promise<Error> {
    await waitUntil(() => this.error !== undefined, timeoutMs, 'a watch error');
    return this.error!;
  }

  /** `[type, key, rv]` triples, easy to compare. */
  summary(): [string, string, number][] {
    return this.events.map((e) => [e.type, e.key, e.rv]);
  }
}
