/**
 * The AES providers (upstream `pkg/storage/value/encrypt/aes`), as transformers below a key's prefix: the prefix
 * transformers (prefix.ts) have already taken `cluster:enc:aesgcm:v1:<key>:` off on reads and put it on for writes.
 *
 * - aesgcm: nonce (12 random bytes) ‖ AES-GCM ciphertext ‖ tag (16), the storage key as additional authenticated
 *   data, so a value copied under another key does not read. A random 96-bit nonce is safe for about 2^32 writes
 *   per key (upstream's documented advice: rotate aesgcm keys well before that).
 * - aescbc: IV (16 random bytes) ‖ AES-CBC ciphertext with PKCS#7 padding; no authentication (upstream's legacy
 *   provider; the spec keeps it for migrations).
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { NoncePool } from './nonces.ts';
import type { Context, FromStorage, PrefixingTransformer, Transformer } from './transformer.ts';

const GCM_NONCE = 12;
const GCM_TAG = 16;
const BLOCK = 16;
const EMPTY = Buffer.alloc(0);
/** Shared by every AES-GCM key: KMS v2 makes a transformer per write, which must not cost a pool refill each. */
const gcmNonces = new NoncePool(GCM_NONCE);

type Mode = 'gcm' | 'cbc';

/** The cipher for a key of 16, 24 or 32 bytes in `mode`. */
function aesCipher<M extends Mode>(key: Buffer, mode: M): `aes-${128 | 192 | 256}-${M}` {
  if (key.length === 16 || key.length === 24 || key.length === 32) return `aes-${(key.length * 8) as 128 | 192 | 256}-${mode}`;
  // Go's aes.KeySizeError text: validation refuses such keys first, this guards direct use.
  throw new Error(`crypto/aes: invalid key size ${key.length}`);
}

export class AesGcmTransformer implements PrefixingTransformer {
  readonly #key: KeyObject;
  readonly #alg: `aes-${128 | 192 | 256}-gcm`;

  constructor(key: Buffer) {
    this.#alg = aesCipher(key, 'gcm');
    // A KeyObject, made once: a Buffer key is copied into a new one by every createCipheriv.
    this.#key = createSecretKey(key);
  }

  transformFromStorage(data: Buffer, ctx: Context): FromStorage {
    if (data.length < GCM_NONCE + GCM_TAG) throw new Error('the stored data was shorter than the required size');
    const d = createDecipheriv(this.#alg, this.#key, data.subarray(0, GCM_NONCE), { authTagLength: GCM_TAG });
    d.setAAD(ctx.authenticatedData());
    d.setAuthTag(data.subarray(data.length - GCM_TAG));
    const body = data.subarray(GCM_NONCE, data.length - GCM_TAG);
    try {
      const a = d.update(body);
      const b = d.final();
      return { data: b.length ? Buffer.concat([a, b]) : a, stale: false };
    } catch {
      // Go's text for a failed GCM open: wrong key, tampered bytes, or a value moved to another storage key.
      throw new Error('cipher: message authentication failed');
    }
  }

  transformToStorage(data: Buffer, ctx: Context): Buffer {
    return this.transformToStorageAfter(EMPTY, data, ctx);
  }

  /** `prefix` ‖ nonce ‖ ciphertext ‖ tag, in one buffer: the ciphertext is copied once, the nonce never. */
  transformToStorageAfter(prefix: Buffer, data: Buffer, ctx: Context): Buffer {
    const p = prefix.length;
    const out = Buffer.allocUnsafe(p + GCM_NONCE + data.length + GCM_TAG);
    prefix.copy(out, 0);
    gcmNonces.writeTo(out, p);
    const c = createCipheriv(this.#alg, this.#key, out.subarray(p, p + GCM_NONCE), { authTagLength: GCM_TAG });
    c.setAAD(ctx.authenticatedData());
    let n = p + GCM_NONCE + c.update(data).copy(out, p + GCM_NONCE);
    n += c.final().copy(out, n);
    // GCM is a stream mode: all of `out` but the tag is written by now, so no uninitialised byte can be stored.
    if (n !== out.length - GCM_TAG) throw new Error(`aes-gcm wrote ${n - p - GCM_NONCE} bytes for ${data.length}`);
    c.getAuthTag().copy(out, n);
    return out;
  }
}

export class AesCbcTransformer implements Transformer {
  readonly #key: KeyObject;
  readonly #alg: `aes-${128 | 192 | 256}-cbc`;

  constructor(key: Buffer) {
    this.#alg = aesCipher(key, 'cbc');
    this.#key = createSecretKey(key);
  }

  transformFromStorage(data: Buffer, _ctx: Context): FromStorage {
    // Upstream's checks and texts, in its order.
    if (data.length < BLOCK) throw new Error('the stored data was shorter than the required size');
    const body = data.subarray(BLOCK);
    if (body.length % BLOCK !== 0) throw new Error('the stored data is not a multiple of the block size');
    if (body.length === 0) throw new Error('invalid PKCS7 data (empty or not padded)');
    const d = createDecipheriv(this.#alg, this.#key, data.subarray(0, BLOCK));
    // Padding is checked here, not by OpenSSL, so a bad pad gets upstream's text rather than OpenSSL's.
    d.setAutoPadding(false);
    const plain = Buffer.concat([d.update(body), d.final()]);
    const pad = plain[plain.length - 1]!;
    if (pad === 0 || pad > BLOCK || pad > plain.length) throw new Error('invalid padding on input');
    for (let i = plain.length - pad; i < plain.length; i++) if (plain[i] !== pad) throw new Error('invalid padding on input');
    return { data: plain.subarray(0, plain.length - pad), stale: false };
  }

  transformToStorage(data: Buffer, _ctx: Context): Buffer {
    const iv = randomBytes(BLOCK);
    const c = createCipheriv(this.#alg, this.#key, iv);
    // Node's default padding is PKCS#7, as upstream pads.
    return Buffer.concat([iv, c.update(data), c.final()]);
  }
}
