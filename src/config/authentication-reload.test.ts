import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymousFlagConflict, decideReload } from './authentication-reload.ts';

const file = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    apiVersion: 'apiserver.config.cluster.io/v1',
    kind: 'AuthenticationConfiguration',
    jwt: [{ issuer: { url: 'https://issuer.example', audiences: ['core'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } }],
    ...extra,
  });

test('authentication config reload: unchanged, refused for good, refused anonymous change, valid', () => {
  assert.deepEqual(decideReload(file(), file(), undefined), { kind: 'unchanged' });
  assert.deepEqual(decideReload('', file(), undefined), { kind: 'invalid', message: 'failed to load authentication config: empty config data' });
  const bad = decideReload(file({ jwt: [{ issuer: { url: 'http://x', audiences: ['a'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } }] }), file(), undefined);
  assert.deepEqual(bad, { kind: 'invalid', message: 'failed to validate authentication config: jwt[0].issuer.url: Invalid value: "http://x": URL scheme must be https' });
  const anon = decideReload(file({ anonymous: { enabled: true } }), file(), undefined);
  assert.deepEqual(anon, { kind: 'invalid', message: 'failed to validate authentication config: anonymous: Forbidden: changed from initial configuration file' });
  const ok = decideReload(file({ anonymous: { enabled: true, conditions: [{ path: '/livez' }] } }), file(), { enabled: true, conditions: [{ path: '/livez' }] });
  assert.equal(ok.kind, 'valid');
});

test('authentication config: the anonymous field and an explicit --anonymous-auth exclude each other', () => {
  assert.equal(anonymousFlagConflict({ enabled: true, conditions: [] }, true)?.text(), 'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
  assert.equal(anonymousFlagConflict({ enabled: true, conditions: [] }, false), undefined);
  assert.equal(anonymousFlagConflict(undefined, true), undefined);
});
