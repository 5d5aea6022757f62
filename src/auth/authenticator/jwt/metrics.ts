/**
 * The JWT authenticators' metrics (upstream `plugin/pkg/authenticator/token/oidc/metrics.go`), shared by
 * `--authentication-config` and the legacy `--oidc-*` flags, which build the same authenticator:
 *
 * - `apiserver_authentication_jwt_authenticator_latency_seconds{jwt_issuer_hash,result}`: every token an issuer
 *   answered for (not the tokens of other issuers), on a token cache miss;
 * - `apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds{apiserver_id_hash,jwt_issuer_hash,result}`:
 *   when the issuer's key set was last fetched, per outcome;
 * - `apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info{jwt_issuer_hash,apiserver_id_hash,hash}`:
 *   value 1 with the SHA-256 of the last key set fetched successfully (the raw body, as upstream hashes it), one
 *   series per issuer, produced at scrape time as upstream's custom collector does.
 *
 * The two JWKS metrics are recorded only with the StructuredAuthenticationConfigurationJWKSMetrics gate on (beta, on by
 * default since 1.35). Hashes are `sha256:<hex>` (empty input, empty label, as upstream's getHash).
 */
import { createHash } from 'node:crypto';
import type { Registry } from '../../../metrics/registry.ts';
import type { IssuerAuthenticatorOptions } from './issuer-authenticator.ts';

export const hashLabel = (s: string) => (s === '' ? '' : `sha256:${createHash('sha256').update(s).digest('hex')}`);

/** jwt latency buckets: upstream's default buckets with a 1 ms start. */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class JWTMetrics {
  /** The hooks to give the issuer authenticators (IssuerAuthenticatorOptions). */
  readonly hooks: Pick<IssuerAuthenticatorOptions, 'onResult' | 'onJWKSFetch'>;
  readonly #apiserverIDHash: string;
  readonly #timestamps;
  /** issuer hash → key set hash of the last successful fetch. */
  readonly #keySets = new Map<string, string>();

  constructor(registry: Registry, apiserverID: string, opts: { jwksMetrics: boolean }) {
    this.#apiserverIDHash = hashLabel(apiserverID);
    const latency = registry.histogram('apiserver_authentication_jwt_authenticator_latency_seconds', 'Latency of jwt authentication operations in seconds. This is the time spent authenticating a token for cache miss only (i.e. when the token is not found in the cache).', LATENCY_BUCKETS);
    this.#timestamps = registry.gauge('apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds', 'Timestamp of the last successful or failed JWKS fetch split by result, api server identity and jwt issuer for the JWT authenticator.');
    const info = registry.gauge('apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info', 'Information about the last JWKS fetched by the JWT authenticator with hash as label, split by api server identity and jwt issuer.');
    registry.onCollect(() => {
      info.reset();
      for (const [issuer, keySet] of this.#keySets) info.with(issuer, this.#apiserverIDHash, keySet).set(1);
    });
    this.hooks = {
      onResult: (issuerURL, result, seconds) => latency.with(hashLabel(issuerURL), result).observe(seconds),
      ...(opts.jwksMetrics ? { onJWKSFetch: (issuerURL: string, result: 'success' | 'failure', keySet?: string) => this.#jwksFetched(issuerURL, result, keySet) } : {}),
    };
  }

  #jwksFetched(issuerURL: string, result: 'success' | 'failure', keySet: string | undefined): void {
    const issuer = hashLabel(issuerURL);
    if (result === 'success') this.#keySets.set(issuer, hashLabel(keySet ?? ''));
    this.#timestamps.with(this.#apiserverIDHash, issuer, result).set(Date.now() / 1000);
  }

  /** Drops an issuer's JWKS series (upstream DeleteJWKSFetchMetrics): it left the configuration. */
  forgetIssuer(issuerURL: string): void {
    const issuer = hashLabel(issuerURL);
    this.#keySets.delete(issuer);
    this.#timestamps.delete(this.#apiserverIDHash, issuer, 'success');
    this.#timestamps.delete(this.#apiserverIDHash, issuer, 'failure');
  }
}
