/**
 * The authenticator contract (upstream `authentication/authenticator` Request): given a request, say who sent it,
 * that it carries no credential of this kind, or that the one it carries is not valid.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { UserInfo } from './user.ts';

/**
 * What an authenticator may look at. Node's HTTP/1.1 requests and HTTP/2 compat requests fit as they are; the
 * HTTP/2 early refusal builds one from a raw stream.
 */
export interface AuthenticatorRequest {
  readonly headers: IncomingHttpHeaders;
  /** The TLS socket (for an HTTP/2 compat request, node's per-request proxy of its session's socket). */
  readonly socket: Socket;
  /** HTTP/2: the stream, whose session stands for the connection its requests share. */
  readonly stream?: { readonly session?: object | undefined } | undefined;
}

/**
 * Upstream's (response, ok, err): a user, or none with the reason credentials of this kind were refused (`error`,
 * which ends in 401) or `error: null` when the request carries none (the next authenticator may know it).
 */
export type AuthenticationResult =
  | { readonly user: UserInfo; readonly error?: undefined }
  | { readonly user: null; readonly error: Error | null };

/** The answer for a request without credentials of an authenticator's kind; shared, as it carries nothing. */
export const NO_CREDENTIALS: AuthenticationResult = Object.freeze({ user: null, error: null });

export interface Authenticator {
  /**
   * Authenticates `req`. An authenticator that needs no I/O for the answer (a cached one, a certificate already
   * verified by TLS) returns it directly rather than as a promise: the filter chain then spends no promise hop on
   * it, which every request would pay. Callers accept both.
   */
  authenticate(req: AuthenticatorRequest): AuthenticationResult | Promise<AuthenticationResult>;
}
