/**
 * The secretbox provider (upstream `pkg/storage/value/encrypt/secretbox`): XSalsa20-Poly1305 from tweetnacl (a
 * faithful, audited port of NaCl), below the key's prefix. Stored: nonce (24 random bytes) ‖ box, where the box is
 * Poly1305 tag (16) ‖ ciphertext — byte for byte what Go's `secretbox.Seal` writes, so data moves between the two.
 * No additional authenticated data, as upstream: secretbox has none.
 */
import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import type { Context, FromStorage, Transformer } from './transformer.ts';

const NONCE = 24;
const OVERHEAD = 16;

export class SecretboxTransformer implements Transformer {
  readonly #key: Uint8Array;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error(`expected key size 32 for secretbox provider, got ${key.length}`);
    this.#key = new Uint8Array(key);
  }

  transformFromStorage(data: Buffer, _ctx: Context): FromStorage {
    if (data.length < NONCE + OVERHEAD) throw new Error('the stored data was shorter than the required size');
    const opened = nacl.secretbox.open(data.subarray(NONCE), data.subarray(0, NONCE), this.#key);
    // Upstream's text for a box that does not open (wrong key or tampered bytes), odd as it reads.
    if (!opened) throw new Error('output array was not large enough for encryption');
    return { data: Buffer.from(opened.buffer, opened.byteOffset, opened.byteLength), stale: false };
  }

  transformToStorage(data: Buffer, _ctx: Context): Buffer {
    const nonce = randomBytes(NONCE);
    const box = nacl.secretbox(data, nonce, this.#key);
    const out = Buffer.allocUnsafe(NONCE + box.length);
    nonce.copy(out, 0);
    out.set(box, NONCE);
    return out;
  }
}
