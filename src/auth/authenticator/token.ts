/**
 * Bearer tokens (upstream `authentication/request/bearertoken` over an `authenticator.Token` union): the request
 * authenticator parses `Authorization: Bearer <token>` and asks the token authenticators in order.
 *
 * The token union is where every token-based method joins: kube-apiserver's order is the token file, service
 * accounts, bootstrap tokens, then JWT issuers (`--authentication-config`), then the token webhook. `TokenUnion.set`
 * swaps the list atomically (requests in flight finish with the list they started with), so a reloaded
 * AuthenticationConfiguration's JWT authenticators can replace the previous ones without rebuilding the chain:
 * `tokens.set([tokenFile, ...jwtAuthenticators])`. A token authenticator that needs I/O (JWKS, a webhook) returns
 * a promise; one that answers from memory (the token file) returns its answer directly.
 */
import { type AuthenticationResult, type Authenticator, type AuthenticatorRequest, NO_CREDENTIALS, addAuthenticationWarning } from './interface.ts';
import { type Answer, firstUser } from './union.ts';

export interface TokenAuthenticator {
  /** The user `token` names; NO_CREDENTIALS when this authenticator does not know it; an error when it refuses it. */
  authenticateToken(token: string): Answer;
}

export class TokenUnion implements TokenAuthenticator {
  #authenticators: readonly TokenAuthenticator[];

  constructor(authenticators: readonly TokenAuthenticator[] = []) {
    this.#authenticators = [...authenticators];
  }

  /** Replaces the authenticators (the reload hook, see above). */
  set(authenticators: readonly TokenAuthenticator[]): void {
    this.#authenticators = [...authenticators];
  }

  get size(): number {
    return this.#authenticators.length;
  }

  authenticateToken(token: string): Answer {
    const list = this.#authenticators;
    return firstUser(list.length, (i) => list[i]!.authenticateToken(token));
  }
}

/** Upstream's texts. */
export const INVALID_BEARER_TOKEN = 'invalid bearer token';
export const EXTRA_SPACE_WARNING = 'the provided Authorization header contains extra space before the bearer token, and is ignored';

const invalidToken = (): AuthenticationResult => ({ user: null, error: new Error(INVALID_BEARER_TOKEN) });

export class BearerTokenAuthenticator implements Authenticator {
  readonly #tokens: TokenUnion;
  readonly #ask: TokenAuthenticator;

  /**
   * While `tokens` is empty, bearer tokens are not a credential at all (upstream builds no bearer authenticator).
   * `cached` is the union behind upstream's token cache (token-cache.ts), asked instead of `tokens` when given.
   */
  constructor(tokens: TokenUnion, cached?: TokenAuthenticator) {
    this.#tokens = tokens;
    this.#ask = cached ?? tokens;
  }

  /**
   * `Authorization: Bearer <token>`, the scheme in any case. A header of another scheme is not this method's; an
   * empty token neither (with two spaces before the token, the client is warned that it was ignored). A token no
   * authenticator knows is refused with `invalid bearer token` (401). The filter removes the header once the request
   * is authenticated, so that nothing after it can reuse the credential.
   */
  authenticate(req: AuthenticatorRequest): Answer {
    const header = req.headers.authorization;
    if (!header || this.#tokens.size === 0) return NO_CREDENTIALS;
    const auth = header.trim();
    if (auth === '') return NO_CREDENTIALS;
    // Go's strings.SplitN(auth, " ", 3)
    const first = auth.indexOf(' ');
    if (first < 0 || auth.slice(0, first).toLowerCase() !== 'bearer') return NO_CREDENTIALS;
    const rest = auth.slice(first + 1);
    const second = rest.indexOf(' ');
    const token = second < 0 ? rest : rest.slice(0, second);
    if (token === '') {
      if (second >= 0) addAuthenticationWarning(req, EXTRA_SPACE_WARNING);
      return NO_CREDENTIALS;
    }
    const r = this.#ask.authenticateToken(token);
    return r instanceof Promise ? r.then(orInvalid) : orInvalid(r);
  }
}

/** A token no authenticator named a user for, and none refused with a reason of its own, is an invalid one. */
function orInvalid(r: AuthenticationResult): AuthenticationResult {
  return r.user || r.error ? r : invalidToken();
}
