/**
 * EncryptionConfiguration files (`--encryption-provider-config`): read, decode strictly, default, validate, and
 * answer which entry governs a stored resource. Building the providers from it is storage's business
 * (src/storage/value/encryption-config.ts); this file only knows the file.
 *
 * apiVersion: `apiserver.config.cluster.io/v1` (the spec's group) and `apiserver.config.k8s.io/v1` (upstream's, so
 * that an existing file loads unchanged). Decoding is strict as upstream's (since 1.29): an unknown or repeated
 * field is an error, a value of the wrong JSON type is Go's unmarshal error.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { aggregateText } from '../apimachinery/field.ts';
import { YAMLSyntaxError, parseYAMLBody } from '../apimachinery/codec/yamlbody.ts';
import { parseGoDuration, formatGoDuration } from '../apimachinery/duration.ts';
import { goQuote } from '../util/goquote.ts';
import { featureGates } from '../features.ts';
import type { EncryptionConfiguration, Key, KMSConfiguration, ProviderConfiguration, ResourceConfiguration } from './encryption-types.ts';
import { parseGroupResource, validateEncryptionConfiguration } from './encryption-validation.ts';

export type * from './encryption-types.ts';
export { parseGroupResource, decodeStdBase64 } from './encryption-validation.ts';

export const KIND = 'EncryptionConfiguration';
export const API_VERSIONS = ['apiserver.config.cluster.io/v1', 'apiserver.config.k8s.io/v1'];
/** KMS defaults (upstream `SetDefaults_KMSConfiguration`). */
export const DEFAULT_KMS_TIMEOUT_MS = 3000;
export const DEFAULT_KMS_CACHE_SIZE = 1000;

/** A loaded file: the configuration and upstream's content hash (`sha256:<hex>` of the bytes, for reload and metrics). */
export interface LoadedEncryptionConfiguration {
  config: EncryptionConfiguration;
  hash: string;
}

/** `sha256:<hex>` of the file's bytes, as upstream's `computeEncryptionConfigHash`. */
export function configHash(data: Buffer | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/**
 * Reads and validates `path`, or throws an Error with upstream's text: `error while parsing file: …` around
 * `error opening encryption provider configuration file "<f>": …`, `encryption provider configuration file "<f>" is
 * empty`, the decoder's error, or the field errors (`resources[0].providers[0].aesgcm.keys[0].secret: Invalid value:
 * "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]`).
 */
export function loadEncryptionConfiguration(path: string, reload = false): LoadedEncryptionConfiguration {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (e) {
    throw new Error(`error while parsing file: error opening encryption provider configuration file ${goQuote(path)}: ${(e as Error).message}`);
  }
  return parseEncryptionConfiguration(data, path, reload);
}

/** As loadEncryptionConfiguration, for bytes already read (the reload controller compares hashes first). */
export function parseEncryptionConfiguration(data: Buffer, path: string, reload = false): LoadedEncryptionConfiguration {
  const fail = (msg: string): never => {
    throw new Error(`error while parsing file: ${msg}`);
  };
  if (data.length === 0) fail(`encryption provider configuration file ${goQuote(path)} is empty`);
  let config: EncryptionConfiguration;
  try {
    config = decodeEncryptionConfiguration(data.toString('utf8'));
  } catch (e) {
    return fail(`error decoding encryption provider configuration file ${goQuote(path)}: ${(e as Error).message}`);
  }
  const errs = validateEncryptionConfiguration(config, reload);
  if (errs.length) fail(aggregateText(errs));
  const masked = maskedResource(config);
  if (masked) throw new Error(`error while building transformers: ${masked}`);
  const v1 = kmsV1Refusal(config);
  if (v1) throw new Error(`error while building transformers: ${v1}`);
  return { config, hash: configHash(data) };
}

/**
 * KMS v1 providers: upstream refuses them unless the deprecated KMSv1 gate is on. This server implements KMS v2 only,
 * so with the gate on they are refused as well, saying so, rather than started without a working provider.
 */
function kmsV1Refusal(c: EncryptionConfiguration): string | undefined {
  const v1 = c.resources.flatMap((r) => r.providers).find((p) => p.kms && p.kms.apiVersion === 'v1');
  if (!v1) return undefined;
  if (!featureGates.enabled('KMSv1')) {
    return 'KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.';
  }
  return `could not configure KMS plugin ${goQuote(v1.kms!.name)}: KMS v1 providers are not supported by this server, use apiVersion: v2`;
}

// ---- decoding ----

type Shape = 'string' | 'int32' | 'duration' | 'keys' | 'empty' | { struct: string; fields: Record<string, Shape> } | { list: Shape };

const KEY: Shape = { struct: 'Key', fields: { name: 'string', secret: 'string' } };
const KEYS: Shape = { struct: 'AESConfiguration', fields: { keys: { list: KEY } } };
const KMS: Shape = { struct: 'KMSConfiguration', fields: { apiVersion: 'string', name: 'string', cachesize: 'int32', endpoint: 'string', timeout: 'duration' } };
const PROVIDER: Shape = {
  struct: 'ProviderConfiguration',
  fields: { aesgcm: KEYS, aescbc: KEYS, secretbox: { struct: 'SecretboxConfiguration', fields: { keys: { list: KEY } } }, identity: 'empty', kms: KMS },
};
const RESOURCE: Shape = { struct: 'ResourceConfiguration', fields: { resources: { list: 'string' }, providers: { list: PROVIDER } } };
const TOP: Shape = { struct: 'EncryptionConfiguration', fields: { apiVersion: 'string', kind: 'string', resources: { list: RESOURCE } } };

class TypeError_ extends Error {}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return 'object';
}

function goType(s: Shape): string {
  if (s === 'string') return 'string';
  if (s === 'int32') return 'int32';
  if (s === 'duration') return 'v1.Duration';
  if (s === 'keys' || s === 'empty') return 'v1.IdentityConfiguration';
  if ('list' in s) return `[]${typeof s.list === 'object' && 'struct' in s.list ? `v1.${s.list.struct}` : goType(s.list)}`;
  return `v1.${s.struct}`;
}

/** Walks `v` against `shape`: unknown fields into `strict`, the first wrong type thrown as Go words it. */
function walk(v: unknown, shape: Shape, path: string, goPath: string, owner: string, strict: string[]): unknown {
  if (v === null || v === undefined) return undefined;
  const wrong = () => {
    const where = owner ? `Go struct field ${owner}.${goPath}` : 'Go value';
    const what = shape === 'int32' && typeof v === 'number' ? `number ${v}` : jsonKind(v);
    throw new TypeError_(`json: cannot unmarshal ${what} into ${where} of type ${goType(shape)}`);
  };
  if (shape === 'string') return typeof v === 'string' ? v : wrong();
  if (shape === 'int32') return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? v : wrong();
  if (shape === 'duration') {
    if (typeof v !== 'string') return wrong();
    try {
      return { text: v, ms: parseGoDuration(v) };
    } catch (e) {
      throw new TypeError_((e as Error).message);
    }
  }
  if (shape === 'empty' || shape === 'keys') {
    if (typeof v !== 'object' || Array.isArray(v)) return wrong();
    for (const k of Object.keys(v as object)) strict.push(`unknown field ${goQuote(`${path}.${k}`)}`);
    return {};
  }
  if ('list' in shape) {
    if (!Array.isArray(v)) return wrong();
    return v.map((x, i) => walk(x, shape.list, `${path}[${i}]`, goPath, owner, strict));
  }
  if (typeof v !== 'object' || Array.isArray(v)) return wrong();
  const out: Record<string, unknown> = {};
  for (const [k, fv] of Object.entries(v as Record<string, unknown>)) {
    const fs = shape.fields[k];
    const fp = path ? `${path}.${k}` : k;
    if (!fs) {
      strict.push(`unknown field ${goQuote(fp)}`);
      continue;
    }
    const d = walk(fv, fs, fp, goPath ? `${goPath}.${k}` : k, owner || shape.struct, strict);
    if (d !== undefined) out[k] = d;
  }
  return out;
}

/** The file's text as an EncryptionConfiguration with upstream's defaults; throws the decoder's message. */
export function decodeEncryptionConfiguration(text: string): EncryptionConfiguration {
  let value: unknown;
  let duplicates: string[];
  try {
    ({ value, duplicates } = parseYAMLBody(text));
  } catch (e) {
    if (e instanceof YAMLSyntaxError) throw new Error(`error converting YAML to JSON: ${e.message}`);
    throw e;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`Object 'Kind' is missing in '${text}'`);
  const o = value as Record<string, unknown>;
  if (typeof o.kind !== 'string' || o.kind === '') throw new Error(`Object 'Kind' is missing in '${text}'`);
  if (typeof o.apiVersion !== 'string' || o.apiVersion === '') throw new Error(`Object 'apiVersion' is missing in '${text}'`);
  if (o.kind !== KIND || !API_VERSIONS.includes(o.apiVersion)) {
    throw new Error(`no kind ${goQuote(o.kind)} is registered for version ${goQuote(o.apiVersion)} in scheme "pkg/server/options/encryptionconfig/config.go"`);
  }
  const strict = duplicates.length ? [`error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`] : [];
  const raw = walk(o, TOP, '', '', '', strict) as { resources?: Record<string, unknown>[] };
  if (strict.length) throw new Error(`strict decoding error: ${strict.join(', ')}`);
  return { resources: (raw.resources ?? []).map((r) => resourceConfig(r ?? {})) };
}

function keys(x: unknown): { keys: Key[] } {
  const ks = ((x as { keys?: (Partial<Key> | undefined)[] }).keys ?? []).map((k) => ({ name: k?.name ?? '', secret: k?.secret ?? '' }));
  return { keys: ks };
}

function resourceConfig(r: Record<string, unknown>): ResourceConfiguration {
  const resources = ((r.resources as (string | undefined)[] | undefined) ?? []).map((s) => s ?? '');
  const providers = ((r.providers as (Record<string, unknown> | undefined)[] | undefined) ?? []).map((p0): ProviderConfiguration => {
    const p = p0 ?? {};
    const out: ProviderConfiguration = {};
    if (p.aesgcm) out.aesgcm = keys(p.aesgcm);
    if (p.aescbc) out.aescbc = keys(p.aescbc);
    if (p.secretbox) out.secretbox = keys(p.secretbox);
    if (p.identity) out.identity = {};
    if (p.kms) out.kms = kmsConfig(p.kms as Record<string, unknown>);
    return out;
  });
  return { resources, providers };
}

function kmsConfig(k: Record<string, unknown>): KMSConfiguration {
  // Upstream's defaulting: apiVersion v1, timeout 3s, and for v1 only a cache size of 1000.
  const apiVersion = (k.apiVersion as string | undefined) || 'v1';
  const t = k.timeout as { text: string; ms: number } | undefined;
  const timeoutMs = t ? t.ms : DEFAULT_KMS_TIMEOUT_MS;
  const cachesize = k.cachesize as number | undefined;
  return {
    apiVersion,
    name: (k.name as string | undefined) ?? '',
    endpoint: (k.endpoint as string | undefined) ?? '',
    timeoutMs,
    timeout: t ? formatGoDuration(t.ms) : formatGoDuration(DEFAULT_KMS_TIMEOUT_MS),
    ...(cachesize !== undefined ? { cachesize } : apiVersion === 'v1' ? { cachesize: DEFAULT_KMS_CACHE_SIZE } : {}),
  };
}

// ---- which entry governs a resource ----

/** `res.group`, `res` for core, `*.` for the whole core group: how upstream prints a group-resource (grYAMLString). */
function grString(gr: { group: string; resource: string }): string {
  if (gr.group === '' && gr.resource === '*') return '*.';
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/**
 * Names that mean the same stored objects as another (reference decision: the core spelling `events` names the
 * Events stored under events.events.cluster.io, since this server stores them once and serves them twice).
 */
const ALIASES: Record<string, string> = { events: 'events.events.cluster.io' };

/** Upstream's masking check at build time: a later resource under an earlier `*.group` or `*.*` can never apply. */
function maskedResource(c: EncryptionConfiguration): string | undefined {
  const seen = new Set<string>();
  for (const entry of c.resources) {
    for (const res of entry.resources) {
      const gr = parseGroupResource(res);
      const anyInGroup = { group: gr.group, resource: '*' };
      if (seen.has(grString(anyInGroup))) return `resource ${goQuote(grString(gr))} is masked by earlier rule ${goQuote(grString(anyInGroup))}`;
      if (seen.has('*.*')) return `resource ${goQuote(grString(gr))} is masked by earlier rule "*.*"`;
    }
    for (const res of entry.resources) seen.add(grString(parseGroupResource(res)));
  }
  return undefined;
}

/**
 * The providers that govern a stored resource, or undefined (identity, nothing configured). `names` are every
 * `res.group` spelling of the stored objects, the canonical one first. As upstream: an exact name, then its
 * group's `*.group`, then `*.*`; an exact name listed in several entries gets their providers in file order.
 * Exact names are decided before wildcards (upstream's lookup), so an entry listing `events` with identity exempts
 * Events from a later `*.*`, and validation has already refused a wildcard that masks a later entry.
 */
export function providersFor(c: EncryptionConfiguration, names: string[]): ProviderConfiguration[] | undefined {
  const canonical = (s: string) => ALIASES[s] ?? s;
  const wanted = new Set(names.map(canonical));
  const exact: ProviderConfiguration[] = [];
  for (const entry of c.resources) if (entry.resources.some((r) => wanted.has(canonical(r)))) exact.push(...entry.providers);
  if (exact.length) return exact;
  for (const name of names) {
    const { group } = parseGroupResource(name);
    const wildcard = grString({ group, resource: '*' });
    const entry = c.resources.find((e) => e.resources.includes(wildcard));
    if (entry) return entry.providers;
  }
  return c.resources.find((e) => e.resources.includes('*.*'))?.providers;
}
