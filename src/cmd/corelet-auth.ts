/**
 * The corelet's authenticator and authorizer from its flags (kubelet's `cmd/kubelet/app/auth.go` BuildAuth over
 * apiserver's delegating authenticator and authorizer):
 *
 * - client certificates verified against `--client-ca-file` (CN the user, each O a group);
 * - with `--authentication-token-webhook`, bearer tokens checked by a TokenReview sent to the API server of
 *   `--kubeconfig`, answers (both kinds) kept for `--authentication-token-webhook-cache-ttl`;
 * - with `--anonymous-auth`, a request without credentials is system:anonymous (a refused credential stays a 401);
 * - `--authorization-mode=AlwaysAllow` lets every authenticated request in; `Webhook` asks the API server with a
 *   SubjectAccessReview, answers kept for the authorized / unauthorized TTLs.
 *
 * The API server connection is read from the kubeconfig at the first request that needs it, so a kubeconfig written
 * after the start (TLS bootstrap) is the one used.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AnonymousFallback } from '../auth/authenticator/anonymous.ts';
import type { Authenticator } from '../auth/authenticator/interface.ts';
import { CachedTokenAuthenticator } from '../auth/authenticator/token-cache.ts';
import { BearerTokenAuthenticator, TokenUnion, type TokenAuthenticator } from '../auth/authenticator/token.ts';
import { UnionAuthenticator } from '../auth/authenticator/union.ts';
import { WebhookTokenAuthenticator } from '../auth/authenticator/webhook-token.ts';
import { X509Authenticator } from '../auth/authenticator/x509.ts';
import { alwaysAllow } from '../auth/authorizer/always.ts';
import type { Attributes, Authorizer } from '../auth/authorizer/interface.ts';
import { loadWebhookConnection, type WebhookConnection } from '../auth/authorizer/webhook/kubeconfig.ts';
import { WebhookAuthorizer } from '../auth/authorizer/webhook/webhook.ts';
import type { CoreletAuth } from '../corelet/auth.ts';
import { versionInfo } from '../version.ts';
import { FlagError } from './flagset.ts';

/** kubelet's User-Agent form, as the corelet's other API server calls send it. */
const USER_AGENT = `corelet/${versionInfo.gitVersion} (${versionInfo.platform}) kubernetes/${versionInfo.gitCommit.slice(0, 7)}`;

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'Webhook'] as const;

export interface CoreletAuthOptions {
  anonymousAuth: boolean;
  clientCAFile: string;
  tokenWebhook: boolean;
  tokenWebhookCacheTTLMs: number;
  authorizationMode: string;
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
}

/** kubelet's checks of the flags (the texts of its BuildAuthn / BuildAuthz); throws FlagError naming the flag. */
export function checkCoreletAuthFlags(o: CoreletAuthOptions, kubeconfig: string): void {
  if (!(AUTHORIZATION_MODES as readonly string[]).includes(o.authorizationMode)) {
    throw new FlagError(`--authorization-mode: ${o.authorizationMode === '' ? 'No authorization mode specified' : `Unknown authorization mode ${o.authorizationMode}`} (valid: ${AUTHORIZATION_MODES.join(', ')})`);
  }
  if (o.tokenWebhook && !kubeconfig) throw new FlagError('--authentication-token-webhook: no client provided, cannot use webhook authentication (it needs --kubeconfig)');
  if (o.authorizationMode === 'Webhook' && !kubeconfig) throw new FlagError('--authorization-mode=Webhook: no client provided, cannot use webhook authorization (it needs --kubeconfig)');
  for (const [flag, ms] of [['authentication-token-webhook-cache-ttl', o.tokenWebhookCacheTTLMs], ['authorization-webhook-cache-authorized-ttl', o.authorizedTTLMs], ['authorization-webhook-cache-unauthorized-ttl', o.unauthorizedTTLMs]] as const) {
    if (ms < 0) throw new FlagError(`--${flag}: must not be negative`);
  }
}

/** The PEM of `--client-ca-file`, checked to hold at least one certificate. */
export function loadClientCA(file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    throw new FlagError(`--client-ca-file: unable to load client CA file ${file}: open ${file}: ${reason}`);
  }
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  try {
    if (!blocks.length) throw new Error('data does not contain any valid RSA or ECDSA certificates');
    for (const b of blocks) new X509Certificate(b);
  } catch (e) {
    throw new FlagError(`--client-ca-file: unable to load client CA file ${file}: ${(e as Error).message}`);
  }
  return pem;
}

/** The kubeconfig's API server with an API path appended (client-go keeps the server URL's own path as a prefix). */
function apiConnection(kubeconfig: string, apiPath: string): WebhookConnection {
  const c = loadWebhookConnection(kubeconfig);
  return { ...c, url: new URL(`${c.url.pathname.replace(/\/+$/, '')}${apiPath}`, c.url) };
}

/** A webhook authorizer built at its first use (see the file comment). */
class LazyAuthorizer implements Authorizer {
  #inner: WebhookAuthorizer | undefined;
  constructor(private readonly build: () => WebhookAuthorizer) {}
  authorize(a: Attributes) {
    this.#inner ??= this.build();
    return this.#inner.authorize(a);
  }
}

class LazyTokenAuthenticator implements TokenAuthenticator {
  #inner: WebhookTokenAuthenticator | undefined;
  constructor(private readonly build: () => WebhookTokenAuthenticator) {}
  authenticateToken(token: string) {
    this.#inner ??= this.build();
    return this.#inner.authenticateToken(token);
  }
}

export function buildCoreletAuth(o: CoreletAuthOptions, kubeconfig: string, log: (level: number, msg: string) => void): CoreletAuth & { clientCA?: string } {
  const authenticators: Authenticator[] = [];
  const clientCA = o.clientCAFile ? loadClientCA(o.clientCAFile) : undefined;
  if (clientCA) authenticators.push(new X509Authenticator());
  if (o.tokenWebhook) {
    const tokens = new TokenUnion([
      new LazyTokenAuthenticator(() => new WebhookTokenAuthenticator({ connection: apiConnection(kubeconfig, '/apis/authentication.k8s.io/v1/tokenreviews'), log: (m) => log(0, m), userAgent: USER_AGENT })),
    ]);
    const ttl = o.tokenWebhookCacheTTLMs;
    authenticators.push(new BearerTokenAuthenticator(tokens, new CachedTokenAuthenticator(tokens, { successTTLMs: ttl, failureTTLMs: ttl })));
  }
  const union = new UnionAuthenticator(authenticators);
  const authenticator = o.anonymousAuth ? new AnonymousFallback(union) : union;
  const authorizer =
    o.authorizationMode === 'Webhook'
      ? new LazyAuthorizer(
          () =>
            new WebhookAuthorizer({
              name: 'webhook',
              connection: apiConnection(kubeconfig, '/apis/authorization.k8s.io/v1/subjectaccessreviews'),
              subjectAccessReviewVersion: 'v1',
              timeoutMs: 30_000,
              authorizedTTLMs: o.authorizedTTLMs,
              unauthorizedTTLMs: o.unauthorizedTTLMs,
              failurePolicy: 'NoOpinion',
              matchConditions: [],
              log: (m, err) => log(0, `${m}: ${err.message}`),
              userAgent: USER_AGENT,
            }),
        )
      : alwaysAllow;
  return { authenticator, authorizer, ...(clientCA ? { clientCA } : {}) };
}
