/**
 * kube-apiserver's authorization flags (`pkg/kubeapiserver/options/authorization.go`): `--authorization-mode`, the
 * legacy `--authorization-webhook-*` flags, `--authorization-policy-file` and `--authorization-config`, with upstream's
 * help texts and checks. One difference, decided by issue 12: without `--authorization-config` or a mode the chain
 * is `RBAC` (upstream: AlwaysAllow), so a fresh server stays closed to everyone but system:masters.
 */
import { readGoCSV } from '../util/gocsv.ts';
import { goQuote } from '../util/goquote.ts';
import type { Flag, FlagSet } from './flagset.ts';

/** The modes this server builds (upstream also has ABAC and Node, which need sources this server does not have). */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Webhook'] as const;
export const DEFAULT_AUTHORIZATION_MODES = ['RBAC'];
const WEBHOOK_VERSIONS = ['v1', 'v1beta1'];

export interface AuthorizationOptions {
  /** `--authorization-mode`, in order (the default `[RBAC]` unless given). */
  modes: string[];
  policyFile: string;
  webhookConfigFile: string;
  webhookVersion: string;
  webhookCacheAuthorizedTTLMs: number;
  webhookCacheUnauthorizedTTLMs: number;
  /** `--authorization-config`: '' for none. */
  config: string;
}

export type AuthorizationFlags = ReturnType<typeof declareAuthorizationFlags>;

export function declareAuthorizationFlags(fs: FlagSet) {
  const section = { section: 'Authorization' };
  let given = false;
  return {
    mode: fs.add<string[]>({
      name: 'authorization-mode',
      type: 'strings',
      default: DEFAULT_AUTHORIZATION_MODES,
      ...section,
      help: `Ordered list of plug-ins to do authorization on secure port. Defaults to RBAC if --authorization-config is not used. Comma-delimited list of: ${AUTHORIZATION_MODES.join(',')}.`,
      // pflag's StringSlice: one CSV record; the first use replaces the default, a repeated one appends.
      parse: (text, current) => {
        const values = text === '' ? [] : (readGoCSV(text)[0] ?? []);
        const out = given ? [...current, ...values] : values;
        given = true;
        return out;
      },
      format: (v) => `[${v.join(',')}]`,
    }),
    policyFile: fs.string('authorization-policy-file', '', 'File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.', section),
    webhookConfigFile: fs.string('authorization-webhook-config-file', '', "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server's secure port.", section),
    webhookVersion: fs.string('authorization-webhook-version', 'v1beta1', 'The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook.', section),
    webhookAuthorizedTTL: fs.duration('authorization-webhook-cache-authorized-ttl', 5 * 60_000, "The duration to cache 'authorized' responses from the webhook authorizer.", section),
    webhookUnauthorizedTTL: fs.duration('authorization-webhook-cache-unauthorized-ttl', 30_000, "The duration to cache 'unauthorized' responses from the webhook authorizer.", section),
    config: fs.string('authorization-config', '', 'File with Authorization Configuration to configure the authorizer chain. This flag is mutually exclusive with the other --authorization-mode and --authorization-webhook-* flags.', section),
  };
}

export function authorizationOptions(f: AuthorizationFlags): AuthorizationOptions {
  return {
    modes: [...f.mode.value],
    policyFile: f.policyFile.value,
    webhookConfigFile: f.webhookConfigFile.value,
    webhookVersion: f.webhookVersion.value,
    webhookCacheAuthorizedTTLMs: f.webhookAuthorizedTTL.value,
    webhookCacheUnauthorizedTTLMs: f.webhookUnauthorizedTTL.value,
    config: f.config.value,
  };
}

/** BuiltInAuthorizationOptions.Validate, with upstream's texts. */
export function validateAuthorizationFlags(f: AuthorizationFlags): string[] {
  if (f.config.value !== '') {
    const legacy: Flag<unknown>[] = [f.mode, f.webhookConfigFile, f.webhookVersion, f.webhookAuthorizedTTL, f.webhookUnauthorizedTTL];
    if (legacy.some((x) => x.changed)) return ['--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined'];
    // The file itself is loaded (and its errors reported) when the server builds the chain.
    return [];
  }
  const errs: string[] = [];
  const modes = f.mode.value;
  if (modes.length === 0) errs.push('at least one authorization-mode must be passed');
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) errs.push(`authorization-mode ${goQuote(mode)} is not a valid mode`);
    if (mode === 'Webhook' && f.webhookConfigFile.value === '') errs.push("authorization-mode Webhook's authorization config file not passed");
  }
  // ABAC is not a mode here, so a policy file never has a use.
  if (f.policyFile.value !== '') errs.push('cannot specify --authorization-policy-file without mode ABAC');
  if (f.webhookConfigFile.value !== '' && !modes.includes('Webhook')) errs.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (new Set(modes).size !== modes.length) errs.push(`authorization-mode [${modes.map(goQuote).join(' ')}] has mode specified more than once`);
  if (modes.includes('Webhook') && !WEBHOOK_VERSIONS.includes(f.webhookVersion.value)) {
    errs.push(`unsupported webhook authorizer version ${goQuote(f.webhookVersion.value)}, supported versions are "v1", "v1beta1"`);
  }
  return errs;
}
