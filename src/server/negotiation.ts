/**
 * Content negotiation as apiserver's pkg/endpoints/handlers/negotiation (negotiate.go) with goautoneg's Accept
 * parser, plus the request-side checks (Content-Type, patch types, Table includeObject).
 *
 * We serve JSON and YAML only (no protobuf, no CBOR), so a 406 lists `application/json, application/yaml`
 * (watch: `application/json;stream=watch`) rather than upstream's list with protobuf: a client told protobuf is
 * acceptable would retry with a type we then refuse. Same rule for 415 (README decision 9).
 */
import { PROTOBUF_MEDIA_TYPE } from '../apimachinery/codec/protobuf.ts';
import { newBadRequest, newNotAcceptable, newUnsupportedMediaType } from '../apimachinery/errors.ts';
import { invalid } from '../apimachinery/field.ts';
import { goParseBool } from '../apimachinery/strconv.ts';
import { parseAccept, parseMediaType } from '../util/media-type.ts';

export type OutputMediaType = 'application/json' | 'application/yaml';

export interface Negotiated {
  mediaType: OutputMediaType;
  /** A conversion asked for with `as=`; absent for the plain resource. */
  as?: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  /** apiVersion of the conversion target, as the client asked: `meta.k8s.io/v1`, `meta.cluster.io/v1beta1`, ... */
  asApiVersion?: string;
  /** Indent the JSON output. Always false for YAML and for streams. */
  pretty: boolean;
}

export const OUTPUT_MEDIA_TYPES: readonly OutputMediaType[] = ['application/json', 'application/yaml'];
export const STREAM_MEDIA_TYPES: readonly string[] = ['application/json;stream=watch'];
export const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

/** Groups whose Table / PartialObjectMetadata we produce: the wire name clients hard-code and our spelling. */
const META_GROUPS = new Set(['meta.k8s.io', 'meta.cluster.io']);
const META_VERSIONS = new Set(['v1', 'v1beta1']);
const EMPTY_GVK = { group: '', version: '', kind: '' };

interface Serializer {
  type: string;
  subType: string;
  mediaType: OutputMediaType;
  streams: boolean;
}

// Order matters: an empty Accept or `*/*` picks the first.
const SERIALIZERS: Serializer[] = [
  { type: 'application', subType: 'json', mediaType: 'application/json', streams: true },
  { type: 'application', subType: 'yaml', mediaType: 'application/yaml', streams: false },
];

/**
 * Picks the response media type. `stream: true` for watch responses: the first acceptable clause must then be
 * JSON (upstream negotiates twice and does not look past a YAML match). Throws 406 StatusErrors.
 */
export function negotiateOutput(
  accept: string | undefined,
  opts: { stream: boolean; userAgent?: string; prettyParam?: string | null },
): Negotiated {
  const chosen = negotiateClause(accept ?? '');
  if (!chosen) throw newNotAcceptable([...OUTPUT_MEDIA_TYPES]);
  if (opts.stream && !chosen.serializer.streams) throw newNotAcceptable([...STREAM_MEDIA_TYPES]);
  const out: Negotiated = { mediaType: chosen.serializer.mediaType, pretty: false };
  if (chosen.convert) {
    out.as = chosen.convert.kind as NonNullable<Negotiated['as']>;
    out.asApiVersion = `${chosen.convert.group}/${chosen.convert.version}`;
  }
  // Only the JSON serializer has a pretty form; stream serializers ignore it.
  if (!opts.stream && out.mediaType === 'application/json') {
    out.pretty = chosen.pretty || isPrettyPrint(opts.prettyParam ?? null, opts.userAgent ?? '');
  }
  return out;
}

interface Chosen {
  serializer: Serializer;
  pretty: boolean;
  convert?: { group: string; version: string; kind: string };
}

function negotiateClause(header: string): Chosen | null {
  if (header.length === 0) return { serializer: SERIALIZERS[0]!, pretty: false };
  for (const clause of parseAccept(header)) {
    for (const s of SERIALIZERS) {
      const matches =
        (clause.type === s.type && (clause.subType === s.subType || clause.subType === '*')) ||
        (clause.type === '*' && clause.subType === '*');
      if (!matches) continue;
      const chosen = acceptOptions(clause.params, s);
      if (chosen) return chosen;
    }
  }
  return null;
}

/** negotiate.go acceptMediaTypeOptions with the RequestScope endpoint restrictions. */
function acceptOptions(params: Map<string, string>, s: Serializer): Chosen | null {
  const chosen: Chosen = { serializer: s, pretty: false };
  let convert: Chosen['convert'];
  for (const [k, v] of params) {
    switch (k) {
      case 'as':
        convert = { ...(convert ?? EMPTY_GVK), kind: v };
        break;
      case 'g':
        convert = { ...(convert ?? EMPTY_GVK), group: v };
        break;
      case 'v':
        convert = { ...(convert ?? EMPTY_GVK), version: v };
        break;
      case 'stream':
        if (v.length > 0 && (!s.streams || v !== 'watch')) return null;
        break;
      case 'sv':
        // The only server version an endpoint allows is the meta version, v1.
        if (v.length > 0 && v !== 'v1') return null;
        break;
      case 'pretty':
        chosen.pretty = v === '1';
        break;
      default: // export, profile and unknown parameters do not restrict
    }
  }
  if (convert) {
    if (!META_GROUPS.has(convert.group) || !META_VERSIONS.has(convert.version)) return null;
    // Table renders to JSON and YAML only (both ours); PartialObjectMetadata(List) to any type.
    if (convert.kind !== 'Table' && convert.kind !== 'PartialObjectMetadata' && convert.kind !== 'PartialObjectMetadataList') return null;
    chosen.convert = convert;
  }
  return chosen;
}

/**
 * A non-empty `pretty` query parameter decides (upstream ignores the ParseBool error, so unparsable is false);
 * otherwise browsers, curl and wget get indented JSON.
 */
function isPrettyPrint(prettyParam: string | null, userAgent: string): boolean {
  if (prettyParam) {
    try {
      return goParseBool(prettyParam);
    } catch {
      return false;
    }
  }
  return userAgent.startsWith('curl') || userAgent.startsWith('Wget') || userAgent.startsWith('Mozilla/5.0');
}

/**
 * The decoder for a request body: empty Content-Type means JSON; parameters (`;charset=`) are ignored; a
 * malformed or unknown type is a 415 listing what we decode.
 */
export function requestBodyType(contentType: string | undefined, protobuf = false): 'application/json' | 'application/yaml' | typeof PROTOBUF_MEDIA_TYPE {
  if (!contentType) return 'application/json';
  const base = parseMediaType(contentType);
  if (base === 'application/json' || base === 'application/yaml') return base;
  // Only kinds with protobuf messages take protobuf bodies (kubectl sends some typed requests so).
  if (protobuf && base === PROTOBUF_MEDIA_TYPE) return base;
  throw newUnsupportedMediaType(protobuf ? ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE] : ['application/json', 'application/yaml']);
}

/**
 * The patch type of a PATCH request. As upstream, only the part before the first `;` counts and it must match
 * exactly (no case folding, no trimming); anything else is a 415 listing the four patch types.
 */
export function patchType(contentType: string | undefined): 'json' | 'merge' | 'strategic' | 'apply' {
  let ct = contentType ?? '';
  const idx = ct.indexOf(';');
  if (idx > 0) ct = ct.slice(0, idx);
  switch (ct) {
    case 'application/json-patch+json':
      return 'json';
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
      return 'apply';
    default:
      throw newUnsupportedMediaType([...PATCH_MEDIA_TYPES]);
  }
}

/** The Table `includeObject` option (TableOptions validation); empty or absent means Metadata. */
export function parseIncludeObject(v: string | null): 'None' | 'Metadata' | 'Object' {
  if (v === null || v === '' || v === 'Metadata') return 'Metadata';
  if (v === 'None' || v === 'Object') return v;
  const err = invalid('includeObject', v, "must be 'Metadata', 'Object', 'None', or empty");
  throw newBadRequest(`Unable to convert to Table as requested: ${err.text()}`);
}
