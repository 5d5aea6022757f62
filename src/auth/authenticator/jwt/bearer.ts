/**
 * `Authorization: Bearer <token>` in front of a token authenticator (upstream `request/bearertoken`): the scheme
 * is case-insensitive; a header with an empty token (`Bearer  x`, two spaces) is no credential; a token nobody
 * recognises is refused with `invalid bearer token`, so anonymous does not apply to it. The header is removed
 * once the token is accepted, so nothing later in the server can reuse it.
 */
import type { AuthenticationResult, Authenticator, AuthenticatorRequest } from '../interface.ts';
import { NO_CREDENTIALS } from '../interface.ts';
import type { TokenAuthenticator } from './token-cache.ts';

export const INVALID_BEARER_TOKEN = 'invalid bearer token';
export const EXTRA_SPACE_WARNING = 'the provided Authorization header contains extra space before the bearer token, and is ignored';

/** The bearer token of a request, '' for a header with an empty token (upstream warns then), or undefined. */
export function bearerToken(headers: AuthenticatorRequest['headers']): string | undefined {
  const auth = (headers.authorization ?? '').trim();
  if (auth === '') return undefined;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1]!;
}

export class BearerTokenAuthenticator implements Authenticator {
  constructor(
    private readonly tokens: TokenAuthenticator,
    /** Told when a header carries an extra space (upstream adds a response warning). */
    private readonly onExtraSpace?: (req: AuthenticatorRequest) => void,
  ) {}

  authenticate(req: AuthenticatorRequest): AuthenticationResult | Promise<AuthenticationResult> {
    const token = bearerToken(req.headers);
    if (token === undefined) return NO_CREDENTIALS;
    if (token === '') {
      if ((req.headers.authorization ?? '').trim().split(' ').length > 2) this.onExtraSpace?.(req);
      return NO_CREDENTIALS;
    }
    return this.tokens.authenticateToken(token).then((r) => {
      if (r.user) {
        delete (req.headers as Record<string, unknown>).authorization;
        return r;
      }
      return r.error ? r : { user: null, error: new Error(INVALID_BEARER_TOKEN) };
    });
  }
}
