/**
 * End-to-end: the version a 1.36 server reports (/version, kubectl), the debugging pages (/statusz, /flagz,
 * /configz) in both forms with their negotiation, and `--feature-gates` at start-up: refusals with upstream's
 * errors and a gate that takes /statusz away.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, TEST_STORAGE, TestServer } from './helpers/server.ts';

const STATUSZ_JSON = 'application/json;v=v1beta1;g=config.cluster.io;as=Statusz';
const FLAGZ_JSON = 'application/json;v=v1beta1;g=config.cluster.io;as=Flagz';
const WARNING = 'Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.';
/** `<label><delimiter> <value>` with any of upstream's random delimiters. */
const line = (label: string, value: string) => new RegExp(`\\n${label}(?::|: |=| ) ${value}\\n`);

function runCli(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cmd/core-apiserver.ts'), ...args], { encoding: 'utf8', timeout: 30_000 });
}

describe('a default server', () => {
  const s = new TestServer();
  before(() => s.start(['--feature-gates=NativeHistograms=true', '--event-ttl=2h']));
  after(() => s.cleanup());

  it('/version: binary 1.36, emulating 1.36, compatible down to 1.35', async () => {
    const v = (await s.request('GET', '/version', undefined, {}, false)).json();
    assert.equal(v.major, '1');
    assert.equal(v.minor, '36');
    assert.deepEqual([v.emulationMajor, v.emulationMinor, v.minCompatibilityMajor, v.minCompatibilityMinor], ['1', '36', '1', '35']);
    assert.match(v.gitVersion, /^v1\.36\.0-core\.0\+\d+\.\d+\.\d+/);
  });

  for (const version of ['1.27', '1.33']) {
    it(`kubectl ${version} reads the server version`, async () => {
      const r = await s.kubectl(['version', '-o', 'json'], { version });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.serverVersion.minor, '36');
      assert.match(out.serverVersion.gitVersion, /^v1\.36\.0/);
    });
  }

  it('/statusz as text: title, warning and the lines of spec document 2', async () => {
    const r = await s.request('GET', '/statusz');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.ok(r.body.startsWith(`\ncore-apiserver statusz\n${WARNING}\n\n`), r.body);
    assert.match(r.body, line('Started', '\\w{3} \\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d UTC \\d{4}'));
    assert.match(r.body, line('Up', '\\d+ hr \\d\\d min \\d\\d sec'));
    assert.match(r.body, line('Go version', `node${process.versions.node.replaceAll('.', '\\.')}`));
    assert.match(r.body, line('Binary version', '1\\.36\\.0-core\\.0\\+\\S+'));
    assert.match(r.body, line('Emulation version', '1\\.36'));
    assert.match(r.body, line('Paths', '/configz /flagz /healthz /livez /metrics /readyz /statusz /version'));
    const wildcard = await s.request('GET', '/statusz', undefined, { accept: '*/*' });
    assert.ok(wildcard.body.includes(WARNING));
  });

  it('/statusz as Statusz JSON with every field, minimumCompatibilityVersion included', async () => {
    const r = await s.request('GET', '/statusz', undefined, { accept: STATUSZ_JSON });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    const z = r.json();
    assert.deepEqual(Object.keys(z), ['kind', 'apiVersion', 'metadata', 'startTime', 'uptimeSeconds', 'goVersion', 'binaryVersion',
      'emulationVersion', 'minimumCompatibilityVersion', 'paths']);
    assert.equal(z.kind, 'Statusz');
    assert.equal(z.apiVersion, 'config.cluster.io/v1beta1');
    assert.deepEqual(z.metadata, { name: 'core-apiserver' });
    assert.match(z.startTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(Date.parse(z.startTime) <= Date.now() && Date.now() - Date.parse(z.startTime) < 120_000);
    assert.ok(Number.isInteger(z.uptimeSeconds) && z.uptimeSeconds >= 0);
    assert.equal(z.goVersion, `node${process.versions.node}`);
    assert.match(z.binaryVersion, /^1\.36\.0-core\.0\+/);
    assert.equal(z.emulationVersion, '1.36');
    assert.equal(z.minimumCompatibilityVersion, '1.35');
    assert.deepEqual(z.paths, ['/configz', '/flagz', '/healthz', '/livez', '/metrics', '/readyz', '/statusz', '/version']);
  });

  it('/flagz as text and as Flagz JSON: every flag with its effective value', async () => {
    const text = await s.request('GET', '/flagz');
    assert.equal(text.status, 200);
    assert.ok(text.body.startsWith(`\ncore-apiserver flagz\n${WARNING}\n\n`), text.body);
    assert.match(text.body, line('event-ttl', '2h0m0s'));
    assert.match(text.body, line('feature-gates', 'NativeHistograms=true'));
    const r = await s.request('GET', '/flagz', undefined, { accept: FLAGZ_JSON });
    assert.equal(r.status, 200);
    const f = r.json();
    assert.equal(f.kind, 'Flagz');
    assert.equal(f.apiVersion, 'config.cluster.io/v1beta1');
    assert.deepEqual(f.metadata, { name: 'core-apiserver' });
    assert.equal(f.flags['secure-port'], String(s.port));
    assert.equal(f.flags['data-dir'], s.dataDir);
    assert.equal(f.flags['event-ttl'], '2h0m0s');
    assert.equal(f.flags['max-requests-inflight'], '400');
    assert.equal(f.flags['feature-gates'], 'NativeHistograms=true');
    for (const name of ['bind-address', 'client-ca-file', 'tls-cert-file', 'tls-private-key-file', 'storage-backend', 'v', 'help', 'version']) {
      assert.ok(name in f.flags, name);
    }
    // No flag of this server holds a secret yet (key and CA flags are file paths); classified values are covered in zpages.test.ts.
    assert.ok(!Object.values(f.flags).includes('CLASSIFIED'));
  });

  it('406 with upstream\'s message for a JSON Accept lacking g, v or as', async () => {
    for (const [path, accept] of [
      ['/statusz', 'application/json'],
      ['/statusz', 'application/json;v=v1beta1;g=config.cluster.io'],
      ['/flagz', 'application/json;g=config.cluster.io;as=Flagz'],
      ['/flagz', STATUSZ_JSON],
    ] as const) {
      const r = await s.request('GET', path, undefined, { accept });
      assert.equal(r.status, 406, `${path} ${accept}`);
      const st = r.json();
      assert.equal(st.kind, 'Status');
      assert.equal(st.reason, 'NotAcceptable');
      assert.equal(st.message, 'only the following media types are accepted: application/json, application/yaml, text/plain');
    }
  });

  it('/configz: the effective configuration as JSON', async () => {
    const r = await s.request('GET', '/configz');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    const c = r.json()['core-apiserver'];
    assert.equal(c.securePort, s.port);
    assert.equal(c.dataDir, s.dataDir);
    assert.equal(c.eventTTL, '2h0m0s');
    assert.equal(c.storageBackend, TEST_STORAGE);
    assert.deepEqual(c.authorizationModes, ['RBAC']);
    assert.equal(c.featureGates.NativeHistograms, true);
    assert.equal(c.featureGates.ComponentStatusz, true);
    assert.equal(c.featureGates.ShardedListAndWatch, false);
  });

  it('the pages need permission and only GET', async () => {
    for (const path of ['/statusz', '/flagz', '/configz']) {
      // anonymous requests are system:anonymous, which may not read them: 403, as upstream
      const anonymous = await s.request('GET', path, undefined, {}, false);
      assert.equal(anonymous.status, 403, path);
      assert.equal(anonymous.json().message, `forbidden: User "system:anonymous" cannot get path "${path}"`);
      assert.equal((await s.request('POST', path, '{}')).status, 405, path);
    }
  });
});

describe('--feature-gates at start-up', () => {
  it('refuses an unknown gate, a change of a locked gate and a bad value: one line naming the flag, exit 1', () => {
    for (const [value, message] of [
      ['NoSuchGate=true', 'unrecognized feature gate: NoSuchGate'],
      ['CoreletPSI=false', 'cannot set feature gate CoreletPSI to false, feature is locked to true'],
      ['ComponentStatusz=maybe', 'invalid value of ComponentStatusz=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ]) {
      const r = runCli([`--feature-gates=${value}`]);
      assert.equal(r.status, 1, value);
      assert.equal(r.stderr, `Error: invalid argument "${value}" for "--feature-gates" flag: ${message}\n`);
    }
  });

  it('ComponentStatusz=false takes /statusz away (404); /flagz and /configz stay', async () => {
    const s = new TestServer();
    try {
      await s.start(['--feature-gates=ComponentStatusz=false']);
      const r = await s.request('GET', '/statusz');
      assert.equal(r.status, 404);
      assert.equal(r.body, '404 page not found\n');
      const f = await s.request('GET', '/flagz', undefined, { accept: FLAGZ_JSON });
      assert.equal(f.json().flags['feature-gates'], 'ComponentStatusz=false');
      assert.equal((await s.request('GET', '/configz')).json()['core-apiserver'].featureGates.ComponentStatusz, false);
    } finally {
      await s.cleanup();
    }
  });
});
