/**
 * The JWT authenticator against a real OIDC issuer on loopback HTTPS (testing/oidc-issuer.ts): discovery with the
 * issuer's own CA, keys from its JWKS, and one token per attack or mistake, each refused with upstream's text.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { createPublicKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { decodeAuthenticationConfiguration } from '../../../config/authentication.ts';
import { compileAndValidateAuthenticationConfiguration } from '../../../config/authentication-validation.ts';
import type { AuthenticationResult, AuthenticatorRequest } from '../interface.ts';
import { CREDENTIAL_ID_KEY } from '../user.ts';
import { newJWTAuthenticators, type JWTAuthenticators, type JWTAuthenticatorsOptions } from './jwt-authenticators.ts';
import { newKeyPair, type SigningKeyPair, TestOIDCIssuer } from './testing/oidc-issuer.ts';

function compiled(entries: Record<string, unknown>[]) {
  const text = JSON.stringify({ apiVersion: 'apiserver.config.cluster.io/v1', kind: 'AuthenticationConfiguration', jwt: entries });
  const c = compileAndValidateAuthenticationConfiguration(decodeAuthenticationConfiguration(text));
  assert.deepEqual(c.errors.map((e) => e.text()), []);
  return c;
}

const req = (token: string): AuthenticatorRequest => ({ headers: { authorization: `Bearer ${token}` }, socket: {} as Socket });

async function refusedWith(a: JWTAuthenticators, token: string, message: string | RegExp): Promise<void> {
  const r = await a.authenticate(req(token));
  assert.equal(r.user, null);
  if (typeof message === 'string') assert.equal(r.error?.message, message);
  else assert.match(r.error?.message ?? '', message);
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('JWT authenticator against a loopback OIDC issuer', () => {
  const issuer = new TestOIDCIssuer('/tenant');
  let rsa: SigningKeyPair;
  let ec: SigningKeyPair;
  let authn: JWTAuthenticators;
  const results: string[] = [];

  before(async () => {
    await issuer.start();
    rsa = await newKeyPair('rsa-1', 'RS256');
    ec = await newKeyPair('ec-1', 'ES256');
    issuer.published = [rsa, ec];
    const config = compiled([
      {
        issuer: { url: issuer.url, audiences: ['core'], certificateAuthority: issuer.caPem },
        claimValidationRules: [
          { claim: 'hd', requiredValue: 'example.com' },
          { expression: 'claims.exp - claims.iat <= 86400.0', message: 'token lifetime over a day' },
        ],
        claimMappings: {
          username: { claim: 'email', prefix: '' },
          groups: { claim: 'groups', prefix: 'oidc:' },
          uid: { claim: 'sub' },
          extra: [{ key: 'example.org/tenant', valueExpression: 'claims.?tenant.orValue("")' }],
        },
        userValidationRules: [{ expression: '!user.username.startsWith("system:")', message: 'username cannot use reserved system: prefix' }],
      },
    ]);
    const opts: JWTAuthenticatorsOptions = { minKeyRefreshIntervalMs: 0, onResult: (_iss, result) => results.push(result) };
    authn = newJWTAuthenticators(config, opts);
    await authn.ready();
  });
  after(async () => {
    authn?.close();
    await issuer.close();
  });

  const good = { email: 'alice@example.com', email_verified: true, aud: 'core', sub: 'u-1', hd: 'example.com', groups: ['dev'], jti: 'j-1', tenant: 't1' };

  it('accepts RS256 and ES256 tokens and maps the user', async () => {
    for (const key of [rsa, ec]) {
      const r = await authn.authenticate(req(await issuer.sign(key, good)));
      assert.deepEqual(r.user, {
        name: 'alice@example.com',
        uid: 'u-1',
        groups: ['oidc:dev', 'system:authenticated'],
        extra: { [CREDENTIAL_ID_KEY]: ['JTI=j-1'], 'example.org/tenant': ['t1'] },
      });
    }
    assert.equal(authn.healthCheck(), undefined);
  });

  // The Authorization header is removed by the authentication filter once a request is authenticated, whatever
  // authenticated it (filters/authentication.test.ts).
  it('caches successes only', async () => {
    const token = await issuer.sign(rsa, { ...good, jti: 'cache-me' });
    const r1 = req(token);
    results.length = 0;
    assert.ok((await authn.authenticate(r1)).user);
    assert.ok((await authn.authenticate(req(token))).user);
    assert.deepEqual(results, ['success'], 'the second request was answered from the cache');
    const bad = await issuer.sign(rsa, { ...good, aud: 'other' });
    await authn.authenticate(req(bad));
    await authn.authenticate(req(bad));
    assert.deepEqual(results, ['success', 'failure', 'failure'], 'failures are not cached');
  });

  it('refuses expired and not yet valid tokens (nbf with one minute of leeway)', async () => {
    const now = Math.floor(Date.now() / 1000);
    await refusedWith(authn, await issuer.sign(rsa, { ...good, iat: now - 7200, exp: now - 3600 }), /^oidc: verify token: oidc: token is expired \(Token Expiry: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC\)$/);
    await refusedWith(authn, await issuer.sign(rsa, { ...good, nbf: now + 600 }), /^oidc: verify token: oidc: current time .* before the nbf \(not before\) time: /);
    assert.ok((await authn.authenticate(req(await issuer.sign(rsa, { ...good, nbf: now + 30 })))).user, 'within the leeway');
    const { exp: _drop, ...noExp } = { ...good, exp: 0 };
    const withoutExp = await new SignJWT({ ...noExp, iss: issuer.url }).setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' }).sign(rsa.privateKey);
    await refusedWith(authn, withoutExp, 'oidc: verify token: oidc: token is expired (Token Expiry: 0001-01-01 00:00:00 +0000 UTC)');
  });

  it('ignores other issuers\' tokens (the bearer layer then refuses them) and checks the audience', async () => {
    await refusedWith(authn, await issuer.sign(rsa, { ...good, iss: 'https://evil.example' }), 'invalid bearer token');
    await refusedWith(authn, await issuer.sign(rsa, { ...good, aud: ['other', 'x'] }), 'oidc: verify token: oidc: expected audience "core" got ["other" "x"]');
    await refusedWith(authn, 'not-a-jwt', 'invalid bearer token');
  });

  it('refuses alg none, HS256 with the public key as secret, and a signature by another key', async () => {
    const none = `${b64({ alg: 'none', kid: 'rsa-1' })}.${b64({ ...good, iss: issuer.url, exp: Math.floor(Date.now() / 1000) + 60 })}.`;
    await refusedWith(authn, none, 'oidc: verify token: oidc: id token signed with unsupported algorithm, expected ["ES256" "ES384" "ES512" "PS256" "PS384" "PS512" "RS256" "RS384" "RS512"] got "none"');
    const publicPem = createPublicKey({ key: rsa.publicJWK as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const hs = await new SignJWT({ ...good, iss: issuer.url, exp: Math.floor(Date.now() / 1000) + 60 })
      .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
      .sign(new TextEncoder().encode(String(publicPem)));
    await refusedWith(authn, hs, /^oidc: verify token: oidc: id token signed with unsupported algorithm, .* got "HS256"$/);
    const foreign = await newKeyPair('rsa-1', 'RS256');
    await refusedWith(authn, await issuer.sign(foreign, good), 'oidc: verify token: failed to verify signature: failed to verify id token signature');
  });

  it('refetches the key set for an unknown key id and accepts the token once the issuer has rotated to it', async () => {
    const rotated = await newKeyPair('rsa-2', 'RS256');
    const token = await issuer.sign(rotated, good);
    const before = issuer.requests.jwks;
    await refusedWith(authn, token, 'oidc: verify token: failed to verify signature: failed to verify id token signature');
    assert.equal(issuer.requests.jwks, before + 1, 'one refetch for the unknown kid');
    issuer.published = [rotated, ec];
    assert.ok((await authn.authenticate(req(token))).user);
    assert.equal(issuer.requests.jwks, before + 2);
    issuer.published = [rsa, ec, rotated];
  });

  it('refuses a missing username claim and each failing rule with its message', async () => {
    const { email: _e, ...noEmail } = good;
    await refusedWith(authn, await issuer.sign(rsa, noEmail), 'oidc: parse username claims "email": claim not present');
    await refusedWith(authn, await issuer.sign(rsa, { ...good, hd: 'other.org' }), 'oidc: required claim hd value does not match. Got = other.org, want = example.com');
    const now = Math.floor(Date.now() / 1000);
    await refusedWith(
      authn,
      await issuer.sign(rsa, { ...good, iat: now, exp: now + 3 * 86400 }),
      "oidc: error evaluating claim validation expression: validation expression 'claims.exp - claims.iat <= 86400.0' failed: token lifetime over a day",
    );
    await refusedWith(
      authn,
      await issuer.sign(rsa, { ...good, email: 'system:admin' }),
      `oidc: error evaluating user info validation rule: validation expression '!user.username.startsWith("system:")' failed: username cannot use reserved system: prefix`,
    );
  });

  it('applies the email_verified rule to the email claim', async () => {
    await refusedWith(authn, await issuer.sign(rsa, { ...good, email_verified: false }), 'oidc: email not verified');
    const { email_verified: _v, ...unverified } = good;
    assert.ok((await authn.authenticate(req(await issuer.sign(rsa, unverified)))).user, 'an absent email_verified is accepted, as upstream does');
  });

  it('limits key set refetches caused by unknown key ids', async () => {
    const limited = newJWTAuthenticators(compiled([{ issuer: { url: issuer.url, audiences: ['core'], certificateAuthority: issuer.caPem }, claimMappings: { username: { claim: 'sub', prefix: '' } } }]), {
      minKeyRefreshIntervalMs: 60_000,
    });
    try {
      await limited.ready();
      const before = issuer.requests.jwks;
      const unknown = await newKeyPair('nobody', 'RS256');
      const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => issuer.sign(unknown, { sub: `s${i}`, aud: 'core' })));
      const answers: AuthenticationResult[] = await Promise.all(tokens.map((t) => limited.authenticate(req(t))));
      assert.ok(answers.every((a) => a.user === null));
      assert.equal(issuer.requests.jwks - before, 1, 'one fetch for twenty unknown-kid tokens');
    } finally {
      limited.close();
    }
  });
});

describe('JWT authenticator discovery', () => {
  it('uses discoveryURL, and honours the certificate authority', async () => {
    const issuer = await new TestOIDCIssuer('', '/custom/discovery').start();
    const key = await newKeyPair('k', 'ES256');
    issuer.published = [key];
    const other = await new TestOIDCIssuer().start();
    const a = newJWTAuthenticators(
      compiled([{ issuer: { url: issuer.url, discoveryURL: `${issuer.origin}/custom/discovery`, audiences: ['core'], certificateAuthority: issuer.caPem }, claimMappings: { username: { claim: 'sub', prefix: '' } } }]),
    );
    const wrongCA = newJWTAuthenticators(
      compiled([{ issuer: { url: issuer.url, discoveryURL: `${issuer.origin}/custom/discovery`, audiences: ['core'], certificateAuthority: other.caPem }, claimMappings: { username: { claim: 'sub', prefix: '' } } }]),
      { retryIntervalMs: 50 },
    );
    try {
      await a.ready();
      assert.equal((await a.authenticate(req(await issuer.sign(key, { sub: 'bob', aud: 'core' })))).user?.name, 'bob');
      await new Promise((r) => setTimeout(r, 200));
      assert.match(wrongCA.healthCheck()?.message ?? '', /^oidc: authenticator for issuer ".*" is not healthy: .*(certificate|self-signed|verify)/i);
      await refusedWith(wrongCA, await issuer.sign(key, { sub: 'bob', aud: 'core' }), 'oidc: authenticator not initialized');
    } finally {
      a.close();
      wrongCA.close();
      await issuer.close();
      await other.close();
    }
  });

  it('starts while the issuer is unreachable and joins once discovery succeeds', async () => {
    const issuer = await new TestOIDCIssuer().start();
    const port = issuer.port;
    const key = await newKeyPair('k', 'RS256');
    issuer.published = [key];
    await issuer.close();
    const a = newJWTAuthenticators(compiled([{ issuer: { url: issuer.url, audiences: ['core'], certificateAuthority: issuer.caPem }, claimMappings: { username: { claim: 'sub', prefix: '' } } }]), { retryIntervalMs: 50 });
    try {
      await new Promise((r) => setTimeout(r, 100));
      assert.match(a.healthCheck()?.message ?? '', /is not healthy: Get "https:\/\/127\.0\.0\.1:\d+\/\.well-known\/openid-configuration": .*ECONNREFUSED/);
      const token = await issuer.sign(key, { sub: 'late', aud: 'core' });
      await refusedWith(a, token, 'oidc: authenticator not initialized');
      await issuer.start(port);
      await a.ready();
      assert.equal(a.healthCheck(), undefined);
      assert.equal((await a.authenticate(req(token))).user?.name, 'late');
    } finally {
      a.close();
      await issuer.close();
    }
  });

  it('refuses a discovery document that names another issuer, and retries', async () => {
    const issuer = await new TestOIDCIssuer().start();
    issuer.discoveryOverride = { issuer: 'https://someone-else.example' };
    const a = newJWTAuthenticators(compiled([{ issuer: { url: issuer.url, audiences: ['core'], certificateAuthority: issuer.caPem }, claimMappings: { username: { claim: 'sub', prefix: '' } } }]), { retryIntervalMs: 50 });
    try {
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(
        a.healthCheck()?.message,
        `oidc: authenticator for issuer "${issuer.url}" is not healthy: oidc: issuer did not match the issuer returned by provider, expected "${issuer.url}" got "https://someone-else.example"`,
      );
      issuer.discoveryOverride = {};
      await a.ready();
      assert.ok(issuer.requests.discovery >= 2);
    } finally {
      a.close();
      await issuer.close();
    }
  });
});

describe('JWT authenticator construction', () => {
  it('refuses an issuer that asks for an egress selector, which this server does not have', () => {
    const c = compiled([{ issuer: { url: 'https://i.example', audiences: ['a'], egressSelectorType: 'controlplane' }, claimMappings: { username: { claim: 'sub', prefix: '' } } }]);
    assert.throws(() => newJWTAuthenticators(c), { message: 'oidc: egress lookup required with egress selector type "controlplane"' });
  });
});
