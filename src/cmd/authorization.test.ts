import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Attributes, Authorizer } from '../auth/authorizer/interface.ts';
import type { RuleResolver } from '../auth/authorizer/rules.ts';
import { loadWebhookConnection } from '../auth/authorizer/webhook/kubeconfig.ts';
import { Registry } from '../metrics/registry.ts';
import { writeText } from '../metrics/text.ts';
import { parseFlags } from './flags.ts';
import { ConfiguredAuthorizer, configurationFromFlags } from './authorization.ts';
import { AuthorizationMetrics } from './authorization-metrics.ts';

const dir = mkdtempSync(join(tmpdir(), 'authz-chain-'));
const HEAD = 'apiVersion: apiserver.config.cluster.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n';
const attrs = (user: string): Attributes => ({
  user: { name: user, groups: [] },
  verb: 'list',
  namespace: 'a',
  apiGroup: 'events.cluster.io',
  apiVersion: 'v1',
  resource: 'events',
  subresource: '',
  name: '',
  path: '/apis/events.cluster.io/v1/namespaces/a/events',
  isResourceRequest: true,
});
/** RBAC stand-in: allows alice only, and lists one rule. */
const rbac: Authorizer & RuleResolver = {
  authorize: (a) => (a.user.name === 'alice' ? { decision: 'Allow', reason: 'RBAC: test' } : { decision: 'NoOpinion', reason: '' }),
  rulesFor: () => ({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['events'], resourceNames: [] }], nonResourceRules: [], incomplete: false }),
};

describe('the configured chain', () => {
  const stops: (() => void)[] = [];
  after(() => stops.forEach((s) => s()));

  it('--authorization-mode builds the chain in order, AlwaysDeny abstaining with upstream\'s reason', async () => {
    const deny = new ConfiguredAuthorizer(parseFlags(['--authorization-mode=AlwaysDeny,RBAC']).authorization, { rbac, apiserverID: 'x' });
    assert.equal((await deny.authorize(attrs('alice'))).decision, 'Allow');
    assert.deepEqual(await deny.authorize(attrs('bob')), { decision: 'NoOpinion', reason: 'Everything is forbidden.', error: undefined });
    const allow = new ConfiguredAuthorizer(parseFlags(['--authorization-mode=AlwaysAllow']).authorization, { rbac, apiserverID: 'x' });
    assert.equal((await allow.authorize(attrs('bob'))).decision, 'Allow');
    // The default is RBAC alone.
    const def = new ConfiguredAuthorizer(parseFlags([]).authorization, { rbac, apiserverID: 'x' });
    assert.equal((await def.authorize(attrs('bob'))).decision, 'NoOpinion');
    assert.equal((await def.authorize(attrs('alice'))).decision, 'Allow');
  });

  it('lists the rules of the chain: RBAC\'s, AlwaysAllow\'s everything, a webhook\'s none and incomplete', () => {
    const chain = new ConfiguredAuthorizer(parseFlags(['--authorization-mode=AlwaysDeny,RBAC,AlwaysAllow']).authorization, { rbac, apiserverID: 'x' });
    const r = chain.rulesFor({ name: 'bob', groups: [] }, 'a');
    assert.deepEqual(r.resourceRules.map((x) => x.verbs), [['get'], ['*']]);
    assert.equal(r.incomplete, false);
    const kc = join(dir, 'rules.kubeconfig');
    writeFileSync(kc, 'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1/"}}]\n');
    const hooked = new ConfiguredAuthorizer(parseFlags(['--authorization-mode=Webhook,RBAC', `--authorization-webhook-config-file=${kc}`]).authorization, { rbac, apiserverID: 'x' });
    const h = hooked.rulesFor({ name: 'bob', groups: [] }, 'a');
    assert.equal(h.incomplete, true);
    assert.equal(h.error?.message, 'webhook authorizer does not support user rule resolution');
    assert.equal(h.resourceRules.length, 1);
    hooked.stop();
  });

  it('the legacy webhook flags become upstream\'s configuration: name default, 30s, NoOpinion, caches off at TTL 0', () => {
    const o = parseFlags(['--authorization-mode=RBAC,Webhook', '--authorization-webhook-config-file=/k', '--authorization-webhook-version=v1', '--authorization-webhook-cache-unauthorized-ttl=0s']).authorization;
    assert.deepEqual(configurationFromFlags(o), {
      authorizers: [
        { type: 'RBAC', name: 'rbac' },
        {
          type: 'Webhook',
          name: 'default',
          webhook: {
            authorizedTTLMs: 300_000,
            cacheAuthorizedRequests: true,
            unauthorizedTTLMs: 0,
            cacheUnauthorizedRequests: false,
            timeoutMs: 30_000,
            failurePolicy: 'NoOpinion',
            subjectAccessReviewVersion: 'v1',
            matchConditionSubjectAccessReviewVersion: '',
            connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/k' },
            matchConditions: [],
          },
        },
      ],
    });
  });

  it('reloads: a new valid file swaps the chain, an invalid one keeps it; both counted; the same content is no change', async () => {
    const file = join(dir, 'authz.yaml');
    const write = (text: string) => {
      writeFileSync(`${file}.tmp`, text);
      renameSync(`${file}.tmp`, file);
    };
    write(`${HEAD}- {type: AlwaysDeny, name: alwaysdeny}\n`);
    const registry = new Registry({ version: '1.36.0' });
    const chain = new ConfiguredAuthorizer(parseFlags([`--authorization-config=${file}`]).authorization, {
      rbac,
      apiserverID: 'apiserver-1',
      metrics: new AuthorizationMetrics(registry),
      pollIntervalMs: 3_600_000,
    });
    stops.push(() => chain.stop());
    assert.equal((await chain.authorize(attrs('alice'))).decision, 'NoOpinion');
    write(`${HEAD}- {type: RBAC, name: rbac}\n`);
    chain.check();
    assert.equal((await chain.authorize(attrs('alice'))).decision, 'Allow');
    write(`${HEAD}- {type: RBAC, name: wrong}\n`);
    chain.check();
    chain.check();
    assert.equal((await chain.authorize(attrs('alice'))).decision, 'Allow');
    // The same configuration written differently is no reload.
    write(`${HEAD}- type: RBAC\n  name: rbac\n`);
    chain.check();
    const text = writeText(registry.collect());
    assert.match(text, /^apiserver_authorization_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]+",status="success"\} 1$/m);
    assert.match(text, /^apiserver_authorization_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]+",status="failure"\} 1$/m);
    assert.match(text, /^apiserver_authorization_decisions_total\{decision="allowed",name="rbac",type="RBAC"\} 2$/m);
    assert.equal(text.match(/^apiserver_authorization_config_controller_last_config_info\{/gm)?.length, 1);
  });

  it('a file that does not load stops the start with its message', () => {
    assert.throws(() => new ConfiguredAuthorizer(parseFlags([`--authorization-config=${join(dir, 'none.yaml')}`]).authorization, { rbac, apiserverID: 'x' }), {
      message: `open ${join(dir, 'none.yaml')}: no such file or directory`,
    });
    assert.throws(() => new ConfiguredAuthorizer(parseFlags(['--authorization-mode=Webhook', `--authorization-webhook-config-file=${join(dir, 'none')}`]).authorization, { rbac, apiserverID: 'x' }), {
      message: `invalid webhook kubeconfig ${join(dir, 'none')}: open ${join(dir, 'none')}: no such file or directory`,
    });
  });
});

describe('the webhook kubeconfig', () => {
  it('follows the current context; relative files are relative to the kubeconfig; token or client certificate', () => {
    writeFileSync(join(dir, 'ca.pem'), 'CA');
    writeFileSync(join(dir, 'token'), 'secret\n');
    const kc = join(dir, 'hook.kubeconfig');
    writeFileSync(
      kc,
      `clusters:
- {name: other, cluster: {server: https://other.example}}
- {name: authz, cluster: {server: "https://authz.example:8443/authorize", certificate-authority: ca.pem, tls-server-name: authz.internal}}
users:
- {name: api, user: {tokenFile: token}}
- {name: certs, user: {client-certificate-data: ${Buffer.from('CERT').toString('base64')}, client-key-data: ${Buffer.from('KEY').toString('base64')}}}
contexts:
- {name: hook, context: {cluster: authz, user: api}}
- {name: mtls, context: {cluster: authz, user: certs}}
current-context: hook
`,
    );
    const c = loadWebhookConnection(kc);
    assert.equal(c.url.href, 'https://authz.example:8443/authorize');
    assert.equal(c.ca, 'CA');
    assert.equal(c.token, 'secret');
    assert.equal(c.servername, 'authz.internal');
    writeFileSync(kc, readFileSync(kc, 'utf8').replace('current-context: hook', 'current-context: mtls'));
    const m = loadWebhookConnection(kc);
    assert.equal(m.cert, 'CERT');
    assert.equal(m.key, 'KEY');
    assert.equal(m.token, undefined);
  });

  it('refuses a file that names no server or a missing context', () => {
    const kc = join(dir, 'bad.kubeconfig');
    writeFileSync(kc, 'clusters: []\n');
    assert.throws(() => loadWebhookConnection(kc), /cluster has no server defined/);
    writeFileSync(kc, 'current-context: nope\ncontexts: []\n');
    assert.throws(() => loadWebhookConnection(kc), /context "nope" does not exist/);
    writeFileSync(kc, 'clusters: [{name: c, cluster: {server: "ftp://x"}}]\n');
    assert.throws(() => loadWebhookConnection(kc), /scheme must be https or http/);
  });
});

