/**
 * From a verified token's claims to the user (upstream `plugin/pkg/authenticator/token/oidc` AuthenticateToken after
 * verification): username, groups, uid and extra from claims or CEL, then the required claims, the claim
 * validation expressions and the user validation rules, in upstream's order and with its error texts. The texts
 * go to the log; the client only ever sees 401.
 */
import { CELUserInfo, evaluateClaims, evaluateUser } from '../../../cel/authentication.ts';
import type { CompiledExpression } from '../../../cel/environment.ts';
import type { CompiledJWTAuthenticator } from '../../../config/authentication-validation.ts';
import { CREDENTIAL_ID_KEY, GROUP_AUTHENTICATED, GROUP_UNAUTHENTICATED, type UserInfo } from '../user.ts';

/** Why a token's claims were refused; `message` is upstream's (`oidc: …`). */
export class ClaimsError extends Error {
  override readonly name = 'ClaimsError';
}

export type Claims = Readonly<Record<string, unknown>>;

const USER_ANONYMOUS = 'system:anonymous';

/** Go's JSON kind names in `cannot unmarshal <kind>` errors. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return 'object';
}

const cannotUnmarshal = (v: unknown, goType: string) => `json: cannot unmarshal ${jsonKind(v)} into Go value of type ${goType}`;

/** json.Unmarshal of one claim into a Go string: `null` leaves it empty, as Go does. */
function claimString(claims: Claims, name: string): { value: string; error?: undefined } | { value?: undefined; error: string } {
  if (!Object.hasOwn(claims, name)) return { error: 'claim not present' };
  const v = claims[name];
  if (v === null) return { value: '' };
  return typeof v === 'string' ? { value: v } : { error: cannotUnmarshal(v, 'string') };
}

/** Upstream's mapper: an evaluation error reads `expression '<e>' resulted in error: <why>`. */
function evalClaims(expr: CompiledExpression, claims: Claims): unknown {
  try {
    return evaluateClaims(expr, claims as Record<string, unknown>);
  } catch (e) {
    throw new ClaimsError(`expression '${expr.expression}' resulted in error: ${celMessage(e)}`);
  }
}

/** cel-js's evaluation error without its source excerpt; cel-go spells the missing-key error in lower case. */
function celMessage(e: unknown): string {
  const err = e as { summary?: string; message?: string };
  const text = err.summary ?? String(err.message).split('\n')[0]!;
  return text.startsWith('No such key: ') ? `n${text.slice(1)}` : text;
}

/** Upstream convertCELValueToStringList: `""`, `[]` and `null` mean none; empty strings in a list are dropped. */
function toStringList(v: unknown): string[] {
  if (v === null) return [];
  if (typeof v === 'string') return v === '' ? [] : [v];
  if (Array.isArray(v)) {
    if (!v.every((x) => typeof x === 'string')) throw new Error('expression must return a string or a list of strings');
    return v.filter((x) => x !== '');
  }
  throw new Error('expression must return a string or a list of strings');
}

function wrap<T>(prefix: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new ClaimsError(`${prefix}: ${(e as Error).message}`);
  }
}

function username(a: CompiledJWTAuthenticator, claims: Claims): string {
  if (a.username) {
    const v = wrap('oidc: error evaluating username claim expression', () => evalClaims(a.username!, claims));
    if (typeof v !== 'string') throw new ClaimsError('oidc: error evaluating username claim expression: username claim expression must return a string');
    if (v === '') throw new ClaimsError('oidc: empty username via CEL expression is not allowed');
    return v;
  }
  const claim = a.config.claimMappings.username.claim;
  const r = claimString(claims, claim);
  if (r.error !== undefined) throw new ClaimsError(`oidc: parse username claims ${JSON.stringify(claim)}: ${r.error}`);
  if (claim === 'email' && Object.hasOwn(claims, 'email_verified')) {
    const verified = claims.email_verified;
    if (verified !== null && typeof verified !== 'boolean') throw new ClaimsError(`oidc: parse 'email_verified' claim: ${cannotUnmarshal(verified, 'bool')}`);
    if (verified !== true) throw new ClaimsError('oidc: email not verified');
  }
  return (a.config.claimMappings.username.prefix ?? '') + r.value;
}

function groups(a: CompiledJWTAuthenticator, claims: Claims): string[] {
  const claim = a.config.claimMappings.groups.claim;
  if (claim !== '' && Object.hasOwn(claims, claim)) {
    // A single string is accepted as one group (kubernetes#33290).
    const v = claims[claim];
    let list: string[];
    if (v === null) list = [];
    else if (typeof v === 'string') list = [v];
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string' || x === null)) list = v.map((x) => x ?? '');
    else throw new ClaimsError(`oidc: parse groups claim ${JSON.stringify(claim)}: ${cannotUnmarshal(v, 'string')}`);
    const prefix = a.config.claimMappings.groups.prefix ?? '';
    return list.map((g) => prefix + g);
  }
  if (!a.groups) return [];
  const v = wrap('oidc: error evaluating group claim expression', () => evalClaims(a.groups!, claims));
  return wrap('oidc: error evaluating group claim expression', () => toStringList(v));
}

function uid(a: CompiledJWTAuthenticator, claims: Claims): string {
  const claim = a.config.claimMappings.uid.claim;
  if (claim !== '') {
    const r = claimString(claims, claim);
    if (r.error !== undefined) throw new ClaimsError(`oidc: parse uid claim ${JSON.stringify(claim)}: ${r.error}`);
    return r.value;
  }
  if (!a.uid) return '';
  const v = wrap('oidc: error evaluating uid claim expression', () => evalClaims(a.uid!, claims));
  if (typeof v !== 'string') throw new ClaimsError('oidc: error evaluating uid claim expression: uid claim expression must return a string');
  return v;
}

function extra(a: CompiledJWTAuthenticator, claims: Claims): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  // The token's own ID, so that audit can tell one credential from another (upstream CredentialIDForJTI).
  const jti = claims.jti;
  if (typeof jti === 'string' && jti !== '') out[CREDENTIAL_ID_KEY] = [`JTI=${jti}`];
  // Every expression is evaluated before any result is converted, as upstream's mapper does.
  const values = a.extra.map((m) => evalClaims(m.expression, claims));
  a.extra.forEach((m, i) => {
    const list = wrap(`oidc: error evaluating extra claim expression: ${m.expression.expression}`, () => toStringList(values[i]));
    if (list.length) out[m.key] = list;
  });
  return out;
}

/** Upstream checkValidationRulesEvaluation: the first false rule names its expression and message. */
function checkRules(results: readonly unknown[], rules: readonly { expression: CompiledExpression; message: string }[]): void {
  results.forEach((r, i) => {
    if (typeof r !== 'boolean') throw new Error('validation expression must return a boolean');
    if (!r) throw new Error(`validation expression '${rules[i]!.expression.expression}' failed: ${rules[i]!.message}`);
  });
}

function validateClaims(a: CompiledJWTAuthenticator, claims: Claims): void {
  for (const rule of a.claimValidationRules) {
    if (rule.claim === undefined) continue;
    if (!Object.hasOwn(claims, rule.claim)) throw new ClaimsError(`oidc: required claim ${rule.claim} not present in ID token`);
    const r = claimString(claims, rule.claim);
    if (r.error !== undefined) throw new ClaimsError(`oidc: parse claim ${rule.claim}: ${r.error}`);
    if (r.value !== rule.requiredValue) throw new ClaimsError(`oidc: required claim ${rule.claim} value does not match. Got = ${r.value}, want = ${rule.requiredValue}`);
  }
  const celRules = a.claimValidationRules.flatMap((r) => (r.expression ? [{ expression: r.expression, message: r.message }] : []));
  if (!celRules.length) return;
  const prefix = 'oidc: error evaluating claim validation expression';
  const results = wrap(prefix, () => celRules.map((r) => evalClaims(r.expression, claims)));
  wrap(prefix, () => checkRules(results, celRules));
}

function validateUser(a: CompiledJWTAuthenticator, user: UserInfo): void {
  if (!a.userValidationRules.length) return;
  const value = new CELUserInfo(user.name, user.uid ?? '', user.groups, user.extra ?? {});
  const prefix = 'oidc: error evaluating user info validation rule';
  const results = wrap(prefix, () =>
    a.userValidationRules.map((r) => {
      try {
        return evaluateUser(r.expression, value);
      } catch (e) {
        throw new Error(`expression '${r.expression.expression}' resulted in error: ${celMessage(e)}`);
      }
    }),
  );
  wrap(prefix, () => checkRules(results, a.userValidationRules));
}

/** Upstream's AuthenticatedGroupAdder: every authenticated user is in `system:authenticated`. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === USER_ANONYMOUS || user.groups.includes(GROUP_AUTHENTICATED) || user.groups.includes(GROUP_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, GROUP_AUTHENTICATED] };
}

/**
 * The user a verified token stands for under authenticator `a`, or a ClaimsError with upstream's text. The
 * validation rules see the user before `system:authenticated` is added, as upstream's do (its adder runs after
 * the authenticators).
 */
export function mapClaims(a: CompiledJWTAuthenticator, claims: Claims): UserInfo {
  const user: UserInfo = { name: username(a, claims), groups: groups(a, claims) };
  const id = uid(a, claims);
  if (id !== '') user.uid = id;
  const ex = extra(a, claims);
  if (Object.keys(ex).length) user.extra = ex;
  validateClaims(a, claims);
  validateUser(a, user);
  return withAuthenticatedGroup(user);
}
