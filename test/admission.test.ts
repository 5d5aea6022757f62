/**
 * End-to-end: EventRateLimit through the real CLI (`--enable-admission-plugins=EventRateLimit` with an
 * `--admission-control-config-file`). Each limit type refuses past its burst with upstream's 429 (no Retry-After,
 * nothing stored) and admits again after refill; a flood in one namespace leaves the others alone; both views of
 * Events (events.cluster.io/v1 and core/v1) spend the same tokens; dry runs spend none; updates and patches are
 * limited as creates are; kubectl shows the refusal; the admission metrics appear on /metrics; and bad
 * configuration stops the start with upstream's texts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import { ROOT, TestServer, sampleCoreEvent, sampleEvent, type HttpResult } from './helpers/server.ts';

const ERL = 'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\n';
const events = (ns: string) => `/apis/events.cluster.io/v1/namespaces/${ns}/events`;
const coreEvents = (ns: string) => `/api/v1/namespaces/${ns}/events`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A server with EventRateLimit configured inline (or through `path`, relative to the configuration file). */
async function startLimited(limits: string, opts: { viaPath?: boolean; extraArgs?: string[] } = {}): Promise<{ s: TestServer; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'admission-e2e-'));
  let plugin: string;
  if (opts.viaPath) {
    mkdirSync(join(dir, 'plugins'));
    writeFileSync(join(dir, 'plugins', 'eventratelimit.yaml'), `${ERL}limits:\n${limits}`);
    plugin = '- name: EventRateLimit\n  path: plugins/eventratelimit.yaml\n';
  } else {
    plugin = `- name: EventRateLimit\n  configuration:\n    apiVersion: eventratelimit.admission.cluster.io/v1alpha1\n    kind: Configuration\n    limits:\n${limits.replace(/^/gm, '    ')}`;
  }
  writeFileSync(join(dir, 'admission.yaml'), `apiVersion: apiserver.config.cluster.io/v1\nkind: AdmissionConfiguration\nplugins:\n${plugin}`);
  const s = new TestServer();
  await s.start(['--enable-admission-plugins=EventRateLimit', `--admission-control-config-file=${join(dir, 'admission.yaml')}`, ...(opts.extraArgs ?? [])]);
  return { s, dir };
}

/** Asserts upstream's refusal: 429 Status TooManyRequests, the message, and no Retry-After (clients drop, not retry). */
function assertLimited(r: HttpResult, type: string, key: string): void {
  assert.equal(r.status, 429, r.body);
  assert.equal(r.headers['retry-after'], undefined, 'no Retry-After');
  assert.deepEqual(r.json(), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: `Too many requests: limit reached on type ${type} for key ${key}`, reason: 'TooManyRequests', code: 429,
  });
}

describe('EventRateLimit, Namespace limit (qps 1, burst 3)', () => {
  let s: TestServer;
  let dir: string;
  before(async () => ({ s, dir } = await startLimited('- type: Namespace\n  qps: 1\n  burst: 3\n')));
  after(async () => {
    await s.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses past the burst with upstream\'s 429 and stores nothing; another namespace is not stopped; refill admits again', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await s.request('POST', events('flood'), sampleEvent(`e${i}`, 'flood'))).status, 201);
    assertLimited(await s.request('POST', events('flood'), sampleEvent('e3', 'flood')), 'Namespace', 'flood');
    assert.equal((await s.request('GET', `${events('flood')}/e3`)).status, 404, 'nothing stored');
    // The flood in `flood` leaves `quiet` its own bucket.
    for (let i = 0; i < 3; i++) assert.equal((await s.request('POST', events('quiet'), sampleEvent(`q${i}`, 'quiet'))).status, 201);
    await sleep(1100);
    assert.equal((await s.request('POST', events('flood'), sampleEvent('e4', 'flood'))).status, 201, 'one token back after a second');
    assertLimited(await s.request('POST', events('flood'), sampleEvent('e5', 'flood')), 'Namespace', 'flood');
  });

  it('both views spend the same tokens', async () => {
    assert.equal((await s.request('POST', events('views'), sampleEvent('a', 'views'))).status, 201);
    assert.equal((await s.request('POST', coreEvents('views'), sampleCoreEvent('b', 'views'))).status, 201);
    assert.equal((await s.request('POST', events('views'), sampleEvent('c', 'views'))).status, 201);
    assertLimited(await s.request('POST', coreEvents('views'), sampleCoreEvent('d', 'views')), 'Namespace', 'views');
    assertLimited(await s.request('POST', events('views'), sampleEvent('e', 'views')), 'Namespace', 'views');
  });

  it('dry runs spend no tokens', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await s.request('POST', `${events('dry')}?dryRun=All`, sampleEvent(`d${i}`, 'dry'))).status, 201);
    for (let i = 0; i < 3; i++) assert.equal((await s.request('POST', events('dry'), sampleEvent(`r${i}`, 'dry'))).status, 201);
    assertLimited(await s.request('POST', `${events('dry')}`, sampleEvent('r3', 'dry')), 'Namespace', 'dry');
  });

  it('updates and patches are limited as creates are (upstream handles CREATE and UPDATE); deletes are not', async () => {
    assert.equal((await s.request('POST', events('writes'), sampleEvent('w', 'writes'))).status, 201);
    const merge = { 'content-type': 'application/merge-patch+json' };
    // Event updates may change little besides metadata (upstream's event update validation): labels it is.
    const p = await s.request('PATCH', `${events('writes')}/w`, { metadata: { labels: { step: 'patched' } } }, merge);
    assert.equal(p.status, 200, p.body);
    const current = (await s.request('GET', `${events('writes')}/w`)).json();
    const u = await s.request('PUT', `${events('writes')}/w`, { ...current, metadata: { ...current.metadata, labels: { step: 'replaced' } } });
    assert.equal(u.status, 200, u.body);
    assertLimited(await s.request('PATCH', `${events('writes')}/w`, { metadata: { labels: { step: 'again' } } }, merge), 'Namespace', 'writes');
    assert.equal((await s.request('GET', `${events('writes')}/w`)).json().metadata.labels.step, 'replaced', 'the refused patch changed nothing');
    const core = (await s.request('GET', `${coreEvents('writes')}/w`)).json();
    assertLimited(await s.request('PUT', `${coreEvents('writes')}/w`, { ...core, metadata: { ...core.metadata, labels: { step: 'core' } } }), 'Namespace', 'writes');
    assert.equal((await s.request('DELETE', `${events('writes')}/w`)).status, 200);
  });

  it('server-side apply is limited too (it creates or updates)', async () => {
    const apply = { 'content-type': 'application/apply-patch+yaml' };
    for (let i = 0; i < 3; i++) {
      const r = await s.request('PATCH', `${events('apply')}/a${i}?fieldManager=t`, JSON.stringify(sampleEvent(`a${i}`, 'apply')), apply);
      assert.equal(r.status, 201, r.body);
    }
    assertLimited(await s.request('PATCH', `${events('apply')}/a3?fieldManager=t`, JSON.stringify(sampleEvent('a3', 'apply')), apply), 'Namespace', 'apply');
    assert.equal((await s.request('GET', `${events('apply')}/a3`)).status, 404);
  });

  it('kubectl create -f shows the 429 for the events past the burst', async () => {
    const docs = [0, 1, 2, 3].map((i) => JSON.stringify(sampleEvent(`k${i}`, 'kubectl'))).join('\n---\n');
    const file = join(dir, 'events.yaml');
    writeFileSync(file, docs);
    const r = await s.kubectl(['create', '-f', file], { version: '1.33' });
    assert.notEqual(r.code, 0);
    assert.match(r.stdout, /k0 created/);
    assert.match(r.stdout, /k2 created/);
    assert.ok(
      r.stderr.includes(`Error from server (TooManyRequests): error when creating "${file}": Too many requests: limit reached on type Namespace for key kubectl`),
      r.stderr,
    );
  });

  it('the admission metrics appear on /metrics with upstream\'s label values', async () => {
    const text = (await s.request('GET', '/metrics')).body;
    const admissionLines = text.split('\n').filter((l) => l.includes('admission')).join('\n');
    assert.match(text, /^# TYPE apiserver_admission_controller_admission_duration_seconds histogram$/m, admissionLines);
    assert.match(text, /^apiserver_admission_controller_admission_duration_seconds_count\{name="EventRateLimit",operation="CREATE",rejected="true",type="validate"\} [1-9]/m, admissionLines);
    assert.match(text, /^apiserver_admission_controller_admission_duration_seconds_count\{name="EventRateLimit",operation="UPDATE",rejected="false",type="validate"\} [1-9]/m, admissionLines);
    assert.match(text, /^apiserver_admission_step_admission_duration_seconds_bucket\{operation="CREATE",rejected="false",type="admit",le="0.005"\} [1-9]/m, admissionLines);
    assert.match(text, /^apiserver_admission_step_admission_duration_seconds_count\{operation="CREATE",rejected="true",type="validate"\} [1-9]/m, admissionLines);
    assert.match(text, /^# TYPE apiserver_admission_step_admission_duration_seconds_summary summary$/m, admissionLines);
    assert.match(text, /^apiserver_admission_step_admission_duration_seconds_summary_count\{operation="UPDATE",rejected="true",type="validate"\} [1-9]/m, admissionLines);
    assert.doesNotMatch(text, /operation="DELETE"/, 'no named plugin handles DELETE: no step');
  });

  it('/configz shows the named plugins that run and the configuration file', async () => {
    const c = (await s.request('GET', '/configz')).json()['core-apiserver'];
    assert.deepEqual(c.admissionPlugins, ['EventRateLimit']);
    assert.equal(c.admissionControlConfigFile, join(dir, 'admission.yaml'));
  });
});

describe('EventRateLimit, User limit', () => {
  let s: TestServer;
  let dir: string;
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  /** Bearer requests bypass the admin client certificate: a fresh agent without one. */
  const agent = new https.Agent({ rejectUnauthorized: false });
  const post = (token: string, name: string, ns = 'default') =>
    new Promise<HttpResult>((resolve, reject) => {
      const body = Buffer.from(JSON.stringify(sampleEvent(name, ns)));
      const req = https.request(
        { host: '127.0.0.1', port: s.port, method: 'POST', path: events(ns), agent, headers: { ...as(token), 'content-type': 'application/json', 'content-length': String(body.length) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw.toString(), raw, json: () => JSON.parse(raw.toString()) });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  before(async () => {
    const tokens = mkdtempSync(join(tmpdir(), 'admission-tokens-'));
    writeFileSync(join(tokens, 'tokens.csv'), 'alice-token,alice,1,"system:masters"\nbob-token,bob,2,"system:masters"\n');
    ({ s, dir } = await startLimited('- type: User\n  qps: 1\n  burst: 3\n', { extraArgs: [`--token-auth-file=${join(tokens, 'tokens.csv')}`] }));
  });
  after(async () => {
    agent.destroy();
    await s.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('one user\'s flood refuses that user only, in every namespace; refill admits again', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await post('alice-token', `a${i}`, `ns${i}`)).status, 201);
    assertLimited(await post('alice-token', 'a3', 'elsewhere'), 'User', 'alice');
    assert.equal((await post('bob-token', 'b0')).status, 201);
    await sleep(1100);
    assert.equal((await post('alice-token', 'a4')).status, 201);
  });
});

describe('EventRateLimit, SourceAndObject limit', () => {
  let s: TestServer;
  let dir: string;
  before(async () => ({ s, dir } = await startLimited('- type: SourceAndObject\n  qps: 1\n  burst: 3\n  cacheSize: 100\n')));
  after(async () => {
    await s.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keys on source and involved object; another object has its own bucket', async () => {
    const about = (name: string, obj: string) => sampleCoreEvent(name, 'default', { involvedObject: { kind: 'Pod', namespace: 'default', name: obj, apiVersion: 'v1', uid: 'uid-1' } });
    for (let i = 0; i < 3; i++) assert.equal((await s.request('POST', coreEvents('default'), about(`s${i}`, 'web-1'))).status, 201);
    assertLimited(await s.request('POST', coreEvents('default'), about('s3', 'web-1')), 'SourceAndObject', 'kubeletnode-1Poddefaultweb-1uid-1v1');
    assert.equal((await s.request('POST', coreEvents('default'), about('t0', 'web-2'))).status, 201);
    await sleep(1100);
    assert.equal((await s.request('POST', coreEvents('default'), about('s4', 'web-1'))).status, 201);
  });
});

describe('EventRateLimit, Server limit, configured through a relative path', () => {
  let s: TestServer;
  let dir: string;
  before(async () => ({ s, dir } = await startLimited('- type: Server\n  qps: 1\n  burst: 3\n', { viaPath: true })));
  after(async () => {
    await s.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('one bucket for everything; refill admits again', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await s.request('POST', events(`n${i}`), sampleEvent('x', `n${i}`))).status, 201);
    assertLimited(await s.request('POST', coreEvents('other'), sampleCoreEvent('y', 'other')), 'Server', '');
    await sleep(1100);
    assert.equal((await s.request('POST', events('other'), sampleEvent('z', 'other'))).status, 201);
  });
});

describe('admission configuration at start-up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'admission-startup-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  function runCli(args: string[]) {
    return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cmd/core-apiserver.ts'), `--data-dir=${join(dir, 'data')}`, '--secure-port=0', ...args], { encoding: 'utf8', timeout: 60_000 });
  }
  const file = (name: string, body: string) => {
    writeFileSync(join(dir, name), body);
    return join(dir, name);
  };
  const admissionConfig = (plugins: string) => `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n${plugins}`;

  it('refuses bad flags, unreadable files, unknown plugins and invalid plugin configuration with upstream\'s texts, exit 1', () => {
    const missing = join(dir, 'nope.yaml');
    const missingPlugin = join(dir, 'erl-missing.yaml');
    const cases: [string[], string][] = [
      [['--enable-admission-plugins=NamespaceLifecycle'], 'enable-admission-plugins plugin "NamespaceLifecycle" is unknown'],
      [['--enable-admission-plugins=EventRateLimit', '--disable-admission-plugins=EventRateLimit'], '[EventRateLimit] in enable-admission-plugins and disable-admission-plugins overlapped'],
      [['--admission-control-config-file', missing], `failed to apply admission: failed to read plugin config: unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`],
      [
        ['--admission-control-config-file', file('unknown.yaml', admissionConfig('- name: EventRateLimit\n- name: PodSecurity\n'))],
        'failed to apply admission: failed to read plugin config: plugins[1].name: Unsupported value: "PodSecurity": supported values: "EventRateLimit"',
      ],
      [
        ['--enable-admission-plugins=EventRateLimit', '--admission-control-config-file', file('path.yaml', admissionConfig('- name: EventRateLimit\n  path: erl-missing.yaml\n'))],
        `Couldn't open admission plugin configuration ${missingPlugin}: &fs.PathError{Op:"open", Path:"${missingPlugin}", Err:0x2}`,
      ],
      [
        ['--enable-admission-plugins=EventRateLimit', '--admission-control-config-file', file('invalid.yaml', admissionConfig('- name: EventRateLimit\n  configuration:\n    apiVersion: eventratelimit.admission.k8s.io/v1alpha1\n    kind: Configuration\n    limits: [{type: Namespace, qps: 0, burst: 5, cacheSize: -1}]\n'))],
        'failed to apply admission: couldn\'t init admission plugin "EventRateLimit": [limits[0].qps: Invalid value: 0: must be positive, limits[0].cacheSize: Invalid value: -1: must not be negative]',
      ],
      [['--enable-admission-plugins=EventRateLimit'], 'failed to apply admission: couldn\'t init admission plugin "EventRateLimit": limits: Invalid value: null: must not be empty'],
    ];
    for (const [args, message] of cases) {
      const r = runCli(args);
      assert.equal(r.status, 1, `${message}\n${r.stderr}`);
      assert.ok(r.stderr.endsWith(`Error: ${message}\n`), r.stderr);
    }
  });
});
