/**
 * Loading an AuthenticationConfiguration file (`--authentication-config`): YAML or JSON, decoded strictly, then
 * validated (authentication-validation.ts) with every CEL expression compiled. The texts are kube-apiserver's
 * (`pkg/kubeapiserver/options/authentication.go`), because operators search for them:
 * `failed to load authentication configuration from file "<path>": <decode error>` and
 * `invalid authentication configuration: <field errors>`.
 *
 * apiVersion: `apiserver.config.cluster.io/v1` is what the spec names; upstream also registers the kind under
 * v1beta1 and v1alpha1, and a file written for those should load here unchanged (after the group rename).
 */
import { readFileSync } from 'node:fs';
import { aggregateText, type FieldError } from '../apimachinery/field.ts';
import { parseYAMLBody, YAMLSyntaxError } from '../apimachinery/codec/yamlbody.ts';
import { goQuote } from '../util/goquote.ts';
import type { AuthenticationConfiguration, ClaimMappings, Issuer, JWTAuthenticator } from './authentication-types.ts';
import { compileAndValidateAuthenticationConfiguration, type CompiledAuthenticationConfiguration, type ValidationOptions } from './authentication-validation.ts';
import { BOOL, decodeStrict, listOf, STRING, type StructSchema } from './strict-decode.ts';

export const GROUP = 'apiserver.config.cluster.io';
export const KIND = 'AuthenticationConfiguration';
export const VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;

/**
 * Where upstream creates the scheme its decoder names in a not-registered error (apimachinery names a scheme
 * after the file that created it).
 */
const SCHEME_NAME = 'pkg/kubeapiserver/options/authentication.go';

/** Other kinds of the group: upstream decodes them and then refuses them as the wrong type. */
const OTHER_KINDS = ['AdmissionConfiguration', 'AuthorizationConfiguration', 'EncryptionConfiguration', 'TracingConfiguration', 'EgressSelectorConfiguration'];

const PREFIXED: StructSchema = { kind: 'struct', goName: 'PrefixedClaimOrExpression', fields: { claim: STRING, prefix: STRING, expression: STRING } };
const SCHEMA: StructSchema = {
  kind: 'struct',
  goName: 'AuthenticationConfiguration',
  fields: {
    jwt: listOf({
      kind: 'struct',
      goName: 'JWTAuthenticator',
      fields: {
        issuer: {
          kind: 'struct',
          goName: 'Issuer',
          fields: { url: STRING, discoveryURL: STRING, certificateAuthority: STRING, audiences: listOf(STRING), audienceMatchPolicy: STRING, egressSelectorType: STRING },
        },
        claimValidationRules: listOf({ kind: 'struct', goName: 'ClaimValidationRule', fields: { claim: STRING, requiredValue: STRING, expression: STRING, message: STRING } }),
        claimMappings: {
          kind: 'struct',
          goName: 'ClaimMappings',
          fields: {
            username: PREFIXED,
            groups: PREFIXED,
            uid: { kind: 'struct', goName: 'ClaimOrExpression', fields: { claim: STRING, expression: STRING } },
            extra: listOf({ kind: 'struct', goName: 'ExtraMapping', fields: { key: STRING, valueExpression: STRING } }),
          },
        },
        userValidationRules: listOf({ kind: 'struct', goName: 'UserValidationRule', fields: { expression: STRING, message: STRING } }),
      },
    }),
    anonymous: {
      kind: 'struct',
      goName: 'AnonymousAuthConfig',
      fields: { enabled: BOOL, conditions: listOf({ kind: 'struct', goName: 'AnonymousAuthCondition', fields: { path: STRING } }) },
    },
  },
};

/** A file that cannot be read, decoded or validated; `message` is the text kube-apiserver stops with. */
export class AuthenticationConfigError extends Error {
  override readonly name = 'AuthenticationConfigError';
  constructor(
    message: string,
    /** The field errors, when validation (not decoding) failed. */
    readonly fieldErrors: readonly FieldError[] = [],
  ) {
    super(message);
  }
}

export interface LoadedAuthenticationConfiguration extends CompiledAuthenticationConfiguration {
  /** The file's bytes as text: reload compares them, and the config-info metric hashes them. */
  readonly data: string;
}

/** Reads, decodes, validates and compiles the file, or throws AuthenticationConfigError. */
export function loadAuthenticationConfiguration(path: string, opts: ValidationOptions = {}): LoadedAuthenticationConfiguration {
  let data: string;
  try {
    data = readFileSync(path, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    // Go's *PathError text: `open <path>: no such file or directory`.
    const reason = err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'EACCES' ? 'permission denied' : err.message;
    throw new AuthenticationConfigError(`failed to load authentication configuration from file ${goQuote(path)}: open ${path}: ${reason}`);
  }
  let config: AuthenticationConfiguration;
  try {
    config = decodeAuthenticationConfiguration(data);
  } catch (e) {
    throw new AuthenticationConfigError(`failed to load authentication configuration from file ${goQuote(path)}: ${(e as Error).message}`);
  }
  return { ...compileAuthenticationConfiguration(config, opts), data };
}

/**
 * Validates and compiles an already decoded configuration (the reload path decodes, then calls this), or throws
 * AuthenticationConfigError `invalid authentication configuration: <aggregate>`.
 */
export function compileAuthenticationConfiguration(config: AuthenticationConfiguration, opts: ValidationOptions = {}): CompiledAuthenticationConfiguration {
  const compiled = compileAndValidateAuthenticationConfiguration(config, opts);
  if (compiled.errors.length) throw new AuthenticationConfigError(`invalid authentication configuration: ${aggregateText([...compiled.errors])}`, compiled.errors);
  return compiled;
}

/** The file's text as an AuthenticationConfiguration (upstream loadAuthenticationConfigFromData); throws Error. */
export function decodeAuthenticationConfiguration(data: string): AuthenticationConfiguration {
  if (data.length === 0) throw new Error('empty config data');
  let value: unknown;
  let duplicates: string[];
  try {
    ({ value, duplicates } = parseYAMLBody(data));
  } catch (e) {
    if (e instanceof YAMLSyntaxError) throw new Error(`error converting YAML to JSON: ${e.message}`);
    throw e;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    if (value === null || value === undefined) throw new Error(`Object 'Kind' is missing in '${data}'`);
    throw new Error(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : 'string'} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const o = value as Record<string, unknown>;
  if (typeof o.kind !== 'string' || o.kind === '') throw new Error(`Object 'Kind' is missing in '${data}'`);
  if (typeof o.apiVersion !== 'string' || o.apiVersion === '') throw new Error(`Object 'apiVersion' is missing in '${data}'`);
  const [group, version, rest] = o.apiVersion.split('/');
  const ourVersion = rest === undefined && group === GROUP && (VERSIONS as readonly string[]).includes(version ?? '');
  if (!ourVersion || (o.kind !== KIND && !OTHER_KINDS.includes(o.kind))) {
    throw new Error(`no kind ${goQuote(o.kind)} is registered for version ${goQuote(o.apiVersion)} in scheme ${goQuote(SCHEME_NAME)}`);
  }
  if (o.kind !== KIND) throw new Error(`expected ${KIND}, got *apiserver.${o.kind}`);
  // The strict decoder reports repeated keys in the YAML converter's words before the unknown fields.
  const strict = duplicates.length ? [`error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`] : [];
  return withDefaults(decodeStrict(o, SCHEMA, strict, ['apiVersion', 'kind']));
}

type Loose = Record<string, unknown>;
const str = (o: Loose | undefined, k: string): string => (o?.[k] as string | undefined) ?? '';
const list = <T>(o: Loose | undefined, k: string): T[] => ((o?.[k] as T[] | undefined) ?? []).map((x) => x ?? ({} as T));

/** Zero values where the file left fields out, so that validation and the authenticator read plain values. */
function withDefaults(o: Loose): AuthenticationConfiguration {
  const out: AuthenticationConfiguration = { jwt: list<Loose>(o, 'jwt').map(jwtWithDefaults) };
  const anon = o.anonymous as Loose | undefined;
  if (anon) out.anonymous = { enabled: (anon.enabled as boolean | undefined) ?? false, conditions: list<Loose>(anon, 'conditions').map((c) => ({ path: str(c, 'path') })) };
  return out;
}

function jwtWithDefaults(j: Loose): JWTAuthenticator {
  const i = j.issuer as Loose | undefined;
  const issuer: Issuer = {
    url: str(i, 'url'),
    discoveryURL: str(i, 'discoveryURL'),
    certificateAuthority: str(i, 'certificateAuthority'),
    audiences: list<string>(i, 'audiences').map((a) => a ?? ''),
    audienceMatchPolicy: str(i, 'audienceMatchPolicy'),
    egressSelectorType: str(i, 'egressSelectorType'),
  };
  const m = j.claimMappings as Loose | undefined;
  const prefixed = (p: Loose | undefined) => {
    const r = { claim: str(p, 'claim'), expression: str(p, 'expression') } as ClaimMappings['username'];
    if (typeof p?.prefix === 'string') r.prefix = p.prefix;
    return r;
  };
  return {
    issuer,
    claimValidationRules: list<Loose>(j, 'claimValidationRules').map((r) => ({ claim: str(r, 'claim'), requiredValue: str(r, 'requiredValue'), expression: str(r, 'expression'), message: str(r, 'message') })),
    claimMappings: {
      username: prefixed(m?.username as Loose | undefined),
      groups: prefixed(m?.groups as Loose | undefined),
      uid: { claim: str(m?.uid as Loose | undefined, 'claim'), expression: str(m?.uid as Loose | undefined, 'expression') },
      extra: list<Loose>(m, 'extra').map((e) => ({ key: str(e, 'key'), valueExpression: str(e, 'valueExpression') })),
    },
    userValidationRules: list<Loose>(j, 'userValidationRules').map((r) => ({ expression: str(r, 'expression'), message: str(r, 'message') })),
  };
}
