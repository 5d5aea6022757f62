/**
 * End-to-end: the legacy `--oidc-*` flags against a test OIDC issuer on loopback HTTPS: its tokens map to users with
 * upstream's defaults (username claim `sub`, prefixed with the issuer URL and `#`), `kubectl auth whoami` prints them,
 * tokens for another audience, without a required claim or signed with an algorithm outside `--oidc-signing-algs` are
 * 401; the flags next to `--authentication-config`, or with a bad value, stop the start. The token cache's and the JWKS
 * fetcher's metrics show the traffic.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newKeyPair, TestOIDCIssuer, type SigningKeyPair } from '../src/auth/authenticator/jwt/testing/oidc-issuer.ts';
import { ROOT, TestServer } from './helpers/server.ts';
import { until } from './helpers/until.ts';

const dir = mkdtempSync(join(tmpdir(), 'oidc-flags-'));
const issuer = new TestOIDCIssuer();
const s = new TestServer();
let key: SigningKeyPair;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const list = (token: string) => s.request('GET', '/apis/events.cluster.io/v1/namespaces/default/events', undefined, bearer(token), false);


/** Starts the server binary with `args` and expects it to stop at once. */
function refusedStart(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cmd/core-apiserver.ts'), `--data-dir=${join(dir, 'refused')}`, '--secure-port=0', ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stderr: r.stderr };
}

before(async () => {
  await issuer.start();
  key = await newKeyPair('k1', 'RS256');
  issuer.published = [key];
  writeFileSync(join(dir, 'oidc-ca.crt'), issuer.caPem);
  await s.start([
    `--oidc-issuer-url=${issuer.url}`,
    '--oidc-client-id=core-apiserver',
    `--oidc-ca-file=${join(dir, 'oidc-ca.crt')}`,
    '--oidc-groups-claim=groups',
    '--oidc-required-claim=hd=example.com',
  ]);
});
after(async () => {
  await s.cleanup();
  await issuer.close();
});

describe('--oidc-* flags', () => {
  it('a token of the issuer is its user: sub prefixed with the issuer URL and #, groups from the groups claim', async () => {
    const admin = await issuer.sign(key, { sub: 'ada', aud: 'core-apiserver', hd: 'example.com', groups: ['system:masters'] });
    // Discovery runs in the background: the issuer's tokens are refused until it is ready.
    await until('the issuer to be ready', async () => (await list(admin)).status === 200);
    const dev = await issuer.sign(key, { sub: 'bob', aud: 'core-apiserver', hd: 'example.com', groups: ['dev'] });
    const r = await list(dev);
    assert.equal(r.status, 403);
    assert.equal(r.json().message, `events.events.cluster.io is forbidden: User "${issuer.url}#bob" cannot list resource "events" in API group "events.cluster.io" in the namespace "default"`);
  });

  it('kubectl auth whoami (1.27, 1.33) prints the mapped identity', async () => {
    const token = await issuer.sign(key, { sub: 'carol', aud: 'core-apiserver', hd: 'example.com', groups: ['team-a'] });
    const kubeconfig = join(dir, 'token.kubeconfig');
    const ca = readFileSync(join(s.dataDir, 'pki/ca.crt')).toString('base64');
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
      assert.match(r.stdout, new RegExp(`Username\\s+${issuer.url.replace(/[.]/g, '\\.')}#carol`), version);
      assert.match(r.stdout, /Groups\s+\[team-a system:authenticated\]/, version);
    }
  });

  it('401 for another audience, a missing or different required claim, an algorithm outside --oidc-signing-algs; no token in the log', async () => {
    const es = await newKeyPair('e1', 'ES256');
    issuer.published = [key, es];
    const cases: [string, string][] = [
      ['wrong audience', await issuer.sign(key, { sub: 'x', aud: 'elsewhere', hd: 'example.com', groups: ['system:masters'] })],
      ['required claim missing', await issuer.sign(key, { sub: 'x', aud: 'core-apiserver', groups: ['system:masters'] })],
      ['required claim differs', await issuer.sign(key, { sub: 'x', aud: 'core-apiserver', hd: 'evil.example', groups: ['system:masters'] })],
      ['ES256, only RS256 allowed', await issuer.sign(es, { sub: 'x', aud: 'core-apiserver', hd: 'example.com', groups: ['system:masters'] })],
    ];
    try {
      for (const [what, token] of cases) {
        const r = await list(token);
        assert.equal(r.status, 401, what);
        assert.deepEqual([r.json().kind, r.json().reason], ['Status', 'Unauthorized'], what);
        assert.ok(!s.stderr.includes(token), `${what}: the token reached the log`);
      }
    } finally {
      issuer.published = [key];
    }
  });

  it('the token cache and the JWKS fetcher report through /metrics', async () => {
    const token = await issuer.sign(key, { sub: 'ada', aud: 'core-apiserver', hd: 'example.com', groups: ['system:masters'] });
    assert.equal((await list(token)).status, 200);
    assert.equal((await list(token)).status, 200);
    const text = (await s.request('GET', '/metrics')).body;
    assert.match(text, /^authentication_token_cache_request_total\{status="hit"\} [1-9]/m);
    assert.match(text, /^authentication_token_cache_request_total\{status="miss"\} [1-9]/m);
    assert.match(text, /^authentication_token_cache_fetch_total\{status="ok"\} [1-9]/m);
    assert.match(text, /^authentication_token_cache_active_fetch_count\{status="in_flight"\} 0$/m);
    assert.match(text, /^apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info\{apiserver_id_hash="sha256:[0-9a-f]{64}",hash="sha256:[0-9a-f]{64}",jwt_issuer_hash="sha256:[0-9a-f]{64}"\} 1$/m);
    assert.match(text, /^apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds\{apiserver_id_hash="sha256:[0-9a-f]{64}",jwt_issuer_hash="sha256:[0-9a-f]{64}",result="success"\} \d/m);
  });

  it('refuses to start with --authentication-config, or with a bad flag value, with upstream\'s texts and exit code 1', () => {
    const file = join(dir, 'authn.yaml');
    writeFileSync(file, 'apiVersion: apiserver.config.cluster.io/v1\nkind: AuthenticationConfiguration\n');
    const cases: [string[], string][] = [
      [[`--authentication-config=${file}`, `--oidc-issuer-url=${issuer.url}`, '--oidc-client-id=c'], 'Error: authentication-config file and oidc-* flags are mutually exclusive'],
      [['--oidc-issuer-url=https://login.example.com'], 'Error: oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set'],
      [['--oidc-issuer-url=http://login.example.com', '--oidc-client-id=c'], 'Error: invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://login.example.com": URL scheme must be https'],
      [['--oidc-issuer-url=https://login.example.com', '--oidc-client-id=c', '--oidc-signing-algs=HS256'], 'Error: oidc: unsupported signing alg: "HS256"'],
      [['--oidc-issuer-url=https://login.example.com', '--oidc-client-id=c', '--oidc-ca-file=/no/such/ca.crt'], 'Error: --oidc-ca-file: open /no/such/ca.crt: no such file or directory'],
    ];
    for (const [args, message] of cases) {
      const r = refusedStart(args);
      assert.equal(r.status, 1, args.join(' '));
      assert.ok(r.stderr.includes(message), `${args.join(' ')}: ${r.stderr}`);
    }
  });
});
