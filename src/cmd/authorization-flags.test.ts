import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flagRegistry, parseFlags, usage } from './flags.ts';

test('authorization flags: upstream\'s defaults, except RBAC as the default mode', () => {
  const o = parseFlags([]).authorization;
  assert.deepEqual(o.modes, ['RBAC']);
  assert.equal(o.webhookVersion, 'v1beta1');
  assert.equal(o.webhookCacheAuthorizedTTLMs, 300_000);
  assert.equal(o.webhookCacheUnauthorizedTTLMs, 30_000);
  assert.equal(flagRegistry().get('authorization-mode')?.default, '[RBAC]');
  assert.match(usage(), /^Authorization flags:$/m);
  // pflag's string slice: a comma list, a repeated flag appends.
  assert.deepEqual(parseFlags(['--authorization-mode=AlwaysDeny,RBAC', '--authorization-mode', 'AlwaysAllow']).authorization.modes, ['AlwaysDeny', 'RBAC', 'AlwaysAllow']);
});

test('authorization flags: upstream\'s checks and texts', () => {
  const refused = (args: string[], message: string) => assert.throws(() => parseFlags(args), { message }, args.join(' '));
  refused(['--authorization-config=/a.yaml', '--authorization-mode=RBAC'], '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
  refused(['--authorization-config=/a.yaml', '--authorization-webhook-cache-authorized-ttl=1m'], '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
  refused(['--authorization-mode='], 'at least one authorization-mode must be passed');
  refused(['--authorization-mode=ABAC'], 'authorization-mode "ABAC" is not a valid mode');
  refused(['--authorization-mode=Webhook'], "authorization-mode Webhook's authorization config file not passed");
  refused(['--authorization-webhook-config-file=/k'], 'cannot specify --authorization-webhook-config-file without mode Webhook');
  refused(['--authorization-policy-file=/p'], 'cannot specify --authorization-policy-file without mode ABAC');
  refused(['--authorization-mode=RBAC,AlwaysAllow,RBAC'], 'authorization-mode ["RBAC" "AlwaysAllow" "RBAC"] has mode specified more than once');
  refused(['--authorization-mode=Webhook', '--authorization-webhook-config-file=/k', '--authorization-webhook-version=v2'], 'unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"');
  refused(['--authorization-mode=Node,Webhook'], '[authorization-mode "Node" is not a valid mode, authorization-mode Webhook\'s authorization config file not passed]');
  assert.equal(parseFlags(['--authorization-config=/a.yaml']).authorization.config, '/a.yaml');
});
