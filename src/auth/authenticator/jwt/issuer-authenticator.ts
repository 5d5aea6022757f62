/**
 * One JWT authenticator (upstream `plugin/pkg/authenticator/token/oidc` jwtAuthenticator): it answers only for
 * tokens whose unverified `iss` is its issuer URL, verifies them (verifier.ts), and maps the claims to a user
 * (claims-mapping.ts). Discovery runs in the background, at once and then every 10 s until it succeeds, so the
 * server starts and serves while an issuer is unreachable; until then this issuer's tokens are refused with
 * `oidc: authenticator not initialized`.
 */
import type { CompiledJWTAuthenticator } from '../../../config/authentication-validation.ts';
import { log, type Logger } from '../../../util/log.ts';
import type { AuthenticationResult } from '../interface.ts';
import { ClaimsError, mapClaims } from './claims-mapping.ts';
import { discover } from './discovery.ts';
import { RemoteKeySet } from './remote-key-set.ts';
import { IDTokenVerifier } from './verifier.ts';

export const DISCOVERY_RETRY_INTERVAL_MS = 10_000;

export interface IssuerAuthenticatorOptions {
  /** Between failed discovery attempts; upstream's 10 s. */
  readonly retryIntervalMs?: number;
  /** The least time between two key set fetches caused by unknown keys. */
  readonly minKeyRefreshIntervalMs?: number;
  readonly timeoutMs?: number;
  readonly now?: () => number;
  readonly logger?: Logger;
  /**
   * Called after every token of this issuer with the outcome and how long it took (upstream's
   * `apiserver_authentication_jwt_authenticator_latency_seconds{result}`; not called for other issuers' tokens).
   */
  readonly onResult?: (issuerURL: string, result: 'success' | 'failure', seconds: number) => void;
  /** Called after every request for this issuer's key set while the authenticator is open (the JWKS metrics). */
  readonly onJWKSFetch?: (issuerURL: string, result: 'success' | 'failure', keySet?: string) => void;
  /** The algorithms a token may be signed with; all asymmetric ones by default (`--oidc-signing-algs` narrows it). */
  readonly signingAlgorithms?: readonly string[];
}

/** A token's answer from one issuer: undefined when the token is not this issuer's. */
export type TokenAnswer = AuthenticationResult | undefined;

/**
 * The issuer a compact JWT claims, read without verification (upstream untrustedIssuer), or undefined when the
 * token is not a compact JWT with a readable payload.
 */
export function untrustedIssuer(token: string): string | undefined {
  if (token.trimStart().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3 || !/^[A-Za-z0-9_-]*$/.test(parts[1]!)) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { iss?: unknown };
    const iss = payload && typeof payload === 'object' && typeof payload.iss === 'string' ? payload.iss : '';
    // Google's legacy issuer spelling, coalesced as upstream does.
    return iss === 'accounts.google.com' ? 'https://accounts.google.com' : iss;
  } catch {
    return undefined;
  }
}

export class IssuerAuthenticator {
  readonly issuerURL: string;
  #verifier: IDTokenVerifier | undefined;
  #health: Error;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #resolveReady!: () => void;
  /** Settles when discovery has succeeded (never, if it never does). */
  readonly ready: Promise<void> = new Promise((resolve) => (this.#resolveReady = resolve));
  readonly #log: Logger;

  constructor(
    readonly compiled: CompiledJWTAuthenticator,
    private readonly opts: IssuerAuthenticatorOptions = {},
  ) {
    this.issuerURL = compiled.config.issuer.url;
    this.#health = new Error(`oidc: authenticator for issuer ${JSON.stringify(this.issuerURL)} is not initialized`);
    this.#log = opts.logger ?? log;
    void this.#initialize();
  }

  /** Upstream HealthCheck: undefined once ready, else why not. */
  healthCheck(): Error | undefined {
    if (this.#verifier) return undefined;
    return new Error(`oidc: authenticator for issuer ${JSON.stringify(this.issuerURL)} is not healthy: ${this.#health.message}`);
  }

  /** Stops the discovery retries; the authenticator must not be used afterwards. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  async #initialize(): Promise<void> {
    if (this.#closed) return;
    const { issuer } = this.compiled.config;
    const get = { ca: issuer.certificateAuthority || undefined, timeoutMs: this.opts.timeoutMs };
    try {
      const meta = await discover(issuer.url, issuer.discoveryURL, get);
      if (this.#closed) return;
      const onJWKSFetch = this.opts.onJWKSFetch;
      const keys = new RemoteKeySet(meta.jwksURL, {
        ...get,
        minRefreshIntervalMs: this.opts.minKeyRefreshIntervalMs,
        now: this.opts.now,
        // Not after close: a replaced authenticator's late fetch must not overwrite the live one's series.
        ...(onJWKSFetch ? { onFetch: (result, body) => void (this.#closed || onJWKSFetch(issuer.url, result, body)) } : {}),
      });
      this.#verifier = new IDTokenVerifier({ issuer: issuer.url, audiences: issuer.audiences, now: this.opts.now, ...(this.opts.signingAlgorithms ? { algorithms: this.opts.signingAlgorithms } : {}) }, keys);
      this.#resolveReady();
    } catch (e) {
      if (this.#closed) return;
      this.#health = e as Error;
      this.#log.error('oidc authenticator: initializing plugin', { issuer: issuer.url, err: (e as Error).message });
      this.#timer = setTimeout(() => void this.#initialize(), this.opts.retryIntervalMs ?? DISCOVERY_RETRY_INTERVAL_MS);
      this.#timer.unref();
    }
  }

  /** The user `token` stands for, an error, or undefined when the token is not this issuer's. */
  async authenticateToken(token: string): Promise<TokenAnswer> {
    if (untrustedIssuer(token) !== this.issuerURL) return undefined;
    const started = performance.now();
    const answer = await this.#authenticate(token);
    this.opts.onResult?.(this.issuerURL, answer.user ? 'success' : 'failure', (performance.now() - started) / 1000);
    return answer;
  }

  async #authenticate(token: string): Promise<AuthenticationResult> {
    const verifier = this.#verifier;
    if (!verifier) return { user: null, error: new Error('oidc: authenticator not initialized') };
    let claims: Record<string, unknown>;
    try {
      ({ claims } = await verifier.verify(token));
    } catch (e) {
      return { user: null, error: new Error(`oidc: verify token: ${(e as Error).message}`) };
    }
    try {
      return { user: mapClaims(this.compiled, claims) };
    } catch (e) {
      if (e instanceof ClaimsError) return { user: null, error: e };
      throw e;
    }
  }
}
