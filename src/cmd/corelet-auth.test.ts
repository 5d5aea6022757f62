import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCoreletFlags } from './corelet.ts';
import { buildCoreletAuth } from './corelet-auth.ts';

const dir = mkdtempSync(join(tmpdir(), 'corelet-auth-flags-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]\n');

test("kubelet's defaults without a config file: anonymous allowed, no token webhook, AlwaysAllow", () => {
  const o = parseCoreletFlags(['--hostname-override=n1']);
  assert.deepEqual(o.auth, {
    anonymousAuth: true, clientCAFile: '', tokenWebhook: false, tokenWebhookCacheTTLMs: 120_000,
    authorizationMode: 'AlwaysAllow', authorizedTTLMs: 300_000, unauthorizedTTLMs: 30_000,
  });
});

test('bad authentication and authorization flags stop the start naming the flag', () => {
  assert.throws(() => parseCoreletFlags(['--hostname-override=n1', '--authorization-mode=RBAC']), { message: '--authorization-mode: Unknown authorization mode RBAC (valid: AlwaysAllow, Webhook)' });
  assert.throws(() => parseCoreletFlags(['--hostname-override=n1', '--authorization-mode=Webhook']), { message: '--authorization-mode=Webhook: no client provided, cannot use webhook authorization (it needs --kubeconfig)' });
  assert.throws(() => parseCoreletFlags(['--hostname-override=n1', '--authentication-token-webhook']), { message: '--authentication-token-webhook: no client provided, cannot use webhook authentication (it needs --kubeconfig)' });
  assert.throws(() => parseCoreletFlags(['--hostname-override=n1', '--authorization-webhook-cache-authorized-ttl=5x']), /authorization-webhook-cache-authorized-ttl/);
  const ok = parseCoreletFlags(['--hostname-override=n1', `--kubeconfig=${kubeconfig}`, '--authorization-mode=Webhook', '--authentication-token-webhook', '--authentication-token-webhook-cache-ttl=0s']);
  assert.equal(ok.auth.tokenWebhookCacheTTLMs, 0);
});

test('--client-ca-file must hold a certificate', () => {
  const base = parseCoreletFlags(['--hostname-override=n1']).auth;
  const missing = join(dir, 'missing.crt');
  assert.throws(() => buildCoreletAuth({ ...base, clientCAFile: missing }, '', () => {}), { message: `--client-ca-file: unable to load client CA file ${missing}: open ${missing}: no such file or directory` });
  writeFileSync(join(dir, 'empty.crt'), 'not a certificate\n');
  assert.throws(() => buildCoreletAuth({ ...base, clientCAFile: join(dir, 'empty.crt') }, '', () => {}), { message: `--client-ca-file: unable to load client CA file ${join(dir, 'empty.crt')}: data does not contain any valid RSA or ECDSA certificates` });
});
