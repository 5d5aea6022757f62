/**
 * Bearer tokens checked by someone else (upstream `plugin/pkg/authenticator/token/webhook`, which kubelet's
 * `--authentication-token-webhook` points at the API server): an `authentication.k8s.io/v1` TokenReview with the
 * token is POSTed, retried as webhooks are (client.ts), and its status names the user. A review that says
 * `authenticated: false` is a refusal with the review's `error` as the reason (none: the token is simply unknown);
 * a call that fails is a refusal with the call's error, so the request is answered 401, never let in anonymously.
 */
import { type AttemptObserver, type Backoff, WebhookClient } from '../authorizer/webhook/client.ts';
import type { WebhookConnection } from '../authorizer/webhook/kubeconfig.ts';
import { type AuthenticationResult, NO_CREDENTIALS } from './interface.ts';
import type { TokenAuthenticator } from './token.ts';
import { addAuthenticatedGroup, type UserInfo } from './user.ts';

export const TOKEN_REVIEW_API_VERSION = 'authentication.k8s.io/v1';

interface TokenReviewStatus {
  authenticated: boolean;
  user: UserInfo | undefined;
  error: string;
}

/** Reads an answer's status; throws when it is not a TokenReview the decoder would accept. */
export function parseTokenReviewStatus(answer: unknown): TokenReviewStatus {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw new Error('malformed TokenReview answer: not a JSON object');
  const o = answer as Record<string, unknown>;
  if (o.kind !== undefined && o.kind !== 'TokenReview') throw new Error(`malformed TokenReview answer: kind ${JSON.stringify(o.kind)}, expected TokenReview`);
  const s = (o.status ?? {}) as Record<string, unknown>;
  if (typeof s !== 'object' || Array.isArray(s)) throw new Error('malformed TokenReview answer: status is not an object');
  const u = (s.user ?? {}) as Record<string, unknown>;
  const strings = (v: unknown, what: string): string[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new Error(`malformed TokenReview answer: ${what} is not a list of strings`);
    return [...(v as string[])];
  };
  let user: UserInfo | undefined;
  if (typeof u.username === 'string' && u.username !== '') {
    user = { name: u.username, groups: strings(u.groups, 'status.user.groups') };
    if (typeof u.uid === 'string' && u.uid) user.uid = u.uid;
    if (u.extra && typeof u.extra === 'object') {
      const extra = Object.fromEntries(Object.entries(u.extra as Record<string, unknown>).map(([k, v]) => [k, strings(v, `status.user.extra[${k}]`)]));
      if (Object.keys(extra).length) user.extra = extra;
    }
  }
  return { authenticated: s.authenticated === true, user, error: typeof s.error === 'string' ? s.error : '' };
}

export class WebhookTokenAuthenticator implements TokenAuthenticator {
  readonly #client: WebhookClient;
  readonly #log: ((msg: string) => void) | undefined;
  readonly #observe: AttemptObserver;

  constructor(o: { connection: WebhookConnection; timeoutMs?: number; backoff?: Backoff; log?: (msg: string) => void; observe?: AttemptObserver; userAgent?: string }) {
    this.#client = new WebhookClient(o.connection, o.timeoutMs ?? 30_000, o.backoff, o.userAgent);
    this.#log = o.log;
    this.#observe = o.observe ?? (() => {});
  }

  async authenticateToken(token: string): Promise<AuthenticationResult> {
    const body = JSON.stringify({ apiVersion: TOKEN_REVIEW_API_VERSION, kind: 'TokenReview', metadata: { creationTimestamp: null }, spec: { token }, status: { user: {} } });
    let status: TokenReviewStatus;
    try {
      status = await this.#client.post(body, parseTokenReviewStatus, this.#observe);
    } catch (e) {
      // An outage or a bad configuration: logged, and the token is not taken.
      this.#log?.(`Failed to make webhook authenticator request: ${(e as Error).message}`);
      return { user: null, error: e as Error };
    }
    if (!status.authenticated || !status.user) return status.error ? { user: null, error: new Error(status.error) } : NO_CREDENTIALS;
    // The delegating authenticator's group adder: every user it authenticates is in system:authenticated.
    return { user: addAuthenticatedGroup(status.user) };
  }

  close(): void {
    this.#client.close();
  }
}
