/**
 * A KMS v2 provider (upstream `envelope/kmsv2/envelope.go` and the kmsv2 probe of `encryptionconfig/config.go`):
 * envelope encryption with a remote key-encryption key.
 *
 * - State: a 32-byte DEK seed, encrypted by the plugin (`Encrypt`), under the key ID the plugin's `Status` names.
 *   Status is polled (every minute while healthy, every 10 s otherwise, as upstream); a new key ID makes a new seed,
 *   accepted only if the plugin encrypts it under that same key ID; the same key ID extends the state's validity.
 * - Writes derive a fresh AES-GCM key per value from the seed (seed.ts) and store upstream's EncryptedObject
 *   (data, key ID, encrypted seed, annotations, source type) after the `cluster:enc:kms:v2:<name>:` prefix.
 *   Writes need a state confirmed by a healthy Status within the last 3 minutes (upstream's limit): a plugin gone
 *   longer than that, or a key ID rotation it cannot complete, stops writes — a storage migration started after a
 *   rotation can rely on it.
 * - Reads are always tried: the encrypted seed of a value is looked up in a cache of those already decrypted
 *   (kept 24 h, upstream's TTL), so a read calls the plugin (`Decrypt`) only for a seed it has not seen — the watch
 *   cache's load, once per seed. A value under another key ID or source type than the current state's is stale,
 *   so the next update rewrites it with the current key.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { AesGcmTransformer } from '../aes.ts';
import type { Context, FromStorage, MaybePromise, Transformer } from '../transformer.ts';
import { keyIDHash, type KMSMetrics } from './metrics.ts';
import { EncryptedObjectType, SOURCE_AES_GCM_KEY, SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED, decodeMessage, encodeMessage, type EncryptedObject, type StatusResponseMsg } from './proto.ts';
import { SEED_SIZE, SeedTransformer } from './seed.ts';
import { connectKMS, type KMSService } from './service.ts';

const KEY_ID_MAX = 1024;
const DEK_SOURCE_MAX = 1024;
const ANNOTATIONS_MAX = 32 * 1024;
const READ_CACHE_TTL_MS = 24 * 3600_000;

export interface KMSv2Timing {
  /** Status poll while healthy (upstream 1 min). */
  healthyPollMs: number;
  /** Status poll while unhealthy (upstream 10 s). */
  unhealthyPollMs: number;
  /** How long a state stays valid for writes after the last healthy Status (upstream 3 min). */
  writeTTLMs: number;
  /** How long a health probe's answer is reused (upstream 20 s ok, 3 s failing). */
  healthOkTTLMs: number;
  healthFailTTLMs: number;
}

export const UPSTREAM_TIMING: KMSv2Timing = { healthyPollMs: 60_000, unhealthyPollMs: 10_000, writeTTLMs: 180_000, healthOkTTLMs: 20_000, healthFailTTLMs: 3_000 };

export interface KMSv2Options {
  name: string;
  /** `unix:///path`. */
  endpoint: string;
  timeoutMs: number;
  metrics?: KMSMetrics;
  timing?: Partial<KMSv2Timing>;
  now?: () => number;
  log?: (msg: string, fields: Record<string, unknown>) => void;
}

interface WriteState {
  transformer: SeedTransformer;
  keyID: string;
  encryptedDEKSource: Buffer;
  annotations: Record<string, Buffer>;
  sourceType: number;
  expiresAt: number;
}

/** Go's RFC 3339 form of a time, without fraction (upstream prints its expiry so). */
const rfc3339 = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

function validateKeyID(keyID: string): { code: 'empty' | 'too_long'; err: string } | undefined {
  if (keyID === '') return { code: 'empty', err: 'keyID is empty' };
  const n = Buffer.byteLength(keyID);
  if (n > KEY_ID_MAX) return { code: 'too_long', err: `keyID is ${n} bytes, which exceeds the max size of ${KEY_ID_MAX}` };
  return undefined;
}

const FQDN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;

/** Upstream's ValidateEncryptedObject checks and texts. */
function validateEncryptedObject(o: EncryptedObject): void {
  if (o.encryptedDEKSourceType !== SOURCE_AES_GCM_KEY && o.encryptedDEKSourceType !== SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED) {
    throw new Error(`unknown encryptedDEKSourceType: ${o.encryptedDEKSourceType}`);
  }
  if (o.encryptedData.length === 0) throw new Error('encrypted data is empty');
  if (o.encryptedDEKSource.length === 0) throw new Error('failed to validate encrypted DEK source: encrypted DEK source is empty');
  if (o.encryptedDEKSource.length > DEK_SOURCE_MAX) {
    throw new Error(`failed to validate encrypted DEK source: encrypted DEK source is ${o.encryptedDEKSource.length} bytes, which exceeds the max size of ${DEK_SOURCE_MAX}`);
  }
  const k = validateKeyID(o.keyID);
  if (k) throw new Error(`failed to validate key id: ${k.err}`);
  let total = 0;
  for (const [key, v] of Object.entries(o.annotations)) {
    if (!FQDN.test(key)) throw new Error(`failed to validate annotations: annotations: Invalid value: ${JSON.stringify(key)}: should be a domain with at least two segments separated by dots`);
    total += Buffer.byteLength(key) + v.length;
  }
  if (total > ANNOTATIONS_MAX) throw new Error(`failed to validate annotations: annotations exceeds max size of ${ANNOTATIONS_MAX}`);
}

/** What identifies a decrypted DEK source: type, encrypted bytes, key ID and annotations (sorted). */
function cacheKey(type: number, source: Buffer, keyID: string, annotations: Record<string, Buffer>): string {
  const ann = Object.keys(annotations)
    .sort()
    .map((k) => `${k}=${annotations[k]!.toString('base64')}`)
    .join(',');
  return `${type}\0${source.toString('base64')}\0${keyID}\0${ann}`;
}

export class KMSv2Provider implements Transformer {
  readonly name: string;
  #service: KMSService | undefined;
  readonly #endpoint: string;
  readonly #timeoutMs: number;
  readonly #t: KMSv2Timing;
  readonly #now: () => number;
  readonly #m: KMSMetrics | undefined;
  readonly #log: (msg: string, fields: Record<string, unknown>) => void;
  #state: WriteState | undefined;
  /** Decrypted DEK sources (cache key → read transformer, when added). */
  readonly #cache = new Map<string, { t: Transformer; at: number }>();
  /** Decrypt calls in flight, so concurrent reads of one source make one call. */
  readonly #pending = new Map<string, Promise<Transformer>>();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #lastProbe: { at: number; err: Error | undefined } | undefined;
  #probing: Promise<Error | undefined> | undefined;

  constructor(o: KMSv2Options) {
    this.name = o.name;
    this.#t = { ...UPSTREAM_TIMING, ...o.timing };
    this.#now = o.now ?? Date.now;
    this.#m = o.metrics;
    this.#log = o.log ?? (() => {});
    this.#endpoint = o.endpoint;
    this.#timeoutMs = o.timeoutMs;
  }

  /** The plugin connection (made by start). */
  #svc(): KMSService {
    if (!this.#service) throw new Error(`KMS provider ${this.name} is not started`);
    return this.#service;
  }

  /** Connects, probes now and keeps polling; resolves after the first probe (healthy or not). */
  async start(): Promise<Error | undefined> {
    const m = this.#m;
    this.#service ??= await connectKMS(this.#endpoint, this.#timeoutMs, m ? (method, code, s) => m.latency.with(code, method, this.name).observe(s) : undefined);
    const first = this.#probe();
    const loop = async () => {
      if (this.#stopped) return;
      const err = await this.#probe();
      if (this.#stopped) return;
      this.#timer = setTimeout(() => void loop(), err ? this.#t.unhealthyPollMs : this.#t.healthyPollMs);
      this.#timer.unref();
    };
    void first.then((err) => {
      if (this.#stopped) return;
      this.#timer = setTimeout(() => void loop(), err ? this.#t.unhealthyPollMs : this.#t.healthyPollMs);
      this.#timer.unref();
    });
    return first;
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#service?.close();
  }

  /**
   * The health check (`kms-providers`): a Status probe, its answer reused for 20 s when healthy and 3 s when not
   * (upstream's TTLs), so health endpoints cannot flood the plugin.
   */
  async healthCheck(): Promise<void> {
    const last = this.#lastProbe;
    const fresh = last && this.#now() - last.at < (last.err ? this.#t.healthFailTTLMs : this.#t.healthOkTTLMs);
    const err = fresh ? last.err : await this.#probe();
    if (err) throw err;
  }

  /** One Status call and what follows from it (rotation, extended validity); the error when unhealthy. */
  #probe(): Promise<Error | undefined> {
    this.#probing ??= this.#probeOnce().finally(() => (this.#probing = undefined));
    return this.#probing;
  }

  async #probeOnce(): Promise<Error | undefined> {
    let err: Error | undefined;
    let status: StatusResponseMsg | undefined;
    try {
      status = await this.#svc().status();
    } catch (e) {
      err = new Error(`failed to perform status section of the healthz check for KMS Provider ${this.name}, error: ${(e as Error).message}`);
    }
    if (status) err = await this.#healthyAndMaybeRotate(status);
    this.#lastProbe = { at: this.#now(), err };
    if (err) this.#log('kms plugin failed health check probe', { name: this.name, err: err.message });
    return err;
  }

  async #healthyAndMaybeRotate(s: StatusResponseMsg): Promise<Error | undefined> {
    const errs: string[] = [];
    if (s.healthz !== 'ok') errs.push(`got unexpected healthz status: ${s.healthz}`);
    if (s.version !== 'v2' && s.version !== 'v2beta1') errs.push(`expected KMSv2 API version v2, got ${s.version}`);
    const bad = validateKeyID(s.key_id);
    if (bad) {
      this.#m?.invalidKeyID(this.name, bad.code);
      errs.push(`got invalid KMSv2 KeyID hash ${JSON.stringify(keyIDHash(s.key_id))}: ${bad.err}`);
    } else {
      this.#m?.keyIDFromStatus(this.name, s.key_id);
      const r = await this.#rotateOnKeyIDChange(s.key_id);
      if (r) errs.push(r);
    }
    if (errs.length === 0) return undefined;
    return new Error(`kmsv2 Provider ${this.name} is not healthy, error: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`);
  }

  /** Upstream's rotateDEKOnKeyIDChange: the same key ID extends validity; a new one needs a new seed. */
  async #rotateOnKeyIDChange(statusKeyID: string): Promise<string | undefined> {
    // Started before the call: the limit bounds how long after a good Status writes may go on.
    const expiresAt = this.#now() + this.#t.writeTTLMs;
    const cur = this.#state;
    if (cur && cur.keyID === statusKeyID) {
      cur.expiresAt = expiresAt;
      return undefined;
    }
    const uid = randomUUID();
    let encKeyID = '';
    try {
      const start = performance.now();
      const seed = randomBytes(SEED_SIZE);
      this.#m?.keyGeneration((performance.now() - start) / 1000, false);
      const resp = await this.#svc().encrypt(uid, seed);
      encKeyID = resp.key_id;
      const o: EncryptedObject = { encryptedData: Buffer.of(0), keyID: resp.key_id, encryptedDEKSource: resp.ciphertext, annotations: resp.annotations ?? {}, encryptedDEKSourceType: SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED };
      validateEncryptedObject(o);
      if (resp.key_id !== statusKeyID) throw new Error('the key ID of the encrypted seed differs from the Status key ID');
      const transformer = new SeedTransformer(seed);
      this.#state = { transformer, keyID: resp.key_id, encryptedDEKSource: resp.ciphertext, annotations: o.annotations, sourceType: SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED, expiresAt };
      // Values written with this seed read without asking the plugin.
      this.#remember(cacheKey(SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED, resp.ciphertext, resp.key_id, o.annotations), transformer);
      this.#log('rotated the DEK seed', { name: this.name, uid, newKeyIDHash: keyIDHash(resp.key_id), oldKeyIDHash: keyIDHash(cur?.keyID ?? '') });
      return undefined;
    } catch (e) {
      return `failed to rotate DEK uid=${JSON.stringify(uid)}, useSeed=true, errGen=${(e as Error).message}, statusKeyIDHash=${JSON.stringify(keyIDHash(statusKeyID))}, encryptKeyIDHash=${JSON.stringify(keyIDHash(encKeyID))}, stateKeyIDHash=${JSON.stringify(keyIDHash(cur?.keyID ?? ''))}, expirationTimestamp=${cur ? rfc3339(cur.expiresAt) : '0001-01-01T00:00:00Z'}`;
    }
  }

  #remember(key: string, t: Transformer): void {
    const now = this.#now();
    if (this.#cache.size > 0 && this.#cache.size % 64 === 0) for (const [k, v] of this.#cache) if (now - v.at > READ_CACHE_TTL_MS) this.#cache.delete(k);
    this.#cache.set(key, { t, at: now });
    this.#m?.sourceCacheSize(this.name, this.#cache.size);
  }

  transformToStorage(data: Buffer, ctx: Context): Buffer {
    const s = this.#state;
    if (!s) throw new Error('got unexpected nil transformer');
    const now = this.#now();
    if (now > s.expiresAt) {
      throw new Error(`encryptedDEKSource with keyID hash ${JSON.stringify(keyIDHash(s.keyID))} expired at ${rfc3339(s.expiresAt)} (current time is ${rfc3339(now)})`);
    }
    const encryptedData = s.transformer.transformToStorage(data, ctx);
    this.#m?.keyIDUsed(this.name, 'to_storage', s.keyID);
    return encodeMessage(EncryptedObjectType, { encryptedData, keyID: s.keyID, encryptedDEKSource: s.encryptedDEKSource, annotations: s.annotations, encryptedDEKSourceType: s.sourceType });
  }

  transformFromStorage(data: Buffer, ctx: Context): MaybePromise<FromStorage> {
    const o = decodeMessage<EncryptedObject>(EncryptedObjectType, data);
    validateEncryptedObject(o);
    const key = cacheKey(o.encryptedDEKSourceType, o.encryptedDEKSource, o.keyID, o.annotations);
    const cached = this.#cache.get(key);
    if (cached) return this.#read(cached.t, o, ctx);
    this.#m?.cacheMiss();
    let p = this.#pending.get(key);
    if (!p) {
      p = this.#svc()
        .decrypt(randomUUID(), { ciphertext: o.encryptedDEKSource, key_id: o.keyID, annotations: o.annotations })
        .then(
          (dek) => {
            // A seed derives a key per value; a plain key (AES_GCM_KEY, written by older servers) is used as it is.
            const t = o.encryptedDEKSourceType === SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED ? new SeedTransformer(dek) : new AesGcmTransformer(dek);
            this.#remember(key, t);
            return t;
          },
          (e: unknown) => {
            throw new Error(`failed to decrypt DEK, error: ${(e as Error).message}`);
          },
        )
        .finally(() => this.#pending.delete(key));
      this.#pending.set(key, p);
    }
    return p.then((t) => this.#read(t, o, ctx));
  }

  #read(t: Transformer, o: EncryptedObject, ctx: Context): FromStorage {
    const r = t.transformFromStorage(o.encryptedData, ctx) as FromStorage;
    this.#m?.keyIDUsed(this.name, 'from_storage', o.keyID);
    const s = this.#state;
    // Written under another key ID or source type than writes use now: rewrite on the next update.
    const stale = r.stale || !s || o.keyID !== s.keyID || o.encryptedDEKSourceType !== s.sourceType;
    return stale ? { data: r.data, stale: true } : r;
  }
}
