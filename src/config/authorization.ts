/**
 * Loading an AuthorizationConfiguration file (`--authorization-config`): YAML or JSON, decoded strictly, defaulted,
 * then validated with every match condition compiled (authorization-validation.ts). The texts are kube-apiserver's
 * (`pkg/kubeapiserver/authorizer/config.go`, `apiserver/pkg/apis/apiserver/load`): a file that cannot be read stops
 * the start with Go's `open <path>: …`, one that does not decode with
 * `failed to load AuthorizationConfiguration from file: <decode error>`, and an invalid one with the field errors
 * themselves (`authorizers[0].timeout: Required value`, several as `[a, b]`).
 *
 * apiVersion: `apiserver.config.cluster.io/v1` is the spec's; v1beta1 and v1alpha1 are accepted as upstream
 * registers them, and so is upstream's own group `apiserver.config.k8s.io`, so a file written for kube-apiserver
 * loads unchanged.
 */
import { readFileSync } from 'node:fs';
import { parseGoDuration } from '../apimachinery/duration.ts';
import { parseYAMLBody, YAMLSyntaxError } from '../apimachinery/codec/yamlbody.ts';
import { goQuote } from '../util/goquote.ts';
import {
  type AuthorizationConfiguration,
  type AuthorizerConfiguration,
  DEFAULT_AUTHORIZED_TTL_MS,
  DEFAULT_UNAUTHORIZED_TTL_MS,
  type WebhookConfiguration,
} from './authorization-types.ts';
import { compileAndValidateAuthorizationConfiguration, type CompiledAuthorizationConfiguration } from './authorization-validation.ts';
import { BOOL, decodeStrict, listOf, STRING, type StructSchema } from './strict-decode.ts';

export const KIND = 'AuthorizationConfiguration';
export const GROUPS = ['apiserver.config.cluster.io', 'apiserver.config.k8s.io'] as const;
export const VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;

/** Where upstream's decoder scheme is created (apimachinery names a scheme after its call site). */
const SCHEME_NAME = 'pkg/apis/apiserver/load/load.go:32';
const OTHER_KINDS = ['AdmissionConfiguration', 'AuthenticationConfiguration', 'EncryptionConfiguration', 'TracingConfiguration', 'EgressSelectorConfiguration'];

const SCHEMA: StructSchema = {
  kind: 'struct',
  goName: 'AuthorizationConfiguration',
  fields: {
    authorizers: listOf({
      kind: 'struct',
      goName: 'AuthorizerConfiguration',
      fields: {
        type: STRING,
        name: STRING,
        webhook: {
          kind: 'struct',
          goName: 'WebhookConfiguration',
          fields: {
            authorizedTTL: STRING,
            cacheAuthorizedRequests: BOOL,
            unauthorizedTTL: STRING,
            cacheUnauthorizedRequests: BOOL,
            timeout: STRING,
            subjectAccessReviewVersion: STRING,
            matchConditionSubjectAccessReviewVersion: STRING,
            failurePolicy: STRING,
            connectionInfo: { kind: 'struct', goName: 'WebhookConnectionInfo', fields: { type: STRING, kubeConfigFile: STRING, coreConfigFile: STRING } },
            matchConditions: listOf({ kind: 'struct', goName: 'WebhookMatchCondition', fields: { expression: STRING } }),
          },
        },
      },
    }),
  },
};

export interface LoadedAuthorizationConfiguration extends CompiledAuthorizationConfiguration {
  /** The file's bytes as text: reload compares them, and the config-info metric hashes them. */
  readonly data: string;
}

/** A file that cannot be read, decoded or validated; `message` is the text the server stops with. */
export class AuthorizationConfigError extends Error {
  override readonly name = 'AuthorizationConfigError';
}

/** Reads, decodes, validates and compiles the file, or throws AuthorizationConfigError. */
export function loadAuthorizationConfiguration(path: string): LoadedAuthorizationConfiguration {
  let data: string;
  try {
    data = readFileSync(path, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const reason = err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'EACCES' ? 'permission denied' : err.code === 'EISDIR' ? 'is a directory' : err.message;
    throw new AuthorizationConfigError(`open ${path}: ${reason}`);
  }
  return { ...compileAuthorizationData(data), data };
}

/** Decodes and validates file content (start-up and reload share it); throws AuthorizationConfigError. */
export function compileAuthorizationData(data: string): CompiledAuthorizationConfiguration {
  let config: AuthorizationConfiguration;
  try {
    config = decodeAuthorizationConfiguration(data);
  } catch (e) {
    throw new AuthorizationConfigError(`failed to load AuthorizationConfiguration from file: ${(e as Error).message}`);
  }
  const compiled = compileAndValidateAuthorizationConfiguration(config);
  if (compiled.errors.length) throw new AuthorizationConfigError(aggregate(compiled.errors));
  return compiled;
}

/** apimachinery's aggregate: one error as itself, several as `[a, b]`, each text once. */
function aggregate(texts: readonly string[]): string {
  const unique = [...new Set(texts)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** The file's text as a defaulted AuthorizationConfiguration; throws Error with the decoder's words. */
export function decodeAuthorizationConfiguration(data: string): AuthorizationConfiguration {
  // Upstream's loader answers an empty file with the defaults: no authorizers, which validation then refuses.
  if (data.length === 0) return { authorizers: [] };
  let value: unknown;
  let duplicates: string[];
  try {
    ({ value, duplicates } = parseYAMLBody(data));
  } catch (e) {
    if (e instanceof YAMLSyntaxError) throw new Error(`error converting YAML to JSON: ${e.message}`);
    throw e;
  }
  if (value === null || value === undefined) throw new Error(`Object 'Kind' is missing in '${data}'`);
  if (typeof value !== 'object' || Array.isArray(value)) {
    const t = Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : 'string';
    throw new Error(`couldn't get version/kind; json parse error: json: cannot unmarshal ${t} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const o = value as Record<string, unknown>;
  if (typeof o.kind !== 'string' || o.kind === '') throw new Error(`Object 'Kind' is missing in '${data}'`);
  if (typeof o.apiVersion !== 'string' || o.apiVersion === '') throw new Error(`Object 'apiVersion' is missing in '${data}'`);
  const [group, version, rest] = o.apiVersion.split('/');
  const ours = rest === undefined && (GROUPS as readonly string[]).includes(group ?? '') && (VERSIONS as readonly string[]).includes(version ?? '');
  if (!ours || (o.kind !== KIND && !OTHER_KINDS.includes(o.kind))) {
    throw new Error(`no kind ${goQuote(o.kind)} is registered for version ${goQuote(o.apiVersion)} in scheme ${goQuote(SCHEME_NAME)}`);
  }
  if (o.kind !== KIND) throw new Error(`expected AuthorizationConfiguration, got *apiserver.${o.kind}`);
  const strict = duplicates.length ? [`error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`] : [];
  return withDefaults(decodeStrict(o, SCHEMA, strict, ['apiVersion', 'kind']));
}

type Loose = Record<string, unknown>;
const str = (o: Loose | undefined, k: string): string => (o?.[k] as string | undefined) ?? '';
const list = <T>(o: Loose | undefined, k: string): T[] => ((o?.[k] as T[] | undefined) ?? []).map((x) => x ?? ({} as T));

function withDefaults(o: Loose): AuthorizationConfiguration {
  return {
    authorizers: list<Loose>(o, 'authorizers').map((a): AuthorizerConfiguration => {
      const out: AuthorizerConfiguration = { type: str(a, 'type'), name: str(a, 'name') };
      if (a.webhook) out.webhook = webhookWithDefaults(a.webhook as Loose);
      return out;
    }),
  };
}

/** metav1.Duration's decoding: a Go duration string; anything else is the decoder's error. */
function duration(w: Loose, k: string): number {
  const v = w[k];
  return v === undefined ? 0 : parseGoDuration(v as string);
}

function webhookWithDefaults(w: Loose): WebhookConfiguration {
  const ci = (w.connectionInfo as Loose | undefined) ?? {};
  const kube = ci.kubeConfigFile as string | undefined;
  const core = ci.coreConfigFile as string | undefined;
  const authorizedTTLMs = duration(w, 'authorizedTTL');
  const unauthorizedTTLMs = duration(w, 'unauthorizedTTL');
  return {
    authorizedTTLMs: authorizedTTLMs === 0 ? DEFAULT_AUTHORIZED_TTL_MS : authorizedTTLMs,
    cacheAuthorizedRequests: (w.cacheAuthorizedRequests as boolean | undefined) ?? true,
    unauthorizedTTLMs: unauthorizedTTLMs === 0 ? DEFAULT_UNAUTHORIZED_TTL_MS : unauthorizedTTLMs,
    cacheUnauthorizedRequests: (w.cacheUnauthorizedRequests as boolean | undefined) ?? true,
    timeoutMs: duration(w, 'timeout'),
    subjectAccessReviewVersion: str(w, 'subjectAccessReviewVersion'),
    matchConditionSubjectAccessReviewVersion: str(w, 'matchConditionSubjectAccessReviewVersion'),
    failurePolicy: str(w, 'failurePolicy'),
    connectionInfo: {
      type: str(ci, 'type'),
      ...(kube !== undefined || core !== undefined ? { kubeConfigFile: kube ?? core } : {}),
      ...(kube !== undefined && core !== undefined ? { bothSpellings: true } : {}),
      ...(kube === undefined && core !== undefined ? { spelledAs: 'coreConfigFile' as const } : {}),
    },
    matchConditions: list<Loose>(w, 'matchConditions').map((m) => ({ expression: str(m, 'expression') })),
  };
}
