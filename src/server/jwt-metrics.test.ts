/**
 * The JWT metrics against a loopback issuer: the JWKS fetch timestamp per outcome and the key set hash as upstream
 * labels them, the latency of answered tokens only, the gate, and an issuer forgotten when it leaves.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { decodeAuthenticationConfiguration } from '../config/authentication.ts';
import { compileAndValidateAuthenticationConfiguration } from '../config/authentication-validation.ts';
import { Registry } from '../metrics/registry.ts';
import { writeText } from '../metrics/text.ts';
import { newJWTAuthenticators } from '../auth/authenticator/jwt/jwt-authenticators.ts';
import { hashLabel, JWTMetrics } from './authentication-metrics.ts';
import { newKeyPair, type SigningKeyPair, TestOIDCIssuer } from '../auth/authenticator/jwt/testing/oidc-issuer.ts';

const sha = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;
const APISERVER_ID = 'apiserver-test';

function compiled(issuer: TestOIDCIssuer) {
  const text = JSON.stringify({
    apiVersion: 'apiserver.config.cluster.io/v1',
    kind: 'AuthenticationConfiguration',
    jwt: [{ issuer: { url: issuer.url, audiences: ['core'], certificateAuthority: issuer.caPem }, claimMappings: { username: { claim: 'sub', prefix: '' } } }],
  });
  return compileAndValidateAuthenticationConfiguration(decodeAuthenticationConfiguration(text)).jwt;
}

const series = (r: Registry, name: string) =>
  writeText(r.collect())
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`));

describe('JWT metrics', () => {
  const issuer = new TestOIDCIssuer();
  let key: SigningKeyPair;
  before(async () => {
    await issuer.start();
    key = await newKeyPair('k1', 'RS256');
    issuer.published = [key];
  });
  after(() => issuer.close());

  it('hashes: sha256 of the input, empty for empty (upstream getHash)', () => {
    assert.equal(hashLabel(''), '');
    assert.equal(hashLabel('abc'), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('records each JWKS fetch with its outcome and the hash of the last good key set; latency only for its own tokens', async () => {
    const registry = new Registry({ version: '1.36.0' });
    const metrics = new JWTMetrics(registry, APISERVER_ID, { jwksMetrics: true });
    const authn = newJWTAuthenticators(compiled(issuer), { ...metrics.hooks, successCacheTTLMs: 0, minKeyRefreshIntervalMs: 0 });
    try {
      await authn.ready();
      const r = await authn.authenticateToken(await issuer.sign(key, { sub: 'ada', aud: 'core' }));
      assert.equal(r.user?.name, 'ada');
      const ids = `apiserver_id_hash="${sha(APISERVER_ID)}",jwt_issuer_hash="${sha(issuer.url)}"`;
      assert.deepEqual(series(registry, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info'), [
        `apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info{apiserver_id_hash="${sha(APISERVER_ID)}",hash="${sha(issuer.jwksBody())}",jwt_issuer_hash="${sha(issuer.url)}"} 1`,
      ]);
      const success = series(registry, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds');
      assert.equal(success.length, 1);
      const m = new RegExp(`^apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds\\{${ids},result="success"\\} (\\S+)$`).exec(success[0]!);
      assert.ok(m, success[0]);
      assert.ok(Math.abs(Number(m[1]) - Date.now() / 1000) < 60);

      // The issuer fails: an unknown kid makes the key set be fetched again, which fails; the last good hash stays.
      const goodHash = sha(issuer.jwksBody());
      issuer.jwksStatus = 500;
      const rotated = await newKeyPair('k2', 'RS256');
      const refused = await authn.authenticateToken(await issuer.sign(rotated, { sub: 'ada', aud: 'core' }));
      assert.match(refused.error?.message ?? '', /get keys failed: 500/);
      const both = series(registry, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds');
      assert.equal(both.length, 2);
      assert.match(both.join('\n'), new RegExp(`\\{${ids},result="failure"\\} `));
      assert.match(series(registry, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info')[0]!, new RegExp(`hash="${goodHash}"`));

      // A rotated key set: a new hash.
      issuer.jwksStatus = 200;
      issuer.published = [key, rotated];
      assert.equal((await authn.authenticateToken(await issuer.sign(rotated, { sub: 'ada', aud: 'core' }))).user?.name, 'ada');
      assert.match(series(registry, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info')[0]!, new RegExp(`hash="${sha(issuer.jwksBody())}"`));

      // Latency: one observation per answered token (2 successes, 1 failure); a token of another issuer none.
      await authn.authenticateToken(await issuer.sign(key, { sub: 'x', aud: 'core', iss: 'https://elsewhere.example' }));
      assert.deepEqual(
        series(registry, 'apiserver_authentication_jwt_authenticator_latency_seconds_count'),
        [`apiserver_authentication_jwt_authenticator_latency_seconds_count{jwt_issuer_hash="${sha(issuer.url)}",result="failure"} 1`, `apiserver_authentication_jwt_authenticator_latency_seconds_count{jwt_issuer_hash="${sha(issuer.url)}",result="success"} 2`],
      );

      // The issuer leaves the configuration: its JWKS series go (upstream DeleteJWKSFetchMetrics).
      metrics.forgetIssuer(issuer.url);
      assert.deepEqual(series(registry, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds'), []);
      assert.deepEqual(series(registry, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info'), []);
    } finally {
      authn.close();
      issuer.published = [key];
    }
  });

  it('records no JWKS metrics with StructuredAuthenticationConfigurationJWKSMetrics off, and none after close', async () => {
    const registry = new Registry({ version: '1.36.0' });
    const off = new JWTMetrics(registry, APISERVER_ID, { jwksMetrics: false });
    const authn = newJWTAuthenticators(compiled(issuer), { ...off.hooks, successCacheTTLMs: 0 });
    try {
      await authn.ready();
      assert.equal((await authn.authenticateToken(await issuer.sign(key, { sub: 'ada', aud: 'core' }))).user?.name, 'ada');
      assert.deepEqual(series(registry, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds'), []);
      assert.deepEqual(series(registry, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info'), []);
    } finally {
      authn.close();
    }
    const registry2 = new Registry({ version: '1.36.0' });
    const on = new JWTMetrics(registry2, APISERVER_ID, { jwksMetrics: true });
    const closed = newJWTAuthenticators(compiled(issuer), { ...on.hooks, successCacheTTLMs: 0 });
    await closed.ready();
    closed.close();
    await closed.authenticateToken(await issuer.sign(key, { sub: 'ada', aud: 'core' }));
    assert.deepEqual(series(registry2, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds'), [], 'a closed authenticator records nothing');
  });
});
