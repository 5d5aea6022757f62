/**
 * Front-proxy authentication (upstream `authentication/request/headerrequest` behind the x509 `Verifier`): a proxy
 * that authenticated the user itself (the aggregation layer of a Kubernetes cluster, an authenticating proxy) names
 * the user in headers. The headers count only on a connection whose client certificate chains to
 * `--requestheader-client-ca-file` and, when `--requestheader-allowed-names` is set, has one of those common names.
 * The authentication filter strips these headers from every request (headers.ts), so nothing after it sees a
 * client's own X-Remote-User.
 */
import type { PeerCertificate } from 'node:tls';
import type { CertificateAnchors } from './anchors.ts';
import { type AuthenticationResult, type Authenticator, type AuthenticatorRequest, NO_CREDENTIALS } from './interface.ts';
import { addAuthenticatedGroup, type UserInfo } from './user.ts';
import { certificateFailure, last, peerCertificate, type PeerSocket } from './x509.ts';

/** Which headers carry what (kube-apiserver's flags; every list may be empty). */
export interface RequestHeaderNames {
  usernameHeaders: readonly string[];
  uidHeaders: readonly string[];
  groupHeaders: readonly string[];
  extraHeaderPrefixes: readonly string[];
}

export interface RequestHeaderConfig extends RequestHeaderNames {
  /** The `--requestheader-client-ca-file` certificates. */
  anchors: CertificateAnchors;
  /** `--requestheader-allowed-names`: common names a proxy certificate may have; empty: any. */
  allowedNames: readonly string[];
}

/** What upstream's filter always strips, whatever is configured: the headers an aggregation layer sends. */
export const STANDARD_REQUEST_HEADERS: RequestHeaderNames = Object.freeze({
  usernameHeaders: ['X-Remote-User'],
  uidHeaders: ['X-Remote-Uid'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
});

export class RequestHeaderAuthenticator implements Authenticator {
  readonly #cfg: RequestHeaderConfig;
  readonly #lower: { username: string[]; uid: string[]; group: string[]; prefixes: string[] };
  /** Whether a connection's certificate may speak for users: null when it may, else why not (per connection). */
  readonly #proxyByConnection = new WeakMap<object, Error | null | undefined>();

  constructor(cfg: RequestHeaderConfig) {
    this.#cfg = cfg;
    // Node gives header names in lower case; Go compares them case-insensitively.
    const lower = (l: readonly string[]) => l.map((h) => h.trim().toLowerCase());
    this.#lower = { username: lower(cfg.usernameHeaders), uid: lower(cfg.uidHeaders), group: lower(cfg.groupHeaders), prefixes: lower(cfg.extraHeaderPrefixes) };
  }

  authenticate(req: AuthenticatorRequest): AuthenticationResult {
    const connection = req.stream?.session ?? req.socket;
    let proxy = this.#proxyByConnection.get(connection);
    if (proxy === undefined) {
      proxy = this.#verifyProxy(req.socket as unknown as PeerSocket);
      this.#proxyByConnection.set(connection, proxy);
    }
    // No certificate at all: not this method. One that is not a proxy's is refused (the union goes on to x509).
    if (proxy === NOT_PRESENTED) return NO_CREDENTIALS;
    if (proxy) return { user: null, error: proxy };
    const user = this.userFromHeaders(req);
    return user ? { user } : NO_CREDENTIALS;
  }

  /** The user the headers name (null without a username), as upstream's requestHeaderAuthRequestHandler reads them. */
  userFromHeaders(req: Pick<AuthenticatorRequest, 'headers' | 'rawHeaders'>): UserInfo | null {
    const h = this.#lower;
    const name = firstValue(req, h.username);
    if (!name) return null;
    const user: UserInfo = { name, groups: allValues(req, h.group) };
    const uid = firstValue(req, h.uid);
    if (uid) user.uid = uid;
    const extra = extraOf(req, h.prefixes);
    if (extra) user.extra = extra;
    return addAuthenticatedGroup(user);
  }

  #verifyProxy(socket: PeerSocket): Error | null {
    const cert = typeof socket.getPeerCertificate === 'function' ? peerCertificate(socket) : null;
    if (!cert) return NOT_PRESENTED;
    if (!socket.authorized) return new Error(certificateFailure(cert, reasonOf(socket)));
    if (!this.#cfg.anchors.anchors(socket)) return new Error(certificateFailure(cert, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'));
    const allowed = this.#cfg.allowedNames;
    if (allowed.length === 0) return null;
    const cn = commonName(cert);
    return allowed.includes(cn) ? null : new Error(`x509: subject with cn=${cn} is not in the allowed list`);
  }
}

/** Marks a connection without a client certificate (distinct from any refusal). */
const NOT_PRESENTED = new Error('no client certificate');

function reasonOf(socket: PeerSocket): string {
  const err = socket.authorizationError;
  return err instanceof Error ? err.message : String(err ?? 'unknown error');
}

function commonName(cert: PeerCertificate): string {
  return last(cert.subject?.CN);
}

/**
 * Each `[name, value]` line of the request in order: from the raw header lines where there are some (a header sent
 * twice is two values, as Go's Header holds it), else from the parsed headers (repeated values joined).
 */
function* headerLines(req: Pick<AuthenticatorRequest, 'headers' | 'rawHeaders'>): Generator<[string, string]> {
  const raw = req.rawHeaders;
  if (raw) {
    for (let i = 0; i + 1 < raw.length; i += 2) yield [raw[i]!.toLowerCase(), raw[i + 1]!];
    return;
  }
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) yield [name, v];
    else yield [name, value];
  }
}

/** Go's Header.Get over the names in order: the first name with a non-empty first value. */
function firstValue(req: Pick<AuthenticatorRequest, 'headers' | 'rawHeaders'>, names: readonly string[]): string {
  for (const name of names) {
    for (const [n, v] of headerLines(req)) {
      if (n !== name) continue;
      if (v.length > 0) return v;
      break; // Get returns the first value only, empty or not
    }
  }
  return '';
}

/** Every non-empty value of every name, names in the configured order. */
function allValues(req: Pick<AuthenticatorRequest, 'headers' | 'rawHeaders'>, names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) for (const [n, v] of headerLines(req)) if (n === name && v.length > 0) out.push(v);
  return out;
}

/**
 * Extra values: for each prefix, every header starting with it (case-insensitively); the rest of the name, lower-cased
 * then percent-decoded, is the key (so keys may hold characters header names cannot, e.g. `/`).
 */
function extraOf(req: Pick<AuthenticatorRequest, 'headers' | 'rawHeaders'>, prefixes: readonly string[]): Record<string, string[]> | undefined {
  let extra: Record<string, string[]> | undefined;
  for (const prefix of prefixes) {
    for (const [n, v] of headerLines(req)) {
      if (!n.startsWith(prefix)) continue;
      const key = pathUnescape(n.slice(prefix.length));
      extra ??= {};
      (extra[key] ??= []).push(v);
    }
  }
  return extra;
}

/** Go's url.PathUnescape; a malformed escape leaves the key as it came (upstream records it anyway). */
export function pathUnescape(s: string): string {
  if (!s.includes('%')) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return s;
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      for (const b of Buffer.from(s[i]!, 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Names of the headers a configuration reads, for stripping: the configured ones and upstream's standard ones. */
export function requestHeaderNamesToStrip(configured: RequestHeaderNames | undefined): { exact: Set<string>; prefixes: string[] } {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const names of configured ? [STANDARD_REQUEST_HEADERS, configured] : [STANDARD_REQUEST_HEADERS]) {
    for (const h of [...names.usernameHeaders, ...names.uidHeaders, ...names.groupHeaders]) exact.add(h.trim().toLowerCase());
    for (const p of names.extraHeaderPrefixes) {
      const lp = p.trim().toLowerCase();
      if (!prefixes.includes(lp)) prefixes.push(lp);
    }
  }
  return { exact, prefixes };
}
