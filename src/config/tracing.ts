/**
 * TracingConfiguration (`--tracing-config-file`): where spans go and how many root spans are sampled. The file is
 * YAML or JSON, decoded strictly (an unknown or repeated field is an error, as upstream since 1.32); the texts of
 * every refusal are upstream's (component-base `tracing/api/v1` validation, apiserver `server/options/tracing.go`),
 * because operators search for them.
 *
 * apiVersion: `apiserver.config.cluster.io/v1` is what the spec names; upstream registers the kind only under
 * v1alpha1 and v1beta1, and a file written for it should load here unchanged (after the group rename), so those
 * two are accepted as well.
 */
import { existsSync, readFileSync } from 'node:fs';
import { type FieldError, aggregateText, invalid } from '../apimachinery/field.ts';
import { YAMLSyntaxError, parseYAMLBody, type YAMLBody } from '../apimachinery/codec/yamlbody.ts';
import { goQuote } from '../util/goquote.ts';

export const GROUP = 'apiserver.config.cluster.io';
export const KIND = 'TracingConfiguration';
export const VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;

/** What the server runs with; absent fields take the defaults below. */
export interface TracingConfiguration {
  /** Collector address (gRPC target); unset: {@link DEFAULT_ENDPOINT}. */
  endpoint?: string;
  /** Root spans sampled per million; unset or 0: none (a sampled parent is still honoured). */
  samplingRatePerMillion?: number;
}

/** The OTLP gRPC default, as upstream's exporter. */
export const DEFAULT_ENDPOINT = 'localhost:4317';
const MAX_SAMPLING_RATE_PER_MILLION = 1_000_000;

/**
 * The scheme name upstream's decoder prints in a not-registered error: the file and line where its configuration
 * scheme is created (apimachinery names a scheme after its call site).
 */
const SCHEME_NAME = 'pkg/server/options/tracing.go:49';

const FIELDS: Record<string, 'string' | 'int32'> = { apiVersion: 'string', kind: 'string', endpoint: 'string', samplingRatePerMillion: 'int32' };

/** The flag check (upstream TracingOptions.Validate): the file must exist when the flag is given. */
export function validateTracingConfigFileFlag(path: string): string | undefined {
  if (path === '' || existsSync(path)) return undefined;
  return `tracing-config-file ${path} does not exist`;
}

/**
 * Reads, decodes and validates the file, or throws an Error with the text kube-apiserver stops with:
 * `failed to read tracing config: …` (unreadable or undecodable) or `failed to validate tracing configuration: …`
 * (field errors, e.g. `samplingRatePerMillion: Invalid value: -1: sampling rate must be positive`).
 */
export function loadTracingConfiguration(path: string): TracingConfiguration {
  let config: TracingConfiguration;
  try {
    config = readTracingConfiguration(path);
  } catch (e) {
    throw new Error(`failed to read tracing config: ${(e as Error).message}`);
  }
  const errs = validateTracingConfiguration(config);
  if (errs.length) throw new Error(`failed to validate tracing configuration: ${aggregateText(errs)}`);
  return config;
}

export function readTracingConfiguration(path: string): TracingConfiguration {
  if (path === '') throw new Error('tracing config file was empty');
  let data: string;
  try {
    data = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`unable to read tracing configuration from ${goQuote(path)}: ${(e as NodeJS.ErrnoException).message}`);
  }
  // Upstream reaches this text only for an empty path (which here, as there, leaves tracing off) and answers an
  // empty file with `Object 'Kind' is missing in ''`; naming the empty file says what is wrong more plainly.
  if (data.trim() === '') throw new Error('tracing config file was empty');
  try {
    return decodeTracingConfiguration(data);
  } catch (e) {
    throw new Error(`unable to decode tracing configuration data: ${(e as Error).message}`);
  }
}

/** The file's text as a TracingConfiguration of a registered version; throws with the decoder's message. */
export function decodeTracingConfiguration(data: string): TracingConfiguration {
  let body: YAMLBody;
  try {
    body = parseYAMLBody(data);
  } catch (e) {
    if (e instanceof YAMLSyntaxError) throw new Error(`error converting YAML to JSON: ${e.message}`);
    throw e;
  }
  // The strict decoder reports repeated keys in the YAML converter's words, then the unknown fields.
  const strict = body.duplicates.length ? [`error converting YAML to JSON: yaml: unmarshal errors:\n  ${body.duplicates.join('\n  ')}`] : [];
  return decodeObject(body.value, data, strict);
}

function decodeObject(obj: unknown, original: string, strictErrors: string[]): TracingConfiguration {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    if (obj === null || obj === undefined) throw new Error(`Object 'Kind' is missing in '${original}'`);
    throw new Error(`json: cannot unmarshal ${jsonType(obj)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const o = obj as Record<string, unknown>;
  if (typeof o.kind !== 'string' || o.kind === '') throw new Error(`Object 'Kind' is missing in '${original}'`);
  if (typeof o.apiVersion !== 'string' || o.apiVersion === '') throw new Error(`Object 'apiVersion' is missing in '${original}'`);
  const [group, version, extra] = o.apiVersion.split('/');
  const registered = extra === undefined && group === GROUP && (VERSIONS as readonly string[]).includes(version ?? '');
  if (!registered || o.kind !== KIND) {
    throw new Error(`no kind ${goQuote(o.kind)} is registered for version ${goQuote(o.apiVersion)} in scheme ${goQuote(SCHEME_NAME)}`);
  }
  const out: TracingConfiguration = {};
  for (const [name, value] of Object.entries(o)) {
    const type = FIELDS[name];
    if (!type) {
      strictErrors.push(`unknown field ${goQuote(name)}`);
      continue;
    }
    if (value === null) continue;
    if (type === 'string' && typeof value !== 'string') throw unmarshalError(value, name, 'string');
    if (type === 'int32' && !(typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31)) {
      throw unmarshalError(value, name, 'int32');
    }
    if (name === 'endpoint') out.endpoint = value as string;
    if (name === 'samplingRatePerMillion') out.samplingRatePerMillion = value as number;
  }
  if (strictErrors.length) throw new Error(`strict decoding error: ${strictErrors.join(', ')}`);
  return out;
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return 'object';
}

function unmarshalError(value: unknown, field: string, type: string): Error {
  const what = typeof value === 'number' ? `number ${value}` : jsonType(value);
  return new Error(`json: cannot unmarshal ${what} into Go struct field TracingConfiguration.${field} of type ${type}`);
}

/** Upstream's ValidateTracingConfiguration, field paths from the top of the file. */
export function validateTracingConfiguration(c: TracingConfiguration): FieldError[] {
  const errs: FieldError[] = [];
  const rate = c.samplingRatePerMillion;
  if (rate !== undefined) {
    if (rate < 0) errs.push(invalid('samplingRatePerMillion', rate, 'sampling rate must be positive'));
    if (rate > MAX_SAMPLING_RATE_PER_MILLION) {
      errs.push(invalid('samplingRatePerMillion', rate, 'sampling rate per million must be less than or equal to one million'));
    }
  }
  if (c.endpoint !== undefined) {
    // gRPC's naming: a target without `//` is a DNS name.
    const endpoint = c.endpoint.includes('//') ? c.endpoint : `dns://${c.endpoint}`;
    const parsed = goURLScheme(endpoint);
    if ('error' in parsed) errs.push(invalid('endpoint', endpoint, parsed.error));
    else if (!['dns', 'unix', 'unix-abstract'].includes(parsed.scheme)) {
      errs.push(invalid('endpoint', endpoint, `unsupported scheme: ${parsed.scheme}.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md`));
    }
  }
  return errs;
}

/**
 * The scheme Go's url.Parse finds in `raw` (lower-cased), or its error text: control characters, a leading `:`,
 * and a non-numeric port after the host are what it refuses in a target of this shape.
 */
function goURLScheme(raw: string): { scheme: string } | { error: string } {
  const fail = (msg: string) => ({ error: `parse ${goQuote(raw)}: ${msg}` });
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail('net/url: invalid control character in URL');
  const url = raw.split('#')[0]!;
  let scheme = '';
  let rest = url;
  for (let i = 0; i < url.length; i++) {
    const c = url[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return fail('missing protocol scheme');
      scheme = url.slice(0, i).toLowerCase();
      rest = url.slice(i + 1);
    }
    break;
  }
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split(/[/?]/)[0]!;
    const host = authority.slice(authority.lastIndexOf('@') + 1);
    const portAt = host.startsWith('[') ? host.indexOf(']:') + 1 : host.lastIndexOf(':');
    if (portAt > 0 || (portAt === 0 && !host.startsWith('['))) {
      const port = host.slice(portAt);
      if (!/^:\d*$/.test(port)) return fail(`invalid port ${goQuote(port)} after host`);
    }
  }
  return { scheme };
}
