/**
 * The JWT authenticators of an AuthenticationConfiguration as one (upstream builds them in
 * `pkg/kubeapiserver/authenticator/config.go`): tried in the file's order, the issuer whose URL the token names
 * answers, and its refusal is final (fail-on-error; at most one issuer can claim a token since URLs are unique).
 *
 * Wiring (not done here): `newJWTAuthenticators(loaded, opts)` with the result of loadAuthenticationConfiguration;
 * use `.tokenAuthenticator` (cached) inside a union with the other token authenticators under one
 * BearerTokenAuthenticator (token.ts), or `.authenticate(req)` directly when JWTs are the only tokens. `close()` on reload or
 * shutdown stops the background discovery. `healthCheck()` is upstream's per-issuer readiness, for /readyz and
 * for the reload path (which waits for the new issuers before swapping). It throws (at start-up, as upstream) for
 * an issuer with `egressSelectorType`, which needs an egress selector this server does not have.
 */
import type { CompiledAuthenticationConfiguration, CompiledJWTAuthenticator } from '../../../config/authentication-validation.ts';
import type { AuthenticationResult, Authenticator, AuthenticatorRequest } from '../interface.ts';
import { NO_CREDENTIALS } from '../interface.ts';
import { BearerTokenAuthenticator, type TokenAuthenticator, TokenUnion } from '../token.ts';
import type { Answer } from '../union.ts';
import { IssuerAuthenticator, type IssuerAuthenticatorOptions } from './issuer-authenticator.ts';
import { CachedTokenAuthenticator, SUCCESS_TTL_MS, type TokenCacheRecorder } from '../token-cache.ts';

export interface JWTAuthenticatorsOptions extends IssuerAuthenticatorOptions {
  /** How long a successful token answer is reused; upstream's 10 s. 0 disables the cache. */
  readonly successCacheTTLMs?: number;
  /** Where the cache (when there is one) reports its hits and fetches. */
  readonly cacheMetrics?: TokenCacheRecorder;
}

export class JWTAuthenticators implements Authenticator, TokenAuthenticator {
  readonly issuers: readonly IssuerAuthenticator[];
  /** The authenticators behind upstream's token cache: what a token union should hold. */
  readonly tokenAuthenticator: TokenAuthenticator;
  readonly #bearer: BearerTokenAuthenticator;

  constructor(authenticators: readonly CompiledJWTAuthenticator[], opts: JWTAuthenticatorsOptions = {}) {
    this.issuers = authenticators.map((a) => new IssuerAuthenticator(a, opts));
    const ttl = opts.successCacheTTLMs ?? SUCCESS_TTL_MS;
    const uncached: TokenAuthenticator = { authenticateToken: (t) => this.#authenticateToken(t) };
    this.tokenAuthenticator = ttl > 0 ? new CachedTokenAuthenticator(uncached, { successTTLMs: ttl, ...(opts.now ? { now: opts.now } : {}), metrics: opts.cacheMetrics }) : uncached;
    this.#bearer = new BearerTokenAuthenticator(new TokenUnion([this.tokenAuthenticator]));
  }

  /** A bearer token of one of the issuers, through the cache. */
  authenticate(req: AuthenticatorRequest): AuthenticationResult | Promise<AuthenticationResult> {
    return this.#bearer.authenticate(req);
  }

  authenticateToken(token: string): Answer {
    return this.tokenAuthenticator.authenticateToken(token);
  }

  async #authenticateToken(token: string): Promise<AuthenticationResult> {
    for (const issuer of this.issuers) {
      const answer = await issuer.authenticateToken(token);
      if (answer) return answer;
    }
    return NO_CREDENTIALS;
  }

  /** Undefined when every issuer is ready, else the first that is not, with why. */
  healthCheck(): Error | undefined {
    for (const i of this.issuers) {
      const err = i.healthCheck();
      if (err) return err;
    }
    return undefined;
  }

  /** Settles once every issuer has completed discovery (tests; the reload path polls healthCheck instead). */
  ready(): Promise<void> {
    return Promise.all(this.issuers.map((i) => i.ready)).then(() => undefined);
  }

  close(): void {
    for (const i of this.issuers) i.close();
  }
}

/**
 * The JWT authenticators of a loaded (validated and compiled) configuration. Each starts OIDC discovery in the
 * background at once; the returned object is usable immediately and refuses an issuer's tokens until that issuer
 * is ready.
 */
export function newJWTAuthenticators(config: CompiledAuthenticationConfiguration | readonly CompiledJWTAuthenticator[], opts: JWTAuthenticatorsOptions = {}): JWTAuthenticators {
  const list = Array.isArray(config) ? (config as readonly CompiledJWTAuthenticator[]) : (config as CompiledAuthenticationConfiguration).jwt;
  // This server has no egress selector (no --egress-selector-config-file), so an issuer that asks for one cannot be
  // reached the way it asks: refused as kube-apiserver refuses it without that file, rather than silently ignored.
  for (const a of list) {
    const egress = a.config.issuer.egressSelectorType;
    if (egress !== '') throw new Error(`oidc: egress lookup required with egress selector type ${JSON.stringify(egress)}`);
  }
  return new JWTAuthenticators(list, opts);
}
