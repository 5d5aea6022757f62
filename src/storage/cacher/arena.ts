/**
 * Packs the cached object bytes into shared slabs.
 *
 * A value straight from storage either owns a backing store of its own (a SQLite blob: ~200 bytes of ArrayBuffer
 * bookkeeping on top of the bytes) or is a view into Node's 8 KiB Buffer pool, where it keeps alive whatever else
 * was allocated around it (request and response scraps: ~12 % extra measured at 100k events). Copying each value
 * once into a slab of its own kind costs a memcpy and leaves only the bytes plus one view object.
 *
 * Slabs are never reused: a slab's memory is released by the GC once no view of it is left. Values written at
 * about the same time share a slab and a value is replaced by a copy in a newer slab when its object is written
 * again, so with event TTLs a slab lives at most one TTL past its last write, like the pool slabs it replaces.
 */

/** Slab size: a few dozen ~1 KB events, so one long-lived value pins little, and the slab tail wastes ~1.5 %. */
export const SLAB_BYTES = 32 * 1024;

export class ValueArena {
  #slab: Buffer | undefined;
  #used = 0;

  constructor(readonly slabBytes = SLAB_BYTES) {}

  /** A copy of `value` in the current slab (values above a quarter slab get a backing store of their own). */
  copy(value: Buffer): Buffer {
    const n = value.length;
    if (n > this.slabBytes >>> 2) {
      const own = Buffer.allocUnsafeSlow(n);
      value.copy(own);
      return own;
    }
    if (!this.#slab || this.#used + n > this.slabBytes) {
      this.#slab = Buffer.allocUnsafeSlow(this.slabBytes);
      this.#used = 0;
    }
    const start = this.#used;
    value.copy(this.#slab, start);
    this.#used = start + n;
    return this.#slab.subarray(start, start + n);
  }
}
