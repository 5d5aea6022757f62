/**
 * Transformers for storage tests that make a skipped or misplaced transformation fail loudly. The scrambling one
 * really changes the bytes and binds them to their key: `scrambled:v1:` + the first 8 bytes of SHA-256(key) + the
 * value XORed with a pad made from that hash. A path that stored or handed out bytes without passing them through
 * it produces something no codec can read; a value read under another key, or one it did not write, throws.
 */
import { createHash } from 'node:crypto';
import type { Context, FromStorage, MaybePromise, Transformer } from '../value/transformer.ts';

export const SCRAMBLED_PREFIX = Buffer.from('scrambled:v1:');
const TAG = 8;

function pad(ctx: Context): Buffer {
  return createHash('sha256').update(ctx.authenticatedData()).digest();
}

function xor(data: Buffer, p: Buffer, out: Buffer, at: number): void {
  for (let i = 0; i < data.length; i++) out[at + i] = data[i]! ^ p[i % p.length]! ^ 0x5a;
}

export class ScramblingTransformer implements Transformer {
  /** Calls so far, for tests that count them. */
  reads = 0;
  writes = 0;
  /** Reports every value read as stale (a key rotation in progress). */
  stale = false;

  transformToStorage(data: Buffer, ctx: Context): Buffer {
    this.writes++;
    const p = pad(ctx);
    const out = Buffer.allocUnsafe(SCRAMBLED_PREFIX.length + TAG + data.length);
    SCRAMBLED_PREFIX.copy(out, 0);
    p.copy(out, SCRAMBLED_PREFIX.length, 0, TAG);
    xor(data, p, out, SCRAMBLED_PREFIX.length + TAG);
    return out;
  }

  transformFromStorage(data: Buffer, ctx: Context): FromStorage {
    this.reads++;
    const head = SCRAMBLED_PREFIX.length;
    if (data.length < head + TAG || !data.subarray(0, head).equals(SCRAMBLED_PREFIX)) throw new Error('not scrambled: no scrambled:v1: prefix');
    const p = pad(ctx);
    if (!data.subarray(head, head + TAG).equals(p.subarray(0, TAG))) throw new Error('scrambled under another key');
    const body = data.subarray(head + TAG);
    const out = Buffer.allocUnsafe(body.length);
    xor(body, p, out, 0);
    return { data: out, stale: this.stale };
  }
}

/**
 * Wraps a transformer so that it answers the first read of each stored value (and every other write) with a
 * Promise, settled on a later turn, and repeated reads synchronously: what a KMS v2 provider does while it fetches
 * a data key it has not decrypted yet. Exercises every path's asynchronous branch.
 */
export class AsyncFirstTransformer implements Transformer {
  readonly #inner: Transformer;
  readonly #seen = new Set<string>();
  #writes = 0;
  /** Reads answered with a Promise so far. */
  asyncReads = 0;

  constructor(inner: Transformer) {
    this.#inner = inner;
  }

  transformFromStorage(data: Buffer, ctx: Context): MaybePromise<FromStorage> {
    const id = data.toString('base64');
    if (this.#seen.has(id)) return this.#inner.transformFromStorage(data, ctx);
    this.asyncReads++;
    return new Promise((resolve) => setImmediate(resolve)).then(() => {
      this.#seen.add(id);
      return this.#inner.transformFromStorage(data, ctx);
    });
  }

  transformToStorage(data: Buffer, ctx: Context): MaybePromise<Buffer> {
    if (this.#writes++ % 2 === 0) return this.#inner.transformToStorage(data, ctx);
    return new Promise((resolve) => setImmediate(resolve)).then(() => this.#inner.transformToStorage(data, ctx));
  }
}
