import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileAuthenticationConfiguration } from './authentication.ts';
import { oidcFlagsToAuthenticationConfiguration, type OIDCFlagValues } from './authentication-oidc-flags.ts';

const defaults: OIDCFlagValues = { issuerURL: '', clientID: '', caFile: '', usernameClaim: 'sub', usernamePrefix: '', groupsClaim: '', groupsPrefix: '', signingAlgs: ['RS256'], requiredClaims: {} };
const flags = (o: Partial<OIDCFlagValues>) => ({ ...defaults, issuerURL: 'https://login.example.com', clientID: 'core', ...o });
const entry = (o: Partial<OIDCFlagValues>) => oidcFlagsToAuthenticationConfiguration(flags(o))!.config.jwt[0]!;

test('no issuer, no authenticator', () => {
  assert.equal(oidcFlagsToAuthenticationConfiguration(defaults), undefined);
});

test('the entry kube-apiserver builds: issuer, client ID as the one audience, username claim with the legacy prefix rule', () => {
  const e = entry({});
  assert.deepEqual(e.issuer.audiences, ['core']);
  assert.equal(e.issuer.url, 'https://login.example.com');
  assert.deepEqual(e.claimMappings.username, { claim: 'sub', prefix: 'https://login.example.com#', expression: '' });
  assert.deepEqual(e.claimMappings.groups, { claim: '', expression: '' }, 'no groups claim: no groups mapping');
  assert.deepEqual(entry({ usernameClaim: 'email' }).claimMappings.username.prefix, '', 'email is not prefixed');
  assert.deepEqual(entry({ usernamePrefix: '-' }).claimMappings.username.prefix, '', '- turns the prefix off');
  assert.deepEqual(entry({ usernameClaim: 'email', usernamePrefix: 'oidc:' }).claimMappings.username.prefix, 'oidc:');
  assert.deepEqual(entry({ groupsClaim: 'groups' }).claimMappings.groups, { claim: 'groups', prefix: '', expression: '' }, 'groups prefix empty: none');
  assert.deepEqual(entry({ groupsClaim: 'groups', groupsPrefix: 'oidc:' }).claimMappings.groups.prefix, 'oidc:');
  assert.deepEqual(entry({ requiredClaims: { tier: 'gold', hd: 'example.com' } }).claimValidationRules, [
    { claim: 'hd', requiredValue: 'example.com', expression: '', message: '' },
    { claim: 'tier', requiredValue: 'gold', expression: '', message: '' },
  ]);
  // It passes the file's validation as it is.
  assert.equal(compileAuthenticationConfiguration(oidcFlagsToAuthenticationConfiguration(flags({ groupsClaim: 'groups', requiredClaims: { hd: 'x' } }))!.config).errors.length, 0);
});

test('the CA file is read into certificateAuthority; an unreadable one is refused naming the flag and Go\'s error', () => {
  assert.equal(oidcFlagsToAuthenticationConfiguration(flags({ caFile: '/ca.pem' }), () => 'PEM')!.config.jwt[0]!.issuer.certificateAuthority, 'PEM');
  assert.throws(() => oidcFlagsToAuthenticationConfiguration(flags({ caFile: '/no/such/ca.pem' })), { message: '--oidc-ca-file: open /no/such/ca.pem: no such file or directory' });
});

test('signing algorithms: RS256 by default, only asymmetric JOSE algorithms, with upstream\'s text', () => {
  assert.deepEqual(oidcFlagsToAuthenticationConfiguration(flags({ signingAlgs: [] }))!.signingAlgorithms, ['RS256']);
  assert.deepEqual(oidcFlagsToAuthenticationConfiguration(flags({ signingAlgs: ['ES256', 'PS512'] }))!.signingAlgorithms, ['ES256', 'PS512']);
  assert.throws(() => oidcFlagsToAuthenticationConfiguration(flags({ signingAlgs: ['RS256', 'HS256'] })), { message: 'oidc: unsupported signing alg: "HS256"' });
  assert.throws(() => oidcFlagsToAuthenticationConfiguration(flags({ signingAlgs: ['none'] })), { message: 'oidc: unsupported signing alg: "none"' });
});

test('what the file\'s validation refuses is refused for the flags with the same text', () => {
  assert.throws(() => compileAuthenticationConfiguration(oidcFlagsToAuthenticationConfiguration(flags({ issuerURL: 'http://login.example.com' }))!.config), {
    message: 'invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://login.example.com": URL scheme must be https',
  });
});
