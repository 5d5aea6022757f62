import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import type { AuthenticationResult, AuthenticatorRequest } from '../interface.ts';
import { NO_CREDENTIALS } from '../interface.ts';
import { BearerTokenAuthenticator, bearerToken } from './bearer.ts';
import { expiryOf } from './remote-key-set.ts';
import { CachedTokenAuthenticator, type TokenAuthenticator } from './token-cache.ts';
import { untrustedIssuer } from './issuer-authenticator.ts';
import { goTime } from './verifier.ts';

const req = (authorization?: string): AuthenticatorRequest => ({ headers: authorization === undefined ? {} : { authorization }, socket: {} as Socket });

test('bearer: the header forms upstream accepts, ignores and refuses', async () => {
  assert.equal(bearerToken({ authorization: 'Bearer abc' }), 'abc');
  assert.equal(bearerToken({ authorization: 'bearer abc' }), 'abc');
  assert.equal(bearerToken({ authorization: '  BEARER abc  ' }), 'abc');
  assert.equal(bearerToken({ authorization: 'Basic abc' }), undefined);
  assert.equal(bearerToken({ authorization: 'Bearer' }), undefined);
  assert.equal(bearerToken({ authorization: 'Bearer  abc' }), '');
  const seen: string[] = [];
  const tokens: TokenAuthenticator = {
    authenticateToken: async (t) => (seen.push(t), t === 'good' ? { user: { name: 'u', groups: [] } } : t === 'bad' ? { user: null, error: new Error('oidc: nope') } : NO_CREDENTIALS),
  };
  let warned = 0;
  const b = new BearerTokenAuthenticator(tokens, () => warned++);
  assert.equal(b.authenticate(req()), NO_CREDENTIALS);
  assert.equal(b.authenticate(req('Bearer  good')), NO_CREDENTIALS);
  assert.equal(warned, 1);
  const ok = req('Bearer good');
  assert.equal(((await b.authenticate(ok)) as AuthenticationResult).user?.name, 'u');
  assert.equal(ok.headers.authorization, undefined, 'removed after success');
  assert.equal(((await b.authenticate(req('Bearer bad'))) as AuthenticationResult).error?.message, 'oidc: nope');
  assert.equal(((await b.authenticate(req('Bearer unknown'))) as AuthenticationResult).error?.message, 'invalid bearer token');
});

test('token cache: successes for the TTL, failures never, one authentication for concurrent equal tokens', async () => {
  let calls = 0;
  let now = 0;
  const inner: TokenAuthenticator = {
    authenticateToken: async (t) => (calls++, t === 'good' ? { user: { name: 'u', groups: [] } } : { user: null, error: new Error('no') }),
  };
  const c = new CachedTokenAuthenticator(inner, 10_000, () => now);
  await Promise.all([c.authenticateToken('good'), c.authenticateToken('good')]);
  assert.equal(calls, 1);
  now = 9_999;
  await c.authenticateToken('good');
  assert.equal(calls, 1);
  now = 10_000;
  await c.authenticateToken('good');
  assert.equal(calls, 2);
  await c.authenticateToken('bad');
  await c.authenticateToken('bad');
  assert.equal(calls, 4);
});

test('jwt helpers: unverified issuer routing, key set expiry from cache headers, Go time text', () => {
  const tok = (payload: unknown) => `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
  assert.equal(untrustedIssuer(tok({ iss: 'https://a' })), 'https://a');
  assert.equal(untrustedIssuer(tok({ iss: 'accounts.google.com' })), 'https://accounts.google.com');
  assert.equal(untrustedIssuer(tok({})), '');
  assert.equal(untrustedIssuer('a.b'), undefined);
  assert.equal(untrustedIssuer('{"iss":"x"}'), undefined);
  assert.equal(untrustedIssuer('a.!!.c'), undefined);
  assert.equal(expiryOf({ 'cache-control': 'public, max-age=600' }, 1000), 601_000);
  assert.equal(expiryOf({ expires: 'Thu, 01 Jan 1970 00:01:00 GMT' }, 1000), 60_000);
  assert.equal(expiryOf({}, 1000), 1000);
  assert.equal(goTime(0), '1970-01-01 00:00:00 +0000 UTC');
  assert.equal(goTime(1500), '1970-01-01 00:00:01.5 +0000 UTC');
});
