/**
 * Response bodies assembled into socket-sized chunks: pieces of stored bytes and short strings are copied into
 * one buffer, so a large list leaves in few writes without building per-item strings or one huge buffer.
 * Hand-written because stream helpers either keep every piece as its own write or concatenate after the fact.
 */

import type { ByteSink } from '../../registry/rest/table.ts';

export type { ByteSink };

export const CHUNK = 64 * 1024;

// Pieces up to this many bytes are copied by a JS loop.
const SHORT = 32;

/** Collects pieces into chunks of at least CHUNK bytes (one piece larger than that gets a chunk of its own size). */
export class ChunkBuilder implements ByteSink {
  #buf: Buffer = Buffer.allocUnsafe(CHUNK);
  #off = 0;
  /** Full chunks waiting to be written. */
  #ready: Buffer[] = [];

  raw(b: Buffer, start: number, end: number): void {
    const n = end - start;
    this.#room(n);
    // Short pieces (Table cells) are copied in JS: a native copy costs more than the bytes it moves.
    if (n <= SHORT) {
      const buf = this.#buf;
      const off = this.#off - start;
      for (let i = start; i < end; i++) buf[off + i] = b[i]!;
    } else b.copy(this.#buf, this.#off, start, end);
    this.#off += n;
  }

  text(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: reserving that much avoids measuring the string first.
    this.#room(s.length * 3);
    this.#off += this.#buf.write(s, this.#off);
  }

  byte(c: number): void {
    this.#room(1);
    this.#buf[this.#off++] = c;
  }

  bytes(s: string): void {
    const n = s.length;
    this.#room(n);
    if (n <= SHORT) {
      const buf = this.#buf;
      const off = this.#off;
      for (let i = 0; i < n; i++) buf[off + i] = s.charCodeAt(i);
      this.#off += n;
    } else this.#off += this.#buf.write(s, this.#off, 'latin1');
  }

  /** Bytes written since the last `take`. */
  get size(): number {
    let n = this.#off;
    for (const c of this.#ready) n += c.length;
    return n;
  }

  /** True when at least one full chunk is waiting. */
  get full(): boolean {
    return this.#ready.length > 0;
  }

  /** The full chunks waiting (emptied); the chunk being filled stays. */
  takeFull(): Buffer[] {
    const out = this.#ready;
    this.#ready = [];
    return out;
  }

  /** Everything written so far as one buffer (the builder is empty afterwards). */
  takeAll(): Buffer {
    const parts = this.takeFull();
    if (this.#off) parts.push(this.#buf.subarray(0, this.#off));
    this.#buf = Buffer.allocUnsafe(CHUNK);
    this.#off = 0;
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  #room(n: number): void {
    if (this.#off + n <= this.#buf.length) return;
    if (this.#off) this.#ready.push(this.#buf.subarray(0, this.#off));
    this.#buf = Buffer.allocUnsafe(Math.max(CHUNK, n));
    this.#off = 0;
  }
}
