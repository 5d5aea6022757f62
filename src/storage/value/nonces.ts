/**
 * Random nonces for the AES-GCM writes, drawn from a pool that one `randomFillSync` refills: a `randomBytes(12)`
 * per write cost about as much as the encryption itself (each call is a round trip into OpenSSL's generator), and
 * it was the largest single item of a create's encryption cost. Every nonce is still fresh CSPRNG output, handed out
 * once: a slice is never given twice, and the pool is refilled, not wrapped around, when it runs out. Nonces are
 * stored in the clear next to the ciphertext, so holding them in memory before use reveals nothing.
 */
import { randomFillSync } from 'node:crypto';

export class NoncePool {
  readonly #size: number;
  readonly #pool: Buffer;
  #next: number;

  /** `count` nonces of `size` bytes per refill. */
  constructor(size: number, count = 256) {
    if (!Number.isInteger(size) || size <= 0 || !Number.isInteger(count) || count <= 0) throw new Error('nonce pool: size and count must be positive integers');
    this.#size = size;
    // Its own memory, not Node's shared allocation pool: nothing else ever writes these bytes.
    this.#pool = Buffer.alloc(size * count);
    this.#next = this.#pool.length;
  }

  /** Writes the next unused nonce into `out` at `offset`. */
  writeTo(out: Buffer, offset: number): void {
    if (this.#next === this.#pool.length) {
      randomFillSync(this.#pool);
      this.#next = 0;
    }
    const at = this.#next;
    this.#next = at + this.#size;
    this.#pool.copy(out, offset, at, at + this.#size);
  }
}
