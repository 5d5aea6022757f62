import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileAuthorizationData, decodeAuthorizationConfiguration, loadAuthorizationConfiguration } from './authorization.ts';

const dir = mkdtempSync(join(tmpdir(), 'authz-config-'));
const kubeconfig = join(dir, 'webhook.kubeconfig');
writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');

const HEAD = 'apiVersion: apiserver.config.cluster.io/v1\nkind: AuthorizationConfiguration\n';

/** A valid webhook entry with `over` replacing lines of its webhook block (`key: value`, or `key: null` to drop). */
function webhook(over: Record<string, string | null> = {}, name = 'w'): string {
  const fields: Record<string, string | null> = {
    timeout: '3s',
    subjectAccessReviewVersion: 'v1',
    matchConditionSubjectAccessReviewVersion: 'v1',
    failurePolicy: 'Deny',
    connectionInfo: `{type: KubeConfigFile, kubeConfigFile: ${kubeconfig}}`,
    ...over,
  };
  const lines = Object.entries(fields).filter(([, v]) => v !== null).map(([k, v]) => `    ${k}: ${v}`);
  return `- type: Webhook\n  name: ${name}\n  webhook:\n${lines.join('\n')}\n`;
}

const errorOf = (text: string) => {
  try {
    compileAuthorizationData(text);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

test('a valid file: defaults for the TTLs and cache switches, both spellings of the kubeconfig field', () => {
  const c = compileAuthorizationData(`${HEAD}authorizers:\n${webhook()}- {type: RBAC, name: rbac}\n`);
  assert.deepEqual(c.errors, []);
  assert.deepEqual(c.config.authorizers[0]!.webhook, {
    authorizedTTLMs: 300_000,
    cacheAuthorizedRequests: true,
    unauthorizedTTLMs: 30_000,
    cacheUnauthorizedRequests: true,
    timeoutMs: 3000,
    subjectAccessReviewVersion: 'v1',
    matchConditionSubjectAccessReviewVersion: 'v1',
    failurePolicy: 'Deny',
    connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
    matchConditions: [],
  });
  const spec = compileAuthorizationData(`${HEAD}authorizers:\n${webhook({ connectionInfo: `{type: KubeConfigFile, coreConfigFile: ${kubeconfig}}`, cacheAuthorizedRequests: 'false', authorizedTTL: '1m' })}`);
  assert.equal(spec.config.authorizers[0]!.webhook!.connectionInfo.kubeConfigFile, kubeconfig);
  assert.deepEqual(compileAuthorizationData(`${HEAD}authorizers:\n${webhook({ connectionInfo: `{type: CoreConfigFile, coreConfigFile: ${kubeconfig}}` })}`).errors, []);
  assert.equal(spec.config.authorizers[0]!.webhook!.cacheAuthorizedRequests, false);
  assert.equal(spec.config.authorizers[0]!.webhook!.authorizedTTLMs, 60_000);
});

test('every apiVersion upstream registers loads, in either group; other kinds and versions do not', () => {
  for (const v of ['apiserver.config.cluster.io/v1', 'apiserver.config.cluster.io/v1beta1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.config.k8s.io/v1']) {
    assert.equal(decodeAuthorizationConfiguration(`apiVersion: ${v}\nkind: AuthorizationConfiguration\nauthorizers: []\n`).authorizers.length, 0, v);
  }
  assert.equal(
    errorOf('apiVersion: apiserver.config.cluster.io/v2\nkind: AuthorizationConfiguration\n'),
    'failed to load AuthorizationConfiguration from file: no kind "AuthorizationConfiguration" is registered for version "apiserver.config.cluster.io/v2" in scheme "pkg/apis/apiserver/load/load.go:32"',
  );
  assert.equal(errorOf('apiVersion: apiserver.config.cluster.io/v1\nkind: TracingConfiguration\n'), 'failed to load AuthorizationConfiguration from file: expected AuthorizationConfiguration, got *apiserver.TracingConfiguration');
  assert.equal(errorOf(`${HEAD}authorizers:\n- {type: RBAC, name: rbac, extra: 1}\n`), 'failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "authorizers[0].extra"');
  assert.equal(errorOf(`${HEAD}authorizers: {}\n`), 'failed to load AuthorizationConfiguration from file: json: cannot unmarshal object into Go struct field AuthorizationConfiguration.authorizers of type []v1.AuthorizerConfiguration');
  assert.equal(errorOf(`${HEAD}authorizers:\n${webhook({ timeout: '3 s' })}`), 'failed to load AuthorizationConfiguration from file: time: unknown unit " s" in duration "3 s"');
});

test('an empty file, or one without authorizers, is refused by validation', () => {
  assert.equal(errorOf(''), 'authorizers: Required value: at least one authorization mode must be defined');
  assert.equal(errorOf(`${HEAD}authorizers: []\n`), 'authorizers: Required value: at least one authorization mode must be defined');
});

test('authorizer types, names and the webhook field, with upstream\'s paths and texts', () => {
  assert.equal(errorOf(`${HEAD}authorizers:\n- {name: x}\n`), 'authorizers[0].type: Required value');
  assert.equal(errorOf(`${HEAD}authorizers:\n- {type: Node, name: node}\n`), 'authorizers[0].type: Unsupported value: "Node": supported values: "AlwaysAllow", "AlwaysDeny", "RBAC", "Webhook"');
  assert.equal(errorOf(`${HEAD}authorizers:\n- {type: RBAC, name: rbac}\n- {type: RBAC, name: rbac2}\n`), 'authorizers[1].type: Duplicate value: "RBAC"');
  assert.equal(errorOf(`${HEAD}authorizers:\n- {type: RBAC}\n`), 'authorizers[0].name: Required value');
  assert.equal(errorOf(`${HEAD}authorizers:\n${webhook({}, 'w')}${webhook({}, 'w')}`), 'authorizers[1].name: Duplicate value: "w"');
  // The spec makes names DNS-1123 labels: no dots (upstream allows subdomains).
  assert.equal(errorOf(`${HEAD}authorizers:\n${webhook({}, 'a.b')}`), 'authorizers[0].name: Invalid value: "a.b": authorizer name is invalid: must not contain dots');
  assert.match(errorOf(`${HEAD}authorizers:\n${webhook({}, 'Web')}`), /^authorizers\[0\]\.name: Invalid value: "Web": authorizer name is invalid: a lowercase RFC 1123 label must consist of/);
  assert.equal(errorOf(`${HEAD}authorizers:\n- {type: Webhook, name: w}\n`), 'authorizers[0].webhook: Required value: required when type=Webhook');
  assert.equal(errorOf(`${HEAD}authorizers:\n- {type: RBAC, name: rbac, webhook: {timeout: 1s}}\n`), 'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook');
  // kube-apiserver's own check, made once the fields are valid: built-in authorizers are named after their type.
  assert.equal(errorOf(`${HEAD}authorizers:\n- {type: RBAC, name: mine}\n- {type: AlwaysDeny, name: deny}\n`), '[expected name rbac for authorizer RBAC instead of mine, expected name alwaysdeny for authorizer AlwaysDeny instead of deny]');
});

test('webhook fields: timeout, TTLs, versions, failure policy, connection info', () => {
  const one = (over: Record<string, string | null>) => errorOf(`${HEAD}authorizers:\n${webhook(over)}`);
  assert.equal(one({ timeout: null }), 'authorizers[0].timeout: Required value');
  assert.equal(one({ timeout: '31s' }), 'authorizers[0].timeout: Invalid value: "31s": must be > 0s and <= 30s');
  assert.equal(one({ timeout: '-1s' }), 'authorizers[0].timeout: Invalid value: "-1s": must be > 0s and <= 30s');
  assert.equal(one({ authorizedTTL: '-5s' }), 'authorizers[0].authorizedTTL: Invalid value: "-5s": must be > 0s');
  assert.equal(one({ unauthorizedTTL: '-1m' }), 'authorizers[0].unauthorizedTTL: Invalid value: "-1m0s": must be > 0s');
  assert.equal(one({ subjectAccessReviewVersion: null }), 'authorizers[0].subjectAccessReviewVersion: Required value');
  assert.equal(one({ subjectAccessReviewVersion: 'v2' }), 'authorizers[0].subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"');
  assert.equal(one({ matchConditionSubjectAccessReviewVersion: 'v1beta1' }), 'authorizers[0].matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"');
  assert.equal(one({ matchConditionSubjectAccessReviewVersion: null, matchConditions: '[{expression: "true"}]' }), 'authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified');
  assert.equal(one({ matchConditionSubjectAccessReviewVersion: null }), '');
  assert.equal(one({ failurePolicy: null }), 'authorizers[0].failurePolicy: Required value');
  assert.equal(one({ failurePolicy: 'Allow' }), 'authorizers[0].failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"');
  assert.equal(one({ connectionInfo: '{}' }), 'authorizers[0].connectionInfo.type: Required value');
  assert.equal(one({ connectionInfo: '{type: KubeConfigFile}' }), 'authorizers[0].connectionInfo.kubeConfigFile: Required value');
  assert.equal(one({ connectionInfo: '{type: KubeConfigFile, kubeConfigFile: webhook.kubeconfig}' }), 'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "webhook.kubeconfig": must be an absolute path');
  assert.equal(
    one({ connectionInfo: `{type: KubeConfigFile, kubeConfigFile: ${dir}/none}` }),
    `authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "${dir}/none": error loading file: stat ${dir}/none: no such file or directory`,
  );
  // The spec's spelling is named as written.
  assert.equal(one({ connectionInfo: '{type: KubeConfigFile, coreConfigFile: x.yaml}' }), 'authorizers[0].connectionInfo.coreConfigFile: Invalid value: "x.yaml": must be an absolute path');
  assert.equal(one({ connectionInfo: `{type: KubeConfigFile, kubeConfigFile: ${dir}}` }), `authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "${dir}": must be a regular file`);
  assert.equal(one({ connectionInfo: `{type: InClusterConfig, kubeConfigFile: ${kubeconfig}}` }), `authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "${kubeconfig}": can only be set when type=KubeConfigFile`);
  assert.equal(one({ connectionInfo: '{type: InClusterConfig}' }), 'authorizers[0].connectionInfo.type: Unsupported value: "InClusterConfig": supported values: "KubeConfigFile"');
  assert.equal(one({ connectionInfo: '{type: Magic}' }), 'authorizers[0].connectionInfo.type: Unsupported value: {"Type":"Magic","KubeConfigFile":null}: supported values: "InClusterConfig", "KubeConfigFile"');
  assert.equal(
    one({ connectionInfo: `{type: KubeConfigFile, kubeConfigFile: ${kubeconfig}, coreConfigFile: ${kubeconfig}}` }),
    'authorizers[0].connectionInfo.coreConfigFile: Forbidden: may not be set together with kubeConfigFile (the same field, spelled as upstream)',
  );
});

test('match conditions: compiled at load, at most 64, no blanks or repeats', () => {
  const mc = (list: string[]) => errorOf(`${HEAD}authorizers:\n${webhook({ matchConditions: `[${list.map((e) => `{expression: ${JSON.stringify(e)}}`).join(', ')}]` })}`);
  assert.equal(mc(["has(request.resourceAttributes) && request.resourceAttributes.namespace == 'a'", "'team-a' in request.groups", "request.user != ''"]), '');
  assert.equal(mc(Array.from({ length: 65 }, (_, i) => `request.user != 'u${i}'`)), 'authorizers[0].matchConditions: Too many: 65: must have at most 64 items');
  assert.equal(mc(Array.from({ length: 64 }, (_, i) => `request.user != 'u${i}'`)), '');
  assert.equal(mc(['  ']), 'authorizers[0].matchConditions[0].expression: Required value');
  assert.equal(mc(['true', 'true']), 'authorizers[0].matchConditions[1].expression: Duplicate value: "true"');
  assert.equal(mc(['request.groups']), 'authorizers[0].matchConditions[0].expression: Invalid value: "request.groups": must evaluate to bool but got list(string)');
  assert.equal(
    mc(['request.nope == 1']),
    "authorizers[0].matchConditions[0].expression: Invalid value: \"request.nope == 1\": compilation failed: ERROR: <input>:1:9: No such key: nope\n | request.nope == 1\n | ........^",
  );
});

test('several errors are one aggregate, in field order', () => {
  assert.equal(
    errorOf(`${HEAD}authorizers:\n${webhook({ timeout: null, failurePolicy: null })}`),
    '[authorizers[0].timeout: Required value, authorizers[0].failurePolicy: Required value]',
  );
});

test('a file that cannot be read: Go\'s open error', () => {
  assert.throws(() => loadAuthorizationConfiguration(join(dir, 'missing.yaml')), { message: `open ${join(dir, 'missing.yaml')}: no such file or directory` });
  const f = join(dir, 'ok.yaml');
  writeFileSync(f, `${HEAD}authorizers:\n- {type: AlwaysAllow, name: alwaysallow}\n`);
  assert.equal(loadAuthorizationConfiguration(f).config.authorizers[0]!.type, 'AlwaysAllow');
});

test('examples/authorization-config.yaml is valid (with its kubeconfig in place)', () => {
  const text = readFileSync(join(import.meta.dirname, '../../examples/authorization-config.yaml'), 'utf8').replace('/etc/core-apiserver/team-policy.kubeconfig', kubeconfig);
  const c = compileAuthorizationData(text);
  assert.deepEqual(c.errors, []);
  assert.equal(c.matchConditions[0]!.length, 3);
});
