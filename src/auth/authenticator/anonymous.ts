/**
 * Anonymous requests (upstream `authentication/request/anonymous`, placed by kube-apiserver after every other
 * authenticator): a request that carries no credential any authenticator recognises becomes `system:anonymous` in
 * `system:unauthenticated`. A credential that was refused stays refused (401): anonymous is a fallback for the
 * absence of credentials, never for bad ones. What an anonymous user may do is authorization's question.
 */
import { type AuthenticationResult, type Authenticator, type AuthenticatorRequest } from './interface.ts';
import { GROUP_UNAUTHENTICATED, USER_ANONYMOUS } from './user.ts';
import { requestPath } from '../../util/gourl.ts';

export class AnonymousFallback implements Authenticator {
  readonly #inner: Authenticator;
  readonly #paths: ReadonlySet<string> | undefined;

  /**
   * `paths`: AuthenticationConfiguration's `anonymous.conditions` — when given and not empty, anonymous applies
   * only to a request whose path is exactly one of them.
   */
  constructor(inner: Authenticator, paths?: readonly string[]) {
    this.#inner = inner;
    this.#paths = paths && paths.length ? new Set(paths) : undefined;
  }

  authenticate(req: AuthenticatorRequest): AuthenticationResult | Promise<AuthenticationResult> {
    const r = this.#inner.authenticate(req);
    return r instanceof Promise ? r.then((answer) => this.#fallback(answer, req)) : this.#fallback(r, req);
  }

  #fallback(r: AuthenticationResult, req: AuthenticatorRequest): AuthenticationResult {
    if (r.user || r.error) return r;
    if (this.#paths && !this.#paths.has(pathOf(req))) return r;
    return ANONYMOUS;
  }
}

/** One shared answer: authorizers and handlers only read the user. */
export const ANONYMOUS: AuthenticationResult = Object.freeze({ user: Object.freeze({ name: USER_ANONYMOUS, groups: Object.freeze([GROUP_UNAUTHENTICATED]) as unknown as string[] }) });

/** The request target's decoded path (Go's req.URL.Path). */
function pathOf(req: AuthenticatorRequest): string {
  return requestPath(req.url ?? (typeof req.headers[':path'] === 'string' ? (req.headers[':path'] as string) : ''));
}
