/**
 * The data keys of KMS v2 (upstream `encrypt/aes/aes_extended_nonce.go`): a 32-byte seed, encrypted once by the
 * plugin, from which every write derives a fresh AES-256-GCM key as HKDF-Expand(SHA-256, seed, info) with 32 random
 * bytes of info. Stored: info (32) ‖ nonce (12) ‖ ciphertext ‖ tag (16), the storage key as authenticated data. A
 * key is used for one value, so neither the number of writes nor their size wears a key out, and the seed can be
 * kept as long as the plugin's key ID stays the same.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { AesGcmTransformer } from '../aes.ts';
import type { Context, FromStorage, Transformer } from '../transformer.ts';

export const SEED_SIZE = 32;
const INFO_SIZE = 32;

/** HKDF-Expand (RFC 5869) for one SHA-256 block: with L = 32 that is T(1) = HMAC(PRK, info ‖ 0x01). */
function expandOnce(seed: Buffer, info: Buffer): Buffer {
  return createHmac('sha256', seed).update(info).update(Buffer.of(1)).digest();
}

export class SeedTransformer implements Transformer {
  readonly #seed: Buffer;
  /** Derived read keys by info: a list reads many values written with few seeds but as many infos; bounded. */
  readonly #readKeys = new Map<string, AesGcmTransformer>();

  constructor(seed: Buffer) {
    if (seed.length < SEED_SIZE) throw new Error(`invalid seed length ${seed.length} used for key generation`);
    this.#seed = Buffer.from(seed);
  }

  transformFromStorage(data: Buffer, ctx: Context): FromStorage {
    if (data.length < INFO_SIZE) throw new Error('the stored data was shorter than the required size');
    const info = data.subarray(0, INFO_SIZE);
    const k = info.toString('latin1');
    let t = this.#readKeys.get(k);
    if (!t) {
      t = new AesGcmTransformer(expandOnce(this.#seed, info));
      // Upstream keeps these for seconds; a small bound does the same job without a timer.
      if (this.#readKeys.size >= 1024) this.#readKeys.clear();
      this.#readKeys.set(k, t);
    }
    return t.transformFromStorage(data.subarray(INFO_SIZE), ctx);
  }

  transformToStorage(data: Buffer, ctx: Context): Buffer {
    const info = randomBytes(INFO_SIZE);
    const out = new AesGcmTransformer(expandOnce(this.#seed, info)).transformToStorage(data, ctx);
    return Buffer.concat([info, out]);
  }
}
