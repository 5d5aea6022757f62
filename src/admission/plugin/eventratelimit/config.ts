/**
 * EventRateLimit's configuration (kubernetes `plugin/pkg/admission/eventratelimit/apis/eventratelimit`):
 * `eventratelimit.admission.k8s.io/v1alpha1` `Configuration` with `limits[]{type, qps, burst, cacheSize}`, the
 * spec's `eventratelimit.admission.cluster.io/v1alpha1` spelling accepted as well. Decoded as upstream's plugin
 * decodes it — leniently: unknown fields are ignored, a value of the wrong JSON type stops the decode with Go's text —
 * and validated with upstream's field paths and texts.
 */
import { type ConfigScheme, readConfigDocument } from '../../../apimachinery/codec/config-document.ts';
import { type FieldError, invalid, notSupported } from '../../../apimachinery/field.ts';

export type LimitType = 'Server' | 'Namespace' | 'User' | 'SourceAndObject';

/** Upstream's declaration order; its validation lists them from a Go map, in no fixed order. */
export const LIMIT_TYPES: readonly LimitType[] = ['Server', 'Namespace', 'User', 'SourceAndObject'];

export interface Limit {
  /** As written: validation refuses anything but the four types. */
  type: string;
  qps: number;
  burst: number;
  /** 0: the default ({@link DEFAULT_CACHE_SIZE}); ignored for Server. */
  cacheSize: number;
}

export interface Configuration {
  /** null when the document has no `limits` (Go's nil slice), which validation prints as `null`. */
  limits: Limit[] | null;
}

/** Buckets kept per limit type when `cacheSize` is unset (upstream's defaultCacheSize). */
export const DEFAULT_CACHE_SIZE = 4096;

export const CONFIG_KIND = 'Configuration';
export const CONFIG_API_VERSIONS = ['eventratelimit.admission.k8s.io/v1alpha1', 'eventratelimit.admission.cluster.io/v1alpha1'];

const SCHEME: ConfigScheme = {
  // The plugin's own scheme, created at line 31 of upstream's config.go.
  name: 'pkg/admission/eventratelimit/config.go:31',
  registered: (apiVersion, kind) => kind === CONFIG_KIND && CONFIG_API_VERSIONS.includes(apiVersion),
};

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Go's encoding/json type error for a value that does not fit its field. */
function typeError(v: unknown, where: string, goType: string, numericTarget: boolean): Error {
  const what = Array.isArray(v) ? 'array' : typeof v === 'number' ? (numericTarget ? `number ${v}` : 'number') : typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'string' : 'object';
  return new Error(`json: cannot unmarshal ${what} into Go struct field ${where} of type ${goType}`);
}

function int32(v: unknown, field: string): number {
  if (v === null || v === undefined) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) throw typeError(v, `Limit.limits.${field}`, 'int32', true);
  return v;
}

/** Reads the plugin's configuration (YAML or JSON); throws Error with the decoder's text. */
export function decodeConfiguration(data: string): Configuration {
  const doc = readConfigDocument(data, SCHEME);
  const raw = doc.value.limits;
  if (raw === null || raw === undefined) return { limits: null };
  if (!Array.isArray(raw)) throw typeError(raw, 'Configuration.limits', '[]v1alpha1.Limit', false);
  const limits = raw.map((item): Limit => {
    if (item === null || item === undefined) return { type: '', qps: 0, burst: 0, cacheSize: 0 };
    if (typeof item !== 'object' || Array.isArray(item)) throw typeError(item, 'Configuration.limits', 'v1alpha1.Limit', false);
    const o = item as Record<string, unknown>;
    if (o.type !== undefined && o.type !== null && typeof o.type !== 'string') throw typeError(o.type, 'Limit.limits.type', 'v1alpha1.LimitType', false);
    return { type: (o.type as string | undefined) ?? '', qps: int32(o.qps, 'qps'), burst: int32(o.burst, 'burst'), cacheSize: int32(o.cacheSize, 'cacheSize') };
  });
  return { limits };
}

/** Upstream's ValidateConfiguration: the errors in its order (type, burst, qps, cacheSize per limit). */
export function validateConfiguration(c: Configuration): FieldError[] {
  const errs: FieldError[] = [];
  const limits = c.limits ?? [];
  if (limits.length === 0) errs.push(invalid('limits', c.limits, 'must not be empty'));
  limits.forEach((l, i) => {
    const at = `limits[${i}]`;
    if (!(LIMIT_TYPES as readonly string[]).includes(l.type)) errs.push(notSupported(`${at}.type`, l.type, [...LIMIT_TYPES]));
    if (l.burst <= 0) errs.push(invalid(`${at}.burst`, l.burst, 'must be positive'));
    if (l.qps <= 0) errs.push(invalid(`${at}.qps`, l.qps, 'must be positive'));
    if (l.type !== 'Server' && l.cacheSize < 0) errs.push(invalid(`${at}.cacheSize`, l.cacheSize, 'must not be negative'));
  });
  return errs;
}
