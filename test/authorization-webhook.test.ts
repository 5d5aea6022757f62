/**
 * End-to-end: --authorization-config with two webhooks (a test webhook on loopback HTTPS with its own CA, recording
 * every SubjectAccessReview, requiring the client certificate its kubeconfig names) in front of RBAC, and the legacy
 * --authorization-mode=Webhook flags. Users come from --token-auth-file; the webhook's answer depends on the user, so
 * one server plays every case: allow, deny, no opinion falling through to RBAC, timeouts and malformed answers under
 * each failure policy, match conditions that exclude or fail, the decision cache, retries, the namespace matrix,
 * metrics, and reloading the file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:https';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RecordedReview, TestWebhookServer } from '../src/auth/authorizer/webhook/testing/webhook-server.ts';
import { ROOT, sampleEvent, TestServer } from './helpers/server.ts';
import { until } from './helpers/until.ts';

const dir = mkdtempSync(join(tmpdir(), 'authz-webhook-'));
const configPath = join(dir, 'authz.yaml');
const tokensPath = join(dir, 'tokens.csv');
const webhook = new TestWebhookServer();
const s = new TestServer();
const USERS = ['alice', 'bob', 'carol', 'slow', 'garbage', 'flaky', 'excluded', 'strict-slow', 'strict-garbage', 'strict-ok'];

function webhookEntry(name: string, failurePolicy: string, version: string, conditions: string[]): string {
  return `- type: Webhook
  name: ${name}
  webhook:
    timeout: 1s
    authorizedTTL: 5m
    unauthorizedTTL: 30s
    subjectAccessReviewVersion: ${version}
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: ${failurePolicy}
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${join(dir, `${name}.kubeconfig`)}
    matchConditions:
${conditions.map((c) => `    - expression: ${JSON.stringify(c)}`).join('\n')}
`;
}

// A non-resource request has no resourceAttributes: the last condition of each webhook fails to evaluate for it.
const ON_RESOURCES = "request.resourceAttributes.namespace != 'never'";
const CONFIG = `apiVersion: apiserver.config.cluster.io/v1
kind: AuthorizationConfiguration
authorizers:
${webhookEntry('open', 'NoOpinion', 'v1', ["!request.user.startsWith('strict-')", "request.user != 'excluded'", ON_RESOURCES])}${webhookEntry('strict', 'Deny', 'v1beta1', ["request.user.startsWith('strict-')", ON_RESOURCES])}- type: RBAC
  name: rbac
`;

function writeConfig(text: string): void {
  writeFileSync(`${configPath}.tmp`, text);
  renameSync(`${configPath}.tmp`, configPath);
}

let flaky = 0;
function answer(r: RecordedReview) {
  const spec = r.body.spec ?? {};
  const ns = spec.resourceAttributes?.namespace;
  switch (spec.user) {
    case 'alice':
      return ns === 'a' ? { allowed: true } : { denied: true, reason: 'team a may only use namespace a' };
    case 'carol':
      return { denied: true, reason: 'carol is suspended' };
    case 'slow':
    case 'strict-slow':
      return { allowed: true, delayMs: 2500 };
    case 'garbage':
    case 'strict-garbage':
      return { raw: '{"status": {"allowed": tru' };
    case 'flaky':
      return flaky++ === 0 ? { status: 500, raw: 'try again' } : { allowed: true };
    case 'strict-ok':
      return { allowed: true };
    default:
      return { allowed: false };
  }
}

const bearer = (user: string) => ({ authorization: `Bearer token-${user}` });
const events = (ns: string) => `/apis/events.cluster.io/v1/namespaces/${ns}/events`;
const as = (user: string, method: string, path: string, body?: object, headers: Record<string, string> = {}) => s.request(method, path, body, { ...bearer(user), ...headers }, false);
const reviewsOf = (path: string, pred: (spec: any) => boolean) => webhook.on(path).filter((r) => pred(r.body.spec ?? {}));

/** Opens a watch as `user` and returns its status once the headers arrive. */
function watchStatus(user: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: s.port, path, headers: bearer(user), rejectUnauthorized: false, agent: false }, (res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}


before(async () => {
  await webhook.start({ mtls: true });
  webhook.answer = answer;
  webhook.writeKubeconfig(join(dir, 'open.kubeconfig'), '/open', 'webhook-secret');
  webhook.writeKubeconfig(join(dir, 'strict.kubeconfig'), '/strict');
  writeFileSync(tokensPath, USERS.map((u) => `token-${u},${u},uid-${u},"${u === 'alice' ? 'team-a' : 'people'}"`).join('\n') + '\n');
  writeConfig(CONFIG);
  await s.start([`--authorization-config=${configPath}`, `--token-auth-file=${tokensPath}`]);
  // RBAC lets these users read events in namespace x only (as admin, which system:masters allows without a webhook).
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'readers', namespace: 'x' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: ['bob', 'slow', 'garbage', 'excluded', 'strict-slow', 'strict-garbage'].map((name) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name })),
  };
  assert.equal((await s.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/x/rolebindings', binding)).status, 201);
  await until('the binding to be seen by RBAC', async () => (await as('bob', 'GET', events('x'))).status === 200);
});
after(async () => {
  await s.cleanup();
  await webhook.close();
});

describe('--authorization-config with webhooks before RBAC', () => {
  it('allows what the webhook allows, sending a v1 SubjectAccessReview with the user and the resource attributes', async () => {
    const r = await as('alice', 'GET', events('a'));
    assert.equal(r.status, 200);
    const review = reviewsOf('/open', (spec) => spec.user === 'alice' && spec.resourceAttributes?.verb === 'list')[0]!;
    assert.equal(review.body.apiVersion, 'authorization.k8s.io/v1');
    assert.equal(review.body.kind, 'SubjectAccessReview');
    assert.deepEqual(review.body.spec, {
      resourceAttributes: { namespace: 'a', verb: 'list', group: 'events.cluster.io', version: 'v1', resource: 'events' },
      user: 'alice',
      groups: ['team-a', 'system:authenticated'],
      uid: 'uid-alice',
    });
    // The kubeconfig's client certificate and token authenticate the server to the webhook.
    assert.equal(review.clientCN, 'core-apiserver');
    assert.equal(review.headers.authorization, 'Bearer webhook-secret');
    assert.equal(review.headers['content-type'], 'application/json');
  });

  it('denies what the webhook denies, with its reason, and asks no later authorizer', async () => {
    const r = await as('carol', 'GET', events('x'));
    assert.equal(r.status, 403);
    assert.equal(r.json().reason, 'Forbidden');
    assert.equal(r.json().message, 'events.events.cluster.io is forbidden: User "carol" cannot list resource "events" in API group "events.cluster.io" in the namespace "x": carol is suspended');
  });

  it('passes a no-opinion answer on to RBAC, which allows where it is bound and refuses elsewhere', async () => {
    assert.equal((await as('bob', 'GET', events('x'))).status, 200);
    const r = await as('bob', 'GET', events('y'));
    assert.equal(r.status, 403);
    assert.match(r.json().message, /User "bob" cannot list resource "events" in API group "events.cluster.io" in the namespace "y"$/);
    assert.ok(reviewsOf('/open', (spec) => spec.user === 'bob').length > 0);
  });

  it('failurePolicy NoOpinion: a timeout falls through to RBAC (allowed where bound, 500 with the error elsewhere)', async () => {
    const started = Date.now();
    assert.equal((await as('slow', 'GET', events('x'))).status, 200);
    assert.ok(Date.now() - started >= 1000, 'the webhook was given its timeout');
    const r = await as('slow', 'GET', events('y'));
    assert.equal(r.status, 500);
    assert.match(r.body, /^Internal Server Error: "\/apis\/events.cluster.io\/v1\/namespaces\/y\/events": .*context deadline exceeded/);
    // A timeout is not retried.
    assert.equal(reviewsOf('/open', (spec) => spec.user === 'slow' && spec.resourceAttributes?.namespace === 'y').length, 1);
  });

  it('failurePolicy NoOpinion: a malformed answer falls through to RBAC the same way', async () => {
    assert.equal((await as('garbage', 'GET', events('x'))).status, 200);
    const r = await as('garbage', 'GET', events('y'));
    assert.equal(r.status, 500);
    assert.match(r.body, /malformed webhook answer/);
  });

  it('failurePolicy Deny: a timeout or a malformed answer refuses even what RBAC would allow', async () => {
    for (const user of ['strict-slow', 'strict-garbage']) {
      const r = await as(user, 'GET', events('x'));
      assert.equal(r.status, 500, user);
      assert.match(r.body, /^Internal Server Error: /);
    }
  });

  it('a v1beta1 webhook gets `group` instead of `groups`', async () => {
    assert.equal((await as('strict-ok', 'GET', events('z'))).status, 200);
    const review = reviewsOf('/strict', (spec) => spec.user === 'strict-ok')[0]!;
    assert.equal(review.body.apiVersion, 'authorization.k8s.io/v1beta1');
    assert.deepEqual(review.body.spec.group, ['people', 'system:authenticated']);
    assert.equal(review.body.spec.groups, undefined);
    assert.equal(review.headers.authorization, undefined);
  });

  it('a match condition that is false skips the webhook: it is never asked, RBAC decides', async () => {
    assert.equal((await as('excluded', 'GET', events('x'))).status, 200);
    assert.equal((await as('excluded', 'GET', events('y'))).status, 403);
    assert.equal(webhook.reviews.filter((r) => r.body.spec?.user === 'excluded').length, 0);
  });

  it('a match condition that fails to evaluate is a failure: NoOpinion lets RBAC decide, Deny refuses', async () => {
    // GET /api is a non-resource request: `request.resourceAttributes` is not there.
    assert.equal((await as('bob', 'GET', '/api')).status, 200);
    const r = await as('strict-ok', 'GET', '/api');
    assert.equal(r.status, 500);
    assert.match(r.body, /cel evaluation error: expression 'request.resourceAttributes.namespace != 'never'' resulted in error/);
    assert.equal(webhook.reviews.filter((x) => x.body.spec?.nonResourceAttributes).length, 0);
  });

  it('caches answers: the same request within the TTL is not asked again, allowed or denied', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await as('alice', 'GET', `${events('a')}/cached-one`)).status, 404);
    assert.equal(reviewsOf('/open', (spec) => spec.resourceAttributes?.name === 'cached-one').length, 1);
    for (let i = 0; i < 3; i++) assert.equal((await as('carol', 'GET', `${events('a')}/cached-two`)).status, 403);
    assert.equal(reviewsOf('/open', (spec) => spec.resourceAttributes?.name === 'cached-two').length, 1);
    // Another user is another request.
    assert.equal((await as('bob', 'GET', `${events('x')}/cached-one`)).status, 404);
    assert.equal(reviewsOf('/open', (spec) => spec.resourceAttributes?.name === 'cached-one').length, 2);
  });

  it('retries a 500 with upstream\'s backoff', async () => {
    assert.equal((await as('flaky', 'GET', events('q'))).status, 200);
    assert.equal(reviewsOf('/open', (spec) => spec.user === 'flaky').length, 2);
  });

  it('the namespace matrix: team A does every verb in namespace a and nothing in b or across namespaces', async () => {
    const a = events('a');
    assert.equal((await as('alice', 'POST', a, sampleEvent('m1', 'a'))).status, 201);
    assert.equal((await as('alice', 'POST', a, sampleEvent('m2', 'a'))).status, 201);
    const got = await as('alice', 'GET', `${a}/m1`);
    assert.equal(got.status, 200);
    assert.equal((await as('alice', 'GET', a)).status, 200);
    assert.equal(await watchStatus('alice', `${a}?watch=1`), 200);
    const e = got.json();
    assert.equal((await as('alice', 'PUT', `${a}/m1`, { ...e, metadata: { ...e.metadata, labels: { app: 'updated' } } })).status, 200);
    assert.equal((await as('alice', 'PATCH', `${a}/m1`, { metadata: { labels: { app: 'patched' } } }, { 'content-type': 'application/merge-patch+json' })).status, 200);
    assert.equal((await as('alice', 'DELETE', `${a}/m1`)).status, 200);
    assert.equal((await as('alice', 'DELETE', a)).status, 200);
    const verbs = new Set(reviewsOf('/open', (spec) => spec.user === 'alice' && spec.resourceAttributes?.namespace === 'a').map((r) => r.body.spec.resourceAttributes.verb));
    for (const v of ['create', 'get', 'list', 'watch', 'update', 'patch', 'delete', 'deletecollection']) assert.ok(verbs.has(v), v);

    const b = events('b');
    const refused: [string, string, object?][] = [
      ['POST', b, sampleEvent('m1', 'b')],
      ['GET', `${b}/m1`],
      ['GET', b],
      ['PUT', `${b}/m1`, sampleEvent('m1', 'b')],
      ['PATCH', `${b}/m1`, { metadata: { labels: { app: 'x' } } }],
      ['DELETE', `${b}/m1`],
      ['DELETE', b],
      ['GET', '/apis/events.cluster.io/v1/events'],
      ['GET', '/api/v1/events'],
    ];
    for (const [method, path, body] of refused) {
      const r = await as('alice', method, path, body, method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : {});
      assert.equal(r.status, 403, `${method} ${path}`);
    }
    assert.equal(await watchStatus('alice', `${b}?watch=1`), 403);
    assert.equal(await watchStatus('alice', '/apis/events.cluster.io/v1/events?watch=1'), 403);
  });

  it('counts decisions, webhook round trips, fail-open answers and match conditions in /metrics', async () => {
    const m = (await s.request('GET', '/metrics')).body;
    const has = (re: RegExp) => assert.match(m, re);
    has(/^apiserver_authorization_decisions_total\{decision="allowed",name="open",type="Webhook"\} [1-9]/m);
    has(/^apiserver_authorization_decisions_total\{decision="denied",name="open",type="Webhook"\} [1-9]/m);
    has(/^apiserver_authorization_decisions_total\{decision="allowed",name="rbac",type="RBAC"\} [1-9]/m);
    has(/^apiserver_authorization_webhook_evaluations_total\{name="open",result="timeout"\} [1-9]/m);
    has(/^apiserver_authorization_webhook_evaluations_total\{name="open",result="error"\} [1-9]/m);
    has(/^apiserver_authorization_webhook_evaluations_total\{name="strict",result="success"\} [1-9]/m);
    has(/^apiserver_authorization_webhook_duration_seconds_count\{name="open",result="success"\} [1-9]/m);
    has(/^apiserver_authorization_webhook_evaluations_fail_open_total\{name="open",result="timeout"\} [1-9]/m);
    assert.doesNotMatch(m, /^apiserver_authorization_webhook_evaluations_fail_open_total\{name="strict"/m);
    has(/^apiserver_authorization_match_condition_exclusions_total\{name="open",type="Webhook"\} [1-9]/m);
    has(/^apiserver_authorization_match_condition_evaluation_errors_total\{name="strict",type="Webhook"\} [1-9]/m);
    has(/^apiserver_authorization_match_condition_evaluation_seconds_count\{name="open",type="Webhook"\} [1-9]/m);
    // The filter's view: 500s are errors, 403s after a webhook's Deny are denied, after nobody's Allow no-opinion.
    for (const result of ['allowed', 'denied', 'no-opinion', 'error']) has(new RegExp(`^authorization_attempts_total\\{result="${result}"\\} [1-9]`, 'm'));
    has(/^authorization_duration_seconds_count\{result="allowed"\} [1-9]/m);
    has(/^apiserver_authorization_config_controller_last_config_info\{apiserver_id_hash="sha256:[0-9a-f]{64}",hash="sha256:[0-9a-f]{64}"\} 1$/m);
  });

  it('reloads the file: a valid one applies to the next request, an invalid one changes nothing and is counted', async () => {
    writeConfig('apiVersion: apiserver.config.cluster.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: RBAC, name: rbac}\n');
    // Without the webhook nothing lets alice into namespace a any more.
    await until('the RBAC-only chain', async () => (await as('alice', 'GET', `${events('a')}?limit=1`)).status === 403);
    const reviews = webhook.reviews.length;
    writeConfig('apiVersion: apiserver.config.cluster.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: RBAC, name: not-rbac}\n');
    const metric = async () => (await s.request('GET', '/metrics')).body;
    await until('the failed reload to be counted', async () => /apiserver_authorization_config_controller_automatic_reloads_total\{apiserver_id_hash="[^"]+",status="failure"\} [1-9]/.test(await metric()));
    assert.equal((await as('alice', 'GET', `${events('a')}?limit=2`)).status, 403);
    assert.equal((await as('bob', 'GET', events('x'))).status, 200);
    assert.equal(webhook.reviews.length, reviews);
    const m = await metric();
    assert.match(m, /^apiserver_authorization_config_controller_automatic_reloads_total\{apiserver_id_hash="[^"]+",status="success"\} 1$/m);
    assert.match(m, /^apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds\{apiserver_id_hash="[^"]+",status="failure"\} \d/m);
    assert.match(s.stderr, /reloading authorization config.*expected name rbac for authorizer RBAC instead of not-rbac/);
  });
});

describe('--authorization-mode=Webhook with the legacy flags', () => {
  const legacy = new TestServer();
  before(async () => {
    webhook.writeKubeconfig(join(dir, 'legacy.kubeconfig'), '/legacy');
    await legacy.start(['--authorization-mode=Webhook,RBAC', `--authorization-webhook-config-file=${join(dir, 'legacy.kubeconfig')}`, '--authorization-webhook-cache-authorized-ttl=0s', `--token-auth-file=${tokensPath}`]);
  });
  after(() => legacy.cleanup());

  it('asks the webhook in v1beta1 (the flag\'s default) and, with the authorized TTL 0, every time', async () => {
    const get = () => legacy.request('GET', events('a'), undefined, bearer('alice'), false);
    assert.equal((await get()).status, 200);
    assert.equal((await get()).status, 200);
    const reviews = webhook.on('/legacy').filter((r) => r.body.spec.user === 'alice');
    assert.equal(reviews.length, 2);
    assert.equal(reviews[0]!.body.apiVersion, 'authorization.k8s.io/v1beta1');
    assert.deepEqual(reviews[0]!.body.spec.group, ['team-a', 'system:authenticated']);
    assert.equal((await legacy.request('GET', events('b'), undefined, bearer('alice'), false)).status, 403);
  });
});

describe('--authorization-mode=AlwaysAllow', () => {
  const open = new TestServer();
  before(() => open.start(['--authorization-mode=AlwaysAllow', `--token-auth-file=${tokensPath}`]));
  after(() => open.cleanup());

  it('allows every authenticated user everything, and turns anonymous requests off as upstream does', async () => {
    assert.equal((await open.request('DELETE', events('anywhere'), undefined, bearer('carol'), false)).status, 200);
    assert.equal((await open.request('GET', '/apis/events.cluster.io/v1/events', undefined, {}, false)).status, 401);
    assert.match(open.stderr, /AnonymousAuth is not allowed with the AlwaysAllow authorizer\. Resetting AnonymousAuth to false/);
  });
});

describe('start-up errors', () => {
  const start = (...args: string[]) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cmd/core-apiserver.ts'), `--data-dir=${join(dir, 'refused')}`, '--secure-port=0', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, stderr: r.stderr };
  };

  it('refuses --authorization-config with --authorization-mode or the webhook flags', () => {
    for (const flag of ['--authorization-mode=RBAC', '--authorization-webhook-version=v1', '--authorization-webhook-cache-unauthorized-ttl=1s']) {
      const r = start(`--authorization-config=${configPath}`, flag);
      assert.equal(r.code, 1, flag);
      assert.match(r.stderr, /^Error: --authorization-config can not be specified when --authorization-mode or --authorization-webhook-\* flags are defined$/m);
    }
  });

  it('refuses Webhook mode without its file, the file without the mode, and unknown modes', () => {
    assert.match(start('--authorization-mode=Webhook').stderr, /^Error: authorization-mode Webhook's authorization config file not passed$/m);
    assert.match(start(`--authorization-webhook-config-file=${join(dir, 'open.kubeconfig')}`).stderr, /^Error: cannot specify --authorization-webhook-config-file without mode Webhook$/m);
    const r = start('--authorization-mode=RBAC,ABAC');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^Error: authorization-mode "ABAC" is not a valid mode$/m);
  });

  it('names the field of an invalid configuration', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      `apiVersion: apiserver.config.cluster.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n${webhookEntry('open', 'Sometimes', 'v1', ['request.user'])}`.replace('timeout: 1s', 'timeout: 45s'),
    );
    const r = start(`--authorization-config=${bad}`);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^Error: \[authorizers\[0\]\.timeout: Invalid value: "45s": must be > 0s and <= 30s, authorizers\[0\]\.failurePolicy: Unsupported value: "Sometimes": supported values: "NoOpinion", "Deny", authorizers\[0\]\.matchConditions\[0\]\.expression: Invalid value: "request.user": must evaluate to bool but got string\]$/m,
    );
  });
});
