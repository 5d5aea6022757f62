/**
 * The legacy `--oidc-*` flags as the one JWT authenticator they stand for, built the way kube-apiserver builds it
 * (`pkg/kubeapiserver/options/authentication.go` ToAuthenticationConfig): an AuthenticationConfiguration entry with
 * the issuer URL, the client ID as the single audience, the CA file's contents, the username claim with upstream's
 * prefix rule, the groups claim when given, and one `claim`/`requiredValue` rule per required claim. That entry then
 * goes through the same validation and compilation as a file's, so a bad value is refused with the same texts
 * (`invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://…": URL scheme must be https`).
 * What the file does not have is the signing algorithm allow-list (`--oidc-signing-algs`, default RS256).
 */
import { readFileSync } from 'node:fs';
import type { AuthenticationConfiguration, JWTAuthenticator } from './authentication-types.ts';

export interface OIDCFlagValues {
  readonly issuerURL: string;
  readonly clientID: string;
  readonly caFile: string;
  readonly usernameClaim: string;
  readonly usernamePrefix: string;
  readonly groupsClaim: string;
  readonly groupsPrefix: string;
  readonly signingAlgs: readonly string[];
  readonly requiredClaims: Readonly<Record<string, string>>;
}

/** Upstream's allowedSigningAlgs: the asymmetric JOSE algorithms. */
const ALLOWED_SIGNING_ALGS = new Set(['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512']);

export interface OIDCFlagsConfiguration {
  readonly config: AuthenticationConfiguration;
  readonly signingAlgorithms: readonly string[];
}

/**
 * The configuration the flags stand for, or undefined when no issuer is configured (upstream builds the authenticator
 * only with both the issuer URL and the client ID; flags.ts refuses one without the other). Throws with upstream's
 * texts for what only the flags can get wrong: an unreadable CA file (Go's `open <path>: …`, led by the flag's
 * name so the operator knows which file) and an algorithm outside the allow-list (`oidc: unsupported signing alg`).
 */
export function oidcFlagsToAuthenticationConfiguration(f: OIDCFlagValues, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): OIDCFlagsConfiguration | undefined {
  if (f.issuerURL === '' || f.clientID === '') return undefined;
  // Legacy rule (kubernetes#31380): without a prefix, usernames from claims other than email are prefixed with the
  // issuer URL and '#', so that they cannot collide with other authenticators' users; '-' turns prefixing off.
  let usernamePrefix = f.usernamePrefix;
  if (usernamePrefix === '' && f.usernameClaim !== 'email') usernamePrefix = `${f.issuerURL}#`;
  if (usernamePrefix === '-') usernamePrefix = '';

  const jwt: JWTAuthenticator = {
    issuer: { url: f.issuerURL, discoveryURL: '', certificateAuthority: '', audiences: [f.clientID], audienceMatchPolicy: '', egressSelectorType: '' },
    claimValidationRules: [],
    claimMappings: {
      username: { claim: f.usernameClaim, prefix: usernamePrefix, expression: '' },
      groups: { claim: '', expression: '' },
      uid: { claim: '', expression: '' },
      extra: [],
    },
    userValidationRules: [],
  };
  if (f.groupsClaim !== '') jwt.claimMappings.groups = { claim: f.groupsClaim, prefix: f.groupsPrefix, expression: '' };
  if (f.caFile !== '') {
    try {
      jwt.issuer.certificateAuthority = readFile(f.caFile);
    } catch (e) {
      throw new Error(`--oidc-ca-file: ${fsErrorText(e, f.caFile)}`);
    }
  }
  // Go ranges over a map in random order; sorted here so that the rules (and any error about them) are stable.
  for (const claim of Object.keys(f.requiredClaims).sort()) {
    jwt.claimValidationRules.push({ claim, requiredValue: f.requiredClaims[claim]!, expression: '', message: '' });
  }
  const algs = f.signingAlgs.length ? [...f.signingAlgs] : ['RS256'];
  for (const alg of algs) if (!ALLOWED_SIGNING_ALGS.has(alg)) throw new Error(`oidc: unsupported signing alg: ${JSON.stringify(alg)}`);
  return { config: { jwt: [jwt] }, signingAlgorithms: algs };
}

/** Go's os.ReadFile error for `path` (a directory opens, then fails to read). */
function fsErrorText(e: unknown, path: string): string {
  switch ((e as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return `open ${path}: no such file or directory`;
    case 'EACCES':
      return `open ${path}: permission denied`;
    case 'EISDIR':
      return `read ${path}: is a directory`;
    default:
      return (e as Error).message;
  }
}
