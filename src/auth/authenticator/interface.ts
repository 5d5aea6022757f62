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
  /**
   * Node's header lines as sent (name, value, name, value…): where a header given several times must be read value
   * by value (front-proxy groups). Absent for the HTTP/2 early refusal, which reads `headers` (repeated values
   * joined by `, `) only to learn whether there is a user at all.
   */
  readonly rawHeaders?: readonly string[];
  /** The request target (path and query); the HTTP/2 early refusal has it as the `:path` header. */
  readonly url?: string | undefined;
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

/**
 * Warnings an authenticator has for the client (upstream's warning.AddWarning on the request context), sent as
 * `Warning` headers with whatever the request is answered, a 401 included. Keyed by the request object, so that
 * authenticators stay free of response plumbing; the authentication filter collects them.
 */
const pendingWarnings = new WeakMap<object, string[]>();

export function addAuthenticationWarning(req: AuthenticatorRequest, text: string): void {
  const list = pendingWarnings.get(req);
  if (list) {
    if (!list.includes(text)) list.push(text);
  } else pendingWarnings.set(req, [text]);
}

/** The warnings added for `req`, removed from the pending set. */
export function takeAuthenticationWarnings(req: AuthenticatorRequest): string[] | undefined {
  const list = pendingWarnings.get(req);
  if (list) pendingWarnings.delete(req);
  return list;
}
