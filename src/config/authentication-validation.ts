/**
 * Validation of an AuthenticationConfiguration with upstream's rules, field paths and texts
 * (`apiserver/pkg/apis/apiserver/validation/validation.go`), compiling every CEL expression on the way: what
 * compiles here is what the JWT authenticator runs, so a configuration that loads cannot fail to compile later.
 *
 * Deviations, all in favour of the operator: the StructuredAuthenticationConfigurationEgressSelector gate is taken
 * as on (its default since 1.34); extra keys under `cluster.io` (our renamed `kubernetes.io`) are reserved as well
 * as upstream's `k8s.io` and `kubernetes.io`; CEL compile messages are @marcbachmann/cel-js's in cel-go's frame.
 */
import { X509Certificate } from 'node:crypto';
import { duplicate, type FieldError, invalid, required, tooMany } from '../apimachinery/field.ts';
import { isDNS1123Subdomain, regexError } from '../apimachinery/validation/content.ts';
import { compileClaimsExpression, compileUserExpression, type CompileResult, type ExpressionType, usesClaim } from '../cel/authentication.ts';
import type { CompiledExpression } from '../cel/environment.ts';
import { parseGoURL } from '../util/gourl.ts';
import { AUDIENCE_MATCH_ANY, type AuthenticationConfiguration, type ClaimMappings, type ClaimValidationRule, type Issuer, type JWTAuthenticator, type PrefixedClaimOrExpression, type UserValidationRule } from './authentication-types.ts';

export interface ValidationOptions {
  /** Issuers a JWT authenticator may not claim (upstream: the service-account issuers). */
  disallowedIssuers?: readonly string[];
}

export const MAX_JWT_AUTHENTICATORS = 64;

/** A claim validation rule ready to run: either a required claim or a compiled expression. */
export type CompiledClaimValidationRule =
  | { readonly claim: string; readonly requiredValue: string; readonly expression?: undefined }
  | { readonly expression: CompiledExpression; readonly message: string; readonly claim?: undefined };

export interface CompiledUserValidationRule {
  readonly expression: CompiledExpression;
  readonly message: string;
}

/** One JWT authenticator with its expressions compiled (upstream's CELMapper next to the API type). */
export interface CompiledJWTAuthenticator {
  readonly config: JWTAuthenticator;
  readonly username?: CompiledExpression;
  readonly groups?: CompiledExpression;
  readonly uid?: CompiledExpression;
  readonly extra: readonly { readonly key: string; readonly expression: CompiledExpression }[];
  readonly claimValidationRules: readonly CompiledClaimValidationRule[];
  readonly userValidationRules: readonly CompiledUserValidationRule[];
}

export interface CompiledAuthenticationConfiguration {
  readonly config: AuthenticationConfiguration;
  readonly jwt: readonly CompiledJWTAuthenticator[];
  /** Empty when the configuration is valid. */
  readonly errors: readonly FieldError[];
}

/** Upstream's ValidateAuthenticationConfiguration, with the compiled authenticators kept. */
export function compileAndValidateAuthenticationConfiguration(c: AuthenticationConfiguration, opts: ValidationOptions = {}): CompiledAuthenticationConfiguration {
  const errs: FieldError[] = [];
  // Zero authenticators are allowed: the file may start empty and gain issuers on reload.
  if (c.jwt.length > MAX_JWT_AUTHENTICATORS) {
    return { config: c, jwt: [], errors: [tooMany('jwt', c.jwt.length, MAX_JWT_AUTHENTICATORS)] };
  }
  const disallowed = new Set(opts.disallowedIssuers ?? []);
  const seenIssuers = new Set<string>();
  const seenDiscoveryURLs = new Set<string>();
  const jwt: CompiledJWTAuthenticator[] = [];
  c.jwt.forEach((a, i) => {
    const path = `jwt[${i}]`;
    const compiled = compileJWTAuthenticator(a, path, disallowed, errs);
    jwt.push(compiled);
    if (seenIssuers.has(a.issuer.url)) errs.push(duplicate(`${path}.issuer.url`, a.issuer.url));
    seenIssuers.add(a.issuer.url);
    if (a.issuer.discoveryURL !== '') {
      if (seenDiscoveryURLs.has(a.issuer.discoveryURL)) errs.push(duplicate(`${path}.issuer.discoveryURL`, a.issuer.discoveryURL));
      seenDiscoveryURLs.add(a.issuer.discoveryURL);
    }
  });
  if (c.anonymous && !c.anonymous.enabled && c.anonymous.conditions.length > 0) {
    errs.push(invalid('anonymous.conditions', c.anonymous.conditions, 'enabled should be set to true when conditions are defined'));
  }
  return { config: c, jwt, errors: errs };
}

/**
 * One authenticator's checks (upstream validateJWTAuthenticator); errors are appended to `errs`, the compiled
 * parts returned. Exported for the JWT authenticator's own construction from a single entry.
 */
export function compileJWTAuthenticator(a: JWTAuthenticator, path: string, disallowedIssuers: ReadonlySet<string>, errs: FieldError[]): CompiledJWTAuthenticator {
  validateIssuer(a.issuer, disallowedIssuers, `${path}.issuer`, errs);
  const state = { usesEmailClaim: false, usesEmailVerifiedClaim: false };
  const claimValidationRules = compileClaimValidationRules(a.claimValidationRules, `${path}.claimValidationRules`, state, errs);
  const mappings = compileClaimMappings(a.claimMappings, `${path}.claimMappings`, state, errs);
  const userValidationRules = compileUserValidationRules(a.userValidationRules, `${path}.userValidationRules`, errs);
  return { config: a, ...mappings, claimValidationRules, userValidationRules };
}

function validateIssuer(issuer: Issuer, disallowed: ReadonlySet<string>, path: string, errs: FieldError[]): void {
  if (issuer.url === '') errs.push(required(`${path}.url`));
  else validateURL(issuer.url, disallowed, `${path}.url`, errs);
  if (issuer.discoveryURL !== '') {
    if (issuer.url !== '' && issuer.url.replace(/\/+$/, '') === issuer.discoveryURL.replace(/\/+$/, '')) {
      errs.push(invalid(`${path}.discoveryURL`, issuer.discoveryURL, 'discoveryURL must be different from URL'));
    }
    // Not an issuer: the disallowed set does not apply.
    validateURL(issuer.discoveryURL, new Set(), `${path}.discoveryURL`, errs);
  }
  validateAudiences(issuer.audiences, issuer.audienceMatchPolicy, `${path}.audiences`, `${path}.audienceMatchPolicy`, errs);
  if (issuer.certificateAuthority !== '') {
    const err = certificatePoolError(issuer.certificateAuthority);
    if (err) errs.push(invalid(`${path}.certificateAuthority`, '<omitted>', err));
  }
  if (issuer.egressSelectorType !== '' && issuer.egressSelectorType !== 'controlplane' && issuer.egressSelectorType !== 'cluster') {
    errs.push(invalid(`${path}.egressSelectorType`, issuer.egressSelectorType, 'egress selector must be either controlplane or cluster'));
  }
}

function validateURL(raw: string, disallowed: ReadonlySet<string>, path: string, errs: FieldError[]): void {
  if (disallowed.has(raw)) {
    errs.push(invalid(path, raw, `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]`));
  }
  const parsed = parseGoURL(raw);
  if (parsed.error !== undefined) {
    errs.push(invalid(path, raw, parsed.error));
    return;
  }
  const u = parsed.url;
  if (u.scheme !== 'https') errs.push(invalid(path, raw, 'URL scheme must be https'));
  if (u.user !== undefined) errs.push(invalid(path, raw, 'URL must not contain a username or password'));
  if (u.rawQuery !== '') errs.push(invalid(path, raw, 'URL must not contain a query'));
  if (u.fragment !== '') errs.push(invalid(path, raw, 'URL must not contain a fragment'));
}

function validateAudiences(audiences: readonly string[], policy: string, path: string, policyPath: string, errs: FieldError[]): void {
  if (audiences.length === 0) {
    errs.push(required(path, `at least one ${path} is required`));
    return;
  }
  const seen = new Set<string>();
  audiences.forEach((aud, k) => {
    if (aud === '') errs.push(required(`${path}[${k}]`));
    if (seen.has(aud)) errs.push(duplicate(`${path}[${k}]`, aud));
    seen.add(aud);
  });
  if (audiences.length > 1 && policy !== AUDIENCE_MATCH_ANY) {
    errs.push(invalid(policyPath, policy, 'audienceMatchPolicy must be MatchAny for multiple audiences'));
  }
  if (audiences.length === 1 && policy !== '' && policy !== AUDIENCE_MATCH_ANY) {
    errs.push(invalid(policyPath, policy, 'audienceMatchPolicy must be empty or MatchAny for single audience'));
  }
}

/** client-go's cert.NewPoolFromBytes: the first unparsable CERTIFICATE block, or no certificate at all, is an error. */
export function certificatePoolError(pem: string): string | undefined {
  let found = false;
  for (const m of pem.matchAll(/-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g)) {
    const body = m[2]!;
    // Blocks with headers (`Proc-Type: …`) are skipped, as upstream only takes plain CERTIFICATE blocks.
    if (m[1] !== 'CERTIFICATE' || /^[^\n]*:/.test(body)) continue;
    try {
      new X509Certificate(Buffer.from(body.replace(/\s+/g, ''), 'base64'));
    } catch (e) {
      return `x509: ${(e as Error).message}`;
    }
    found = true;
  }
  return found ? undefined : 'data does not contain any valid RSA or ECDSA certificates';
}

interface EmailState {
  usesEmailClaim: boolean;
  usesEmailVerifiedClaim: boolean;
}

function compileInto(result: CompileResult, path: string, expression: string, errs: FieldError[]): CompiledExpression | undefined {
  if (result.error !== undefined) {
    errs.push(invalid(path, expression, result.error));
    return undefined;
  }
  return result.compiled;
}

function compileClaims(expression: string, type: ExpressionType, path: string, errs: FieldError[]): CompiledExpression | undefined {
  return compileInto(compileClaimsExpression(expression, type), path, expression, errs);
}

function compileClaimValidationRules(rules: readonly ClaimValidationRule[], path: string, state: EmailState, errs: FieldError[]): CompiledClaimValidationRule[] {
  const out: CompiledClaimValidationRule[] = [];
  const seenClaims = new Set<string>();
  const seenExpressions = new Set<string>();
  rules.forEach((rule, k) => {
    const p = `${path}[${k}]`;
    if (rule.claim !== '' && rule.expression !== '') {
      errs.push(invalid(p, rule.claim, "claim and expression can't both be set"));
    } else if (rule.claim === '' && rule.expression === '') {
      errs.push(required(p, 'claim or expression is required'));
    } else if (rule.claim !== '') {
      if (rule.message !== '') errs.push(invalid(`${p}.message`, rule.message, 'may not be specified when claim is set'));
      if (seenClaims.has(rule.claim)) errs.push(duplicate(`${p}.claim`, rule.claim));
      seenClaims.add(rule.claim);
      out.push({ claim: rule.claim, requiredValue: rule.requiredValue });
    } else {
      if (rule.requiredValue !== '') errs.push(invalid(`${p}.requiredValue`, rule.requiredValue, 'may not be specified when expression is set'));
      if (seenExpressions.has(rule.expression)) {
        errs.push(duplicate(`${p}.expression`, rule.expression));
        return;
      }
      seenExpressions.add(rule.expression);
      const compiled = compileClaims(rule.expression, 'bool', `${p}.expression`, errs);
      if (compiled) {
        out.push({ expression: compiled, message: rule.message });
        state.usesEmailVerifiedClaim ||= usesClaim(compiled.ast, 'email_verified');
      }
    }
  });
  return out;
}

function compilePrefixed(m: PrefixedClaimOrExpression, path: string, claimOrExpressionRequired: boolean, errs: FieldError[]): CompiledExpression | undefined {
  if (m.expression !== '' && m.claim !== '') {
    errs.push(invalid(path, '', "claim and expression can't both be set"));
  } else if (m.expression === '' && m.claim === '' && claimOrExpressionRequired) {
    errs.push(required(path, 'claim or expression is required'));
  } else if (m.expression !== '') {
    if (m.prefix !== undefined) errs.push(invalid(`${path}.prefix`, m.prefix, 'may not be specified when expression is set'));
    return compileClaims(m.expression, 'any', `${path}.expression`, errs);
  } else if (m.claim !== '' && m.prefix === undefined) {
    errs.push(required(`${path}.prefix`, 'prefix is required when claim is set. It can be set to an empty string to disable prefixing'));
  }
  return undefined;
}

const inDomain = (domain: string, d: string) => domain === d || domain.endsWith(`.${d}`);

/**
 * Upstream's reserved domains, with its text; `cluster.io`, our name for them (credential-id lives there), is
 * reserved the same way.
 */
function reservedDomainError(key: string): string | undefined {
  const slash = key.indexOf('/');
  const domain = slash >= 0 ? key.slice(0, slash) : '';
  if (inDomain(domain, 'kubernetes.io') || inDomain(domain, 'k8s.io')) return 'k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use';
  if (inDomain(domain, 'cluster.io')) return 'cluster.io and its subdomains are reserved for Kubernetes use';
  return undefined;
}

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH_RE = new RegExp(`^${HTTP_PATH_FMT}$`);

/** apimachinery IsDomainPrefixedPath. */
function domainPrefixedPathErrors(path: string, key: string): FieldError[] {
  if (key === '') return [required(path)];
  const slash = key.indexOf('/');
  const host = slash >= 0 ? key.slice(0, slash) : key;
  const rest = slash >= 0 ? key.slice(slash + 1) : '';
  if (slash < 0 || host === '' || rest === '') return [invalid(path, key, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((msg) => invalid(path, host, msg));
  if (!HTTP_PATH_RE.test(rest)) errs.push(invalid(path, rest, regexError('Invalid path', HTTP_PATH_FMT)));
  return errs;
}

function compileClaimMappings(m: ClaimMappings, path: string, state: EmailState, errs: FieldError[]): Pick<CompiledJWTAuthenticator, 'username' | 'groups' | 'uid' | 'extra'> {
  const before = errs.length;
  const username = compilePrefixed(m.username, `${path}.username`, true, errs);
  if (username && errs.length === before) {
    state.usesEmailClaim ||= usesClaim(username.ast, 'email');
    state.usesEmailVerifiedClaim ||= usesClaim(username.ast, 'email_verified');
  }
  const groups = compilePrefixed(m.groups, `${path}.groups`, false, errs);

  let uid: CompiledExpression | undefined;
  if (m.uid.claim !== '' && m.uid.expression !== '') errs.push(invalid(`${path}.uid`, '', "claim and expression can't both be set"));
  else if (m.uid.expression !== '') uid = compileClaims(m.uid.expression, 'any', `${path}.uid.expression`, errs);

  const extra: { key: string; expression: CompiledExpression }[] = [];
  const seenKeys = new Set<string>();
  m.extra.forEach((mapping, k) => {
    const p = `${path}.extra[${k}]`;
    errs.push(...domainPrefixedPathErrors(`${p}.key`, mapping.key));
    if (mapping.key !== mapping.key.toLowerCase()) errs.push(invalid(`${p}.key`, mapping.key, 'must be lowercase'));
    const reserved = reservedDomainError(mapping.key);
    if (reserved) errs.push(invalid(`${p}.key`, mapping.key, reserved));
    if (seenKeys.has(mapping.key)) {
      errs.push(duplicate(`${p}.key`, mapping.key));
      return;
    }
    seenKeys.add(mapping.key);
    if (mapping.valueExpression === '') {
      errs.push(required(`${p}.valueExpression`));
      return;
    }
    const compiled = compileClaims(mapping.valueExpression, 'any', `${p}.valueExpression`, errs);
    if (compiled) {
      extra.push({ key: mapping.key, expression: compiled });
      state.usesEmailVerifiedClaim ||= usesClaim(compiled.ast, 'email_verified');
    }
  });

  if (state.usesEmailClaim && !state.usesEmailVerifiedClaim) {
    errs.push(
      invalid(
        `${path}.username.expression`,
        m.username.expression,
        'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
      ),
    );
  }
  return { username, groups, uid, extra };
}

function compileUserValidationRules(rules: readonly UserValidationRule[], path: string, errs: FieldError[]): CompiledUserValidationRule[] {
  const out: CompiledUserValidationRule[] = [];
  const seen = new Set<string>();
  rules.forEach((rule, k) => {
    const p = `${path}[${k}].expression`;
    if (rule.expression === '') {
      errs.push(required(p));
      return;
    }
    if (seen.has(rule.expression)) {
      errs.push(duplicate(p, rule.expression));
      return;
    }
    seen.add(rule.expression);
    const compiled = compileInto(compileUserExpression(rule.expression), p, rule.expression, errs);
    if (compiled) out.push({ expression: compiled, message: rule.message });
  });
  return out;
}
