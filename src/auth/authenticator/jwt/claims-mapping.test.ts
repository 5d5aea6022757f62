import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeAuthenticationConfiguration } from '../../../config/authentication.ts';
import { compileAndValidateAuthenticationConfiguration } from '../../../config/authentication-validation.ts';
import { CREDENTIAL_ID_KEY } from '../user.ts';
import { type Claims, ClaimsError, mapClaims, withAuthenticatedGroup } from './claims-mapping.ts';

/** One compiled authenticator from a jwt entry (only the parts under test; issuer fixed). */
function authenticator(entry: Record<string, unknown>) {
  const text = JSON.stringify({
    apiVersion: 'apiserver.config.cluster.io/v1',
    kind: 'AuthenticationConfiguration',
    jwt: [{ issuer: { url: 'https://issuer.example', audiences: ['core'] }, ...entry }],
  });
  const c = compileAndValidateAuthenticationConfiguration(decodeAuthenticationConfiguration(text));
  assert.deepEqual(c.errors.map((e) => e.text()), []);
  return c.jwt[0]!;
}

const refused = (entry: Record<string, unknown>, claims: Claims, message: string) =>
  assert.throws(() => mapClaims(authenticator(entry), claims), (e: unknown) => e instanceof ClaimsError && e.message === message);

const sub = { username: { claim: 'sub', prefix: 'oidc:' } };

test('claims mapping: claims with prefixes, uid, groups as a string or a list, and the credential id from jti', () => {
  const a = authenticator({ claimMappings: { ...sub, groups: { claim: 'groups', prefix: 'g:' }, uid: { claim: 'oid' } } });
  assert.deepEqual(mapClaims(a, { sub: 'alice', groups: ['dev', 'ops'], oid: 'u-1', jti: 'tok-9' }), {
    name: 'oidc:alice',
    uid: 'u-1',
    groups: ['g:dev', 'g:ops', 'system:authenticated'],
    extra: { [CREDENTIAL_ID_KEY]: ['JTI=tok-9'] },
  });
  assert.deepEqual(mapClaims(a, { sub: 'bob', groups: 'admins', oid: 'u-2' }), { name: 'oidc:bob', uid: 'u-2', groups: ['g:admins', 'system:authenticated'] });
  assert.deepEqual(mapClaims(a, { sub: 'carol', oid: 'u-3' }).groups, ['system:authenticated'], 'an absent groups claim means no groups');
  assert.deepEqual(mapClaims(authenticator({ claimMappings: { username: { claim: 'sub', prefix: '' } } }), { sub: 'x' }).name, 'x');
});

test('claims mapping: expressions for every attribute', () => {
  const a = authenticator({
    claimMappings: {
      username: { expression: '"user:" + claims.sub' },
      groups: { expression: 'claims.roles.map(r, "role:" + r)' },
      uid: { expression: 'claims.sub + "-id"' },
      extra: [
        { key: 'example.org/tenant', valueExpression: 'claims.tenant' },
        { key: 'example.org/none', valueExpression: '""' },
        { key: 'example.org/list', valueExpression: '["a", "", "b"]' },
      ],
    },
  });
  assert.deepEqual(mapClaims(a, { sub: 'alice', roles: ['r1'], tenant: 't1' }), {
    name: 'user:alice',
    uid: 'alice-id',
    groups: ['role:r1', 'system:authenticated'],
    extra: { 'example.org/tenant': ['t1'], 'example.org/list': ['a', 'b'] },
  });
  const nullGroups = authenticator({ claimMappings: { ...sub, groups: { expression: 'null' } } });
  assert.deepEqual(mapClaims(nullGroups, { sub: 'a' }).groups, ['system:authenticated']);
});

test('claims mapping: username refusals', () => {
  refused({ claimMappings: sub }, { name: 'x' }, 'oidc: parse username claims "sub": claim not present');
  refused({ claimMappings: sub }, { sub: 5 }, 'oidc: parse username claims "sub": json: cannot unmarshal number into Go value of type string');
  refused({ claimMappings: { username: { expression: 'claims.n' } } }, { n: 1 }, 'oidc: error evaluating username claim expression: username claim expression must return a string');
  refused({ claimMappings: { username: { expression: 'claims.s' } } }, { s: '' }, 'oidc: empty username via CEL expression is not allowed');
  refused({ claimMappings: { username: { expression: 'claims.missing' } } }, {}, "oidc: error evaluating username claim expression: expression 'claims.missing' resulted in error: no such key: missing");
});

test('claims mapping: the email claim needs email_verified true when present', () => {
  const email = { claimMappings: { username: { claim: 'email', prefix: '' } } };
  assert.equal(mapClaims(authenticator(email), { email: 'a@example.com', email_verified: true }).name, 'a@example.com');
  assert.equal(mapClaims(authenticator(email), { email: 'a@example.com' }).name, 'a@example.com', 'an absent email_verified is not checked');
  refused(email, { email: 'a@example.com', email_verified: false }, 'oidc: email not verified');
  refused(email, { email: 'a@example.com', email_verified: 'true' }, "oidc: parse 'email_verified' claim: json: cannot unmarshal string into Go value of type bool");
  // The expression form must say it itself; the validation rule makes that mandatory.
  const expr = { claimMappings: { username: { expression: 'claims.email' } }, claimValidationRules: [{ expression: 'claims.?email_verified.orValue(true) == true', message: 'email not verified' }] };
  refused(expr, { email: 'a@example.com', email_verified: false }, "oidc: error evaluating claim validation expression: validation expression 'claims.?email_verified.orValue(true) == true' failed: email not verified");
});

test('claims mapping: groups, uid and extra refusals', () => {
  refused({ claimMappings: { ...sub, groups: { claim: 'groups', prefix: '' } } }, { sub: 'a', groups: 5 }, 'oidc: parse groups claim "groups": json: cannot unmarshal number into Go value of type string');
  refused({ claimMappings: { ...sub, groups: { expression: 'claims.n' } } }, { sub: 'a', n: 1 }, 'oidc: error evaluating group claim expression: expression must return a string or a list of strings');
  refused({ claimMappings: { ...sub, uid: { claim: 'oid' } } }, { sub: 'a' }, 'oidc: parse uid claim "oid": claim not present');
  refused({ claimMappings: { ...sub, uid: { expression: '1' } } }, { sub: 'a' }, 'oidc: error evaluating uid claim expression: uid claim expression must return a string');
  refused({ claimMappings: { ...sub, extra: [{ key: 'example.org/x', valueExpression: '[1]' }] } }, { sub: 'a' }, 'oidc: error evaluating extra claim expression: [1]: expression must return a string or a list of strings');
});

test('claims mapping: required claims, claim rules and user rules, each with its message', () => {
  const required = { claimMappings: sub, claimValidationRules: [{ claim: 'hd', requiredValue: 'example.com' }] };
  assert.equal(mapClaims(authenticator(required), { sub: 'a', hd: 'example.com' }).name, 'oidc:a');
  refused(required, { sub: 'a' }, 'oidc: required claim hd not present in ID token');
  refused(required, { sub: 'a', hd: 'other.org' }, 'oidc: required claim hd value does not match. Got = other.org, want = example.com');
  refused(required, { sub: 'a', hd: 1 }, 'oidc: parse claim hd: json: cannot unmarshal number into Go value of type string');
  const rules = { claimMappings: sub, claimValidationRules: [{ expression: 'claims.exp - claims.iat <= 3600.0', message: 'token lifetime over an hour' }] };
  refused(rules, { sub: 'a', iat: 0, exp: 7200 }, "oidc: error evaluating claim validation expression: validation expression 'claims.exp - claims.iat <= 3600.0' failed: token lifetime over an hour");
  refused(rules, { sub: 'a' }, "oidc: error evaluating claim validation expression: expression 'claims.exp - claims.iat <= 3600.0' resulted in error: no such key: exp");
  const user = { claimMappings: { username: { claim: 'sub', prefix: '' } }, userValidationRules: [{ expression: '!user.username.startsWith("system:")', message: 'username cannot use reserved system: prefix' }] };
  assert.equal(mapClaims(authenticator(user), { sub: 'alice' }).name, 'alice');
  refused(user, { sub: 'system:admin' }, `oidc: error evaluating user info validation rule: validation expression '!user.username.startsWith("system:")' failed: username cannot use reserved system: prefix`);
  const groupsRule = { claimMappings: sub, userValidationRules: [{ expression: '!("system:authenticated" in user.groups)', message: 'm' }] };
  assert.deepEqual(mapClaims(authenticator(groupsRule), { sub: 'a' }).groups, ['system:authenticated'], 'user rules run before system:authenticated is added');
});

test('claims mapping: system:authenticated is added once, never to anonymous', () => {
  assert.deepEqual(withAuthenticatedGroup({ name: 'a', groups: ['system:authenticated'] }).groups, ['system:authenticated']);
  assert.deepEqual(withAuthenticatedGroup({ name: 'system:anonymous', groups: [] }).groups, []);
  assert.deepEqual(withAuthenticatedGroup({ name: 'a', groups: ['system:unauthenticated'] }).groups, ['system:unauthenticated']);
});
