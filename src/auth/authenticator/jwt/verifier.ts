/**
 * ID token verification as upstream does it (go-oidc v2 `IDTokenVerifier.Verify` plus apiserver's audience check
 * for several audiences), in the same order and with the same texts: the cheap checks on the still unverified
 * claims first (issuer, a single audience, expiry, not-before), then the signature header (exactly one signature,
 * an algorithm on the allow-list), then the signature against the issuer's keys, then several audiences.
 *
 * The allow-list has only asymmetric algorithms: `none` and HMAC never verify, so a token "signed" with the
 * issuer's public key as an HMAC secret is refused before any key is touched.
 */
import { decodeProtectedHeader } from 'jose';
import type { RemoteKeySet } from './remote-key-set.ts';

/** All algorithms allowed with an AuthenticationConfiguration (upstream AllValidSigningAlgorithms, sorted). */
export const ALLOWED_SIGNING_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'] as const;

/** go-oidc v2's tolerance for a token whose nbf is a little in the future. */
export const NOT_BEFORE_LEEWAY_MS = 60_000;

const GOOGLE = 'https://accounts.google.com';
const GOOGLE_NO_SCHEME = 'accounts.google.com';

export interface VerifierConfig {
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly algorithms?: readonly string[];
  readonly now?: () => number;
}

/** Go's %q of a string slice: `["a" "b"]`. */
const goQuoteList = (l: readonly string[]) => `[${l.map((s) => JSON.stringify(s)).join(' ')}]`;

/** Go's time.Time %v for a UTC instant: `2026-01-02 15:04:05 +0000 UTC` (fraction only when non-zero). */
export function goTime(ms: number): string {
  const d = new Date(ms);
  const iso = d.toISOString();
  const frac = ms % 1000 === 0 ? '' : `.${iso.slice(20, 23).replace(/0+$/, '')}`;
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac} +0000 UTC`;
}

/** go-oidc's audience claim: a string or a list of strings. */
function audienceOf(aud: unknown): string[] {
  if (aud === undefined || aud === null) return [];
  if (typeof aud === 'string') return [aud];
  if (Array.isArray(aud) && aud.every((a) => typeof a === 'string')) return aud;
  throw new Error(`oidc: failed to unmarshal claims: json: cannot unmarshal ${Array.isArray(aud) ? 'array' : typeof aud} into Go struct field idToken.aud of type oidc.audience`);
}

/** go-oidc's jsonTime: a number of seconds; a fraction is dropped (it takes the integer part). */
function timeOf(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') throw new Error(`oidc: failed to unmarshal claims: json: cannot unmarshal ${typeof v} into Go struct field idToken.${field} of type oidc.jsonTime`);
  return Math.trunc(v) * 1000;
}

function decodeSegment(part: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) throw new Error('illegal base64 data');
  return Buffer.from(part, 'base64url').toString('utf8');
}

export interface VerifiedToken {
  /** The verified claims, as JSON-decoded. */
  readonly claims: Record<string, unknown>;
}

export class IDTokenVerifier {
  readonly #algorithms: readonly string[];
  readonly #now: () => number;

  constructor(
    private readonly config: VerifierConfig,
    private readonly keys: RemoteKeySet,
  ) {
    this.#algorithms = config.algorithms ?? ALLOWED_SIGNING_ALGORITHMS;
    this.#now = config.now ?? Date.now;
  }

  /** The token's claims once every check passed; otherwise an Error with go-oidc's text (not yet `oidc: verify token:`). */
  async verify(token: string): Promise<VerifiedToken> {
    const parts = token.split('.');
    if (parts.length !== 3) throw new Error(`oidc: malformed jwt: square/go-jose: compact JWS format must have three parts`);
    let header: { alg?: unknown; kid?: unknown };
    try {
      header = decodeProtectedHeader(token) as { alg?: unknown; kid?: unknown };
    } catch (e) {
      throw new Error(`oidc: malformed jwt: ${(e as Error).message}`);
    }
    let claims: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(decodeSegment(parts[1]!));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('payload is not a JSON object');
      claims = parsed as Record<string, unknown>;
    } catch (e) {
      throw new Error(`oidc: malformed jwt: malformed jwt payload: ${(e as Error).message}`);
    }

    const iss = typeof claims.iss === 'string' ? claims.iss : '';
    if (iss !== this.config.issuer && !(this.config.issuer === GOOGLE && iss === GOOGLE_NO_SCHEME)) {
      throw new Error(`oidc: id token issued by a different provider, expected ${JSON.stringify(this.config.issuer)} got ${JSON.stringify(iss)}`);
    }
    const aud = audienceOf(claims.aud);
    const single = this.config.audiences.length === 1 ? this.config.audiences[0]! : undefined;
    if (single !== undefined && !aud.includes(single)) throw new Error(`oidc: expected audience ${JSON.stringify(single)} got ${goQuoteList(aud)}`);

    const now = this.#now();
    // A token without exp is expired (Go's zero time), as go-oidc treats it.
    const exp = timeOf(claims.exp, 'exp') ?? -62135596800000;
    if (exp < now) throw new Error(`oidc: token is expired (Token Expiry: ${goTime(exp)})`);
    const nbf = timeOf(claims.nbf, 'nbf');
    if (nbf !== undefined && now + NOT_BEFORE_LEEWAY_MS < nbf) {
      throw new Error(`oidc: current time ${goTime(now)} before the nbf (not before) time: ${goTime(nbf)}`);
    }

    // A compact JWS always carries exactly one signature (possibly empty, as with `alg: none`), so go-oidc's
    // "not signed" and "multiple signatures" cases cannot arise here.
    const alg = typeof header.alg === 'string' ? header.alg : '';
    if (!this.#algorithms.includes(alg)) {
      throw new Error(`oidc: id token signed with unsupported algorithm, expected ${goQuoteList(this.#algorithms)} got ${JSON.stringify(alg)}`);
    }
    try {
      await this.keys.verify(token, alg, typeof header.kid === 'string' ? header.kid : '');
    } catch (e) {
      throw new Error(`failed to verify signature: ${(e as Error).message}`);
    }

    if (single === undefined && !aud.some((a) => this.config.audiences.includes(a))) {
      throw new Error(`oidc: expected audience in ${goQuoteList([...this.config.audiences].sort())} got ${goQuoteList(aud)}`);
    }
    return { claims };
  }
}
