/**
 * Upstream's token cache (`authentication/token/cache`) in front of the token authenticators: a successful
 * answer is reused for a short time (10 s, kube-apiserver's default), failures are never cached, and concurrent
 * requests with the same token share one authentication. Tokens are keyed by their SHA-256, so the cache holds
 * no credential.
 */
import { createHash } from 'node:crypto';
import type { AuthenticationResult } from '../interface.ts';

export const SUCCESS_TTL_MS = 10_000;
const MAX_ENTRIES = 4096;

export interface TokenAuthenticator {
  authenticateToken(token: string): Promise<AuthenticationResult>;
}

export class CachedTokenAuthenticator implements TokenAuthenticator {
  readonly #entries = new Map<string, { result: AuthenticationResult; expires: number }>();
  readonly #inflight = new Map<string, Promise<AuthenticationResult>>();

  constructor(
    private readonly inner: TokenAuthenticator,
    private readonly ttlMs = SUCCESS_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  authenticateToken(token: string): Promise<AuthenticationResult> {
    const key = createHash('sha256').update(token).digest('base64');
    const hit = this.#entries.get(key);
    if (hit) {
      if (hit.expires > this.now()) return Promise.resolve(hit.result);
      this.#entries.delete(key);
    }
    let pending = this.#inflight.get(key);
    if (!pending) {
      pending = this.inner.authenticateToken(token).then((result) => {
        if (result.user) this.#store(key, result);
        return result;
      });
      pending.finally(() => this.#inflight.delete(key)).catch(() => {});
      this.#inflight.set(key, pending);
    }
    return pending;
  }

  #store(key: string, result: AuthenticationResult): void {
    // Oldest first out: Map keeps insertion order.
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { result, expires: this.now() + this.ttlMs });
  }
}
