/**
 * End-to-end: --authentication-config with a JWT issuer (a test OIDC issuer on loopback HTTPS with its own CA):
 * tokens map to users through the file's claim mappings, every bad token is a 401 that does not leak into the log,
 * and the file reloads while the server runs (a broken file changes nothing and is counted as a failure).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newKeyPair, TestOIDCIssuer, type SigningKeyPair } from '../src/auth/authenticator/jwt/testing/oidc-issuer.ts';
import { TestServer } from './helpers/server.ts';
import { until } from './helpers/until.ts';

const ROOT = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'authn-config-'));
const configPath = join(dir, 'authn.yaml');
const issuer = new TestOIDCIssuer();
const s = new TestServer();
let key: SigningKeyPair;

function config(extra = ''): string {
  const ca = issuer.caPem.trim().split('\n').map((l) => `          ${l}`).join('\n');
  return `apiVersion: apiserver.config.cluster.io/v1
kind: AuthenticationConfiguration
jwt:
  - issuer:
      url: ${issuer.url}
      audiences: [core-apiserver]
      certificateAuthority: |
${ca}
    claimMappings:
      username: { claim: sub, prefix: "oidc:" }
      groups: { claim: groups, prefix: "" }
      uid: { claim: sub }
${extra}anonymous:
  enabled: true
  conditions: [{ path: /livez }]
`;
}

/** Replaces the file as editors and ConfigMap volumes do (a rename, never a partial write). */
function writeConfig(text: string): void {
  const tmp = `${configPath}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, configPath);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const list = (token: string) => s.request('GET', '/apis/events.cluster.io/v1/namespaces/default/events', undefined, bearer(token), false);


before(async () => {
  await issuer.start();
  key = await newKeyPair('k1', 'RS256');
  issuer.published = [key];
  writeConfig(config());
  await s.start([`--authentication-config=${configPath}`]);
});
after(async () => {
  await s.cleanup();
  await issuer.close();
});

describe('--authentication-config', () => {
  it('maps a valid token to its user; a token with the admin group may list, one without is forbidden', async () => {
    const admin = await issuer.sign(key, { sub: 'ada', aud: 'core-apiserver', groups: ['system:masters'] });
    // Discovery runs in the background: the issuer's tokens are refused until it is ready.
    await until('the issuer to be ready', async () => (await list(admin)).status === 200);
    const dev = await issuer.sign(key, { sub: 'bob', aud: 'core-apiserver', groups: ['dev'] });
    const r = await list(dev);
    assert.equal(r.status, 403);
    assert.match(r.json().message, /User "oidc:bob" cannot list resource "events"/);
  });

  it('kubectl auth whoami prints the mapped identity of a token', async () => {
    const token = await issuer.sign(key, { sub: 'carol', aud: 'core-apiserver', groups: ['team-a', 'system:masters'] });
    const kubeconfig = join(dir, 'token.kubeconfig');
    const ca = Buffer.from(readFileSync(join(s.dataDir, 'pki/ca.crt'))).toString('base64');
    writeFileSync(kubeconfig, `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "${s.url}", certificate-authority-data: ${ca} } }]
users: [{ name: u, user: { token: "${token}" } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`);
    for (const version of ['1.27', '1.33']) {
      const r = await s.kubectl(['auth', 'whoami', `--kubeconfig=${kubeconfig}`], { version });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Username\s+oidc:carol/, version);
      assert.match(r.stdout, /UID\s+carol/, version);
      assert.match(r.stdout, /Groups\s+\[team-a system:masters system:authenticated\]/, version);
    }
  });

  it('anonymous only where the file\'s conditions allow it', async () => {
    assert.equal((await s.request('GET', '/livez', undefined, {}, false)).status, 200);
    assert.equal((await s.request('GET', '/readyz', undefined, {}, false)).status, 401, 'no condition names /readyz');
    assert.equal((await s.request('GET', '/version', undefined, {}, false)).status, 401);
  });

  it('answers 401 for every bad token and never logs a token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const other = await newKeyPair('k1', 'RS256');
    const cases: [string, string][] = [
      ['expired', await issuer.sign(key, { sub: 'x', aud: 'core-apiserver', exp: now - 120 })],
      ['wrong audience', await issuer.sign(key, { sub: 'x', aud: 'elsewhere' })],
      ['foreign key with a known kid', await issuer.sign(other, { sub: 'x', aud: 'core-apiserver' })],
      ['no username claim', await issuer.sign(key, { aud: 'core-apiserver' })],
      ['another issuer', await issuer.sign(key, { sub: 'x', aud: 'core-apiserver', iss: 'https://elsewhere.example' })],
      ['not a JWT', 'not-a-jwt'],
    ];
    for (const [what, token] of cases) {
      const r = await list(token);
      assert.equal(r.status, 401, what);
      assert.equal(r.json().reason, 'Unauthorized', what);
      assert.ok(!s.stderr.includes(token), `${what}: the token reached the log`);
    }
  });

  it('reloads the file while serving: new rules apply to the next requests, a broken file changes nothing', async () => {
    const admin = await issuer.sign(key, { sub: 'ada', aud: 'core-apiserver', groups: ['system:masters'] });
    const teamA = await issuer.sign(key, { sub: 'ada', aud: 'core-apiserver', groups: ['system:masters'], team: 'a' });
    writeConfig(config(`    claimValidationRules:\n      - expression: "claims.?team.orValue('') == 'a'"\n        message: only team a\n`));
    await until('the new rule to apply', async () => (await list(admin)).status === 401);
    assert.equal((await list(teamA)).status, 200);
    let metrics = (await s.request('GET', '/metrics')).body;
    assert.match(metrics, /^apiserver_authentication_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="success"\} 1$/m);
    assert.match(metrics, /^apiserver_authentication_config_controller_last_config_info\{apiserver_id_hash="sha256:[0-9a-f]{64}",hash="sha256:[0-9a-f]{64}"\} 1$/m);
    assert.match(metrics, /^apiserver_authentication_jwt_authenticator_latency_seconds_count\{jwt_issuer_hash="sha256:[0-9a-f]{64}",result="success"\} [1-9]/m);

    writeConfig('apiVersion: apiserver.config.cluster.io/v1\nkind: AuthenticationConfiguration\njwt:\n  - issuer: {url: "http://plain"}\n');
    await until('the broken file to be counted', async () => /status="failure"\} 1$/m.test((await s.request('GET', '/metrics')).body));
    assert.equal((await list(teamA)).status, 200, 'the last good configuration stays in force');
    assert.equal((await list(admin)).status, 401);
    metrics = (await s.request('GET', '/metrics')).body;
    assert.match(metrics, /^apiserver_authentication_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="failure"\} 1$/m);
    assert.match(s.stderr, /failed to validate authentication config: .*URL scheme must be https/);
  });

  it('a bad file stops the start with upstream\'s message and exit code 1', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: apiserver.config.cluster.io/v1\nkind: AuthenticationConfiguration\njwt:\n  - issuer: {url: "https://a.example"}\n    claimMappings: {username: {claim: sub}}\n');
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cmd/core-apiserver.ts'), `--data-dir=${join(dir, 'data')}`, '--secure-port=0', `--authentication-config=${bad}`], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /Error: invalid authentication configuration: .*jwt\[0\]\.issuer\.audiences: Required value/);
    assert.match(r.stderr, /jwt\[0\]\.claimMappings\.username\.prefix: Required value: prefix is required when claim is set/);
    const withAnonymous = join(dir, 'anonymous.yaml');
    writeFileSync(withAnonymous, 'apiVersion: apiserver.config.cluster.io/v1\nkind: AuthenticationConfiguration\nanonymous: {enabled: true}\n');
    const both = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cmd/core-apiserver.ts'), `--data-dir=${join(dir, 'data')}`, '--secure-port=0', `--authentication-config=${withAnonymous}`, '--anonymous-auth=true'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(both.status, 1);
    assert.match(both.stderr, /Error: anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file/);
  });
});
