/**
 * The issuer's signing keys (go-oidc v2 remoteKeySet, which upstream uses): keys are fetched from `jwks_uri` and
 * cached; a token whose signature no cached key verifies triggers one refetch and a second try. As in go-oidc v2,
 * the refetch happens only when the cached set has expired by its `Cache-Control: max-age` or `Expires` (30 s
 * early; a response without either is expired at once). Two guards go-oidc v2 leaves to the caller:
 * concurrent refetches share one request, and refetches are at least `minRefreshIntervalMs` apart, so that a flood
 * of tokens with made-up key IDs cannot turn the server into a load generator against the issuer.
 */
import { compactVerify, importJWK, type JWK, type KeyObject } from 'jose';
import { type GetOptions, httpsGet } from './http-get.ts';

const EXPIRY_DELTA_MS = 30_000;
export const DEFAULT_MIN_REFRESH_INTERVAL_MS = 5_000;

export interface RemoteKeySetOptions extends GetOptions {
  readonly minRefreshIntervalMs?: number;
  readonly now?: () => number;
  /**
   * Told of every key set request's outcome, with the body of a successful one (upstream's JWKS round tripper,
   * behind StructuredAuthenticationConfigurationJWKSMetrics): success is a 200 whose body decodes as a key set.
   */
  readonly onFetch?: (result: 'success' | 'failure', body?: string) => void;
}

interface CachedKey {
  readonly jwk: JWK;
  /** Imported lazily per algorithm (a JWK without `alg` may serve any its type allows). */
  readonly imported: Map<string, Promise<KeyObject | Uint8Array | null>>;
}

/** When a response stops being fresh, from its caching headers (go-oidc v2 `cacheControlMaxAge` / `expires`). */
export function expiryOf(headers: Readonly<Record<string, string | string[] | undefined>>, now: number): number {
  const cc = String(headers['cache-control'] ?? '');
  const maxAge = /(?:^|,)\s*max-age=(\d+)/i.exec(cc);
  if (maxAge) return now + Number(maxAge[1]) * 1000;
  const expires = headers.expires;
  if (typeof expires === 'string') {
    const t = Date.parse(expires);
    if (!Number.isNaN(t)) return t;
  }
  return now;
}

export class RemoteKeySet {
  #keys: CachedKey[] = [];
  #expiry = 0;
  #lastFetch = -Infinity;
  #inflight: Promise<CachedKey[]> | undefined;
  readonly #now: () => number;

  constructor(
    readonly jwksURL: string,
    private readonly opts: RemoteKeySetOptions = {},
  ) {
    this.#now = opts.now ?? Date.now;
  }

  /**
   * The verified payload of compact JWS `token` signed with `alg` by key `kid` (any key when empty), or an Error
   * with go-oidc's text.
   */
  async verify(token: string, alg: string, kid: string): Promise<Uint8Array> {
    const payload = await this.#tryKeys(this.#keys, token, alg, kid);
    if (payload) return payload;
    const now = this.#now();
    // Keys still fresh, or refetched a moment ago: no new fetch.
    if (now + EXPIRY_DELTA_MS <= this.#expiry || now - this.#lastFetch < (this.opts.minRefreshIntervalMs ?? DEFAULT_MIN_REFRESH_INTERVAL_MS)) {
      throw new Error('failed to verify id token signature');
    }
    let keys: CachedKey[];
    try {
      keys = await this.refresh();
    } catch (e) {
      throw new Error(`fetching keys ${(e as Error).message}`);
    }
    const again = await this.#tryKeys(keys, token, alg, kid);
    if (again) return again;
    throw new Error('failed to verify id token signature');
  }

  /** Fetches the key set now (one request for all concurrent callers). */
  refresh(): Promise<CachedKey[]> {
    this.#inflight ??= this.#fetch().finally(() => (this.#inflight = undefined));
    return this.#inflight;
  }

  async #fetch(): Promise<CachedKey[]> {
    this.#lastFetch = this.#now();
    const onFetch = this.opts.onFetch;
    let res;
    try {
      res = await httpsGet(this.jwksURL, this.opts);
    } catch (e) {
      onFetch?.('failure');
      throw new Error(`oidc: get keys failed: ${(e as Error).message}`);
    }
    if (res.status !== 200) {
      onFetch?.('failure');
      throw new Error(`oidc: get keys failed: ${res.statusText} ${res.body}`);
    }
    let doc: { keys?: unknown };
    try {
      doc = JSON.parse(res.body) as { keys?: unknown };
    } catch (e) {
      onFetch?.('failure');
      throw new Error(`oidc: failed to decode keys: ${(e as Error).message} ${res.body}`);
    }
    // What Go's decoder refuses as a JSON Web Key Set (a document that is not an object, `keys` not a list) is a
    // failed fetch for the metrics, as upstream checks the body before recording it.
    const isKeySet = doc === null || (typeof doc === 'object' && !Array.isArray(doc) && (doc.keys === undefined || doc.keys === null || Array.isArray(doc.keys)));
    onFetch?.(isKeySet ? 'success' : 'failure', isKeySet ? res.body : undefined);
    const keys = Array.isArray(doc?.keys) ? (doc.keys as JWK[]).filter((k) => k && typeof k === 'object') : [];
    this.#keys = keys.map((jwk) => ({ jwk, imported: new Map() }));
    this.#expiry = expiryOf(res.headers, this.#now());
    return this.#keys;
  }

  async #tryKeys(keys: readonly CachedKey[], token: string, alg: string, kid: string): Promise<Uint8Array | undefined> {
    for (const k of keys) {
      if (kid !== '' && k.jwk.kid !== kid) continue;
      // A key published for another algorithm never verifies this one (and must not: RFC 7517 `alg`).
      if (k.jwk.alg !== undefined && k.jwk.alg !== alg) continue;
      if (k.jwk.use !== undefined && k.jwk.use !== 'sig') continue;
      // A symmetric key in a public key set would let anyone who reads the set sign tokens.
      if (k.jwk.kty === 'oct') continue;
      let imported = k.imported.get(alg);
      if (!imported) {
        imported = importJWK(k.jwk, alg).then(
          (key) => key as KeyObject | Uint8Array,
          () => null,
        );
        k.imported.set(alg, imported);
      }
      const key = await imported;
      if (!key) continue;
      try {
        return (await compactVerify(token, key, { algorithms: [alg] })).payload;
      } catch {
        // Not this key; try the next.
      }
    }
    return undefined;
  }
}
