/**
 * Request attributes as apiserver's RequestInfoFactory derives them (pkg/endpoints/request/requestinfo.go): the
 * authorizer, the max-in-flight filter, metrics and the Forbidden message all read them, so verbs and parts follow
 * upstream exactly, including its quirks (namespace subresources, `/watch/` prefix, empty path segments).
 */
import { StatusError } from '../apimachinery/errors.ts';
import { parseFieldSelector } from '../apimachinery/fields/selector.ts';
import { parseBoolParam } from '../apimachinery/query.ts';
import { isGoInt64 } from '../apimachinery/strconv.ts';
import { isPathSegmentName } from '../apimachinery/validation/content.ts';

export interface RequestInfo {
  isResourceRequest: boolean;
  /** The (percent-decoded) URL path. */
  path: string;
  /** Kubernetes verb for resource requests; the lower-case HTTP method otherwise. */
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path parts starting at the resource: resource/name/subresource/... */
  parts: string[];
}

/** A path that looks like a resource request but cannot be parsed (`/api/v1/watch`); upstream answers 500. */
export class RequestInfoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestInfoError';
  }
}

const API_PREFIXES = new Set(['api', 'apis']);
const GROUPLESS_API_PREFIXES = new Set(['api']);
const SPECIAL_VERBS = new Set(['proxy', 'watch']);
const SPECIAL_VERBS_NO_SUBRESOURCES = new Set(['proxy']);
// Lets `/namespaces/<ns>/status` be the namespace's subresource rather than a resource named `status`.
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/**
 * Derives the request attributes. `pathname` must be the percent-decoded path (Go's `URL.Path`); `query` the
 * parsed query string. Throws RequestInfoError for a bare special verb (`/api/v1/watch`); upstream turns that into
 * a plain-text 500 `Internal Server Error: "<uri>": failed to create RequestInfo: <message>`.
 */
export function parseRequestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path: pathname,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };

  let parts = splitPath(pathname);
  if (parts.length < 3 || !API_PREFIXES.has(parts[0]!)) return info;
  const apiPrefix = parts[0]!;
  parts = parts.slice(1);
  let apiGroup = '';
  if (!GROUPLESS_API_PREFIXES.has(apiPrefix)) {
    if (parts.length < 3) return info;
    apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  info.apiPrefix = apiPrefix;
  info.apiGroup = apiGroup;
  info.isResourceRequest = true;
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);

  if (SPECIAL_VERBS.has(parts[0]!)) {
    if (parts.length < 2) {
      const qs = query.toString();
      throw new RequestInfoError(`unable to determine kind and namespace from url, ${pathname}${qs ? `?${qs}` : ''}`);
    }
    info.verb = parts[0]!;
    parts = parts.slice(1);
  } else {
    info.verb = METHOD_VERBS[method] ?? '';
  }

  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
    }
  }
  info.parts = parts;

  if (parts.length >= 3 && !SPECIAL_VERBS_NO_SUBRESOURCES.has(info.verb)) info.subresource = parts[2]!;
  if (parts.length >= 2) info.name = parts[1]!;
  if (parts.length >= 1) info.resource = parts[0]!;

  if (info.name === '' && info.verb === 'get') {
    const opts = decodeListOptions(query);
    info.verb = opts.watch ? 'watch' : 'list';
    if (opts.nameFromFieldSelector !== undefined && isPathSegmentName(opts.nameFromFieldSelector).length === 0) {
      info.name = opts.nameFromFieldSelector;
    }
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}

// strings.Split(strings.Trim(path, "/"), "/"), without the regular expression the hot path paid for.
function splitPath(path: string): string[] {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 47) start++;
  while (end > start && path.charCodeAt(end - 1) === 47) end--;
  return start === end ? [] : path.slice(start, end).split('/');
}

/**
 * For a request target that WHATWG URL parsing leaves as it is, the index of its `?` (the length when there is
 * none); -1 for any other target, which must go through `new URL`. Plain means: starts with one `/`; the path
 * holds only unreserved characters and `/` (no `%` escapes, no empty `//`, no segment starting with `.`, so no
 * dot segments); the query holds only printable ASCII without `#` (URL would percent-encode some of those, and
 * URLSearchParams decodes them back to the same values).
 */
export function plainQueryIndex(raw: string): number {
  const n = raw.length;
  if (n === 0 || raw.charCodeAt(0) !== 47) return -1;
  let i = 1;
  for (; i < n; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || c === 45 || c === 95 || c === 126) continue;
    if (c === 47 || c === 46) {
      if (raw.charCodeAt(i - 1) === 47) return -1; // `//`, or a segment starting with `.`
      continue;
    }
    if (c === 63) break;
    return -1;
  }
  for (let j = i + 1; j < n; j++) {
    const c = raw.charCodeAt(j);
    if (c < 0x21 || c > 0x7e || c === 35) return -1;
  }
  return i;
}

/**
 * The parts of ListOptions decoding that decide the verb and name. As upstream, any decoding error (a bad
 * integer, a malformed field selector) drops all decoded options except `watch`, so the name stays unset.
 * Label-selector syntax errors are not detected here (see report): they only affect the name.
 */
function decodeListOptions(query: URLSearchParams): { watch: boolean; nameFromFieldSelector?: string } {
  const watch = parseBoolParam(query.get('watch')) === true;
  for (const key of ['limit', 'timeoutSeconds']) {
    const v = query.get(key);
    if (v !== null && !isGoInt64(v)) return { watch };
  }
  const fs = query.get('fieldSelector');
  if (fs === null) return { watch };
  const name = fieldSelectorExactMatch(fs, 'metadata.name');
  if (name === null) return { watch }; // parse error
  return name === undefined ? { watch } : { watch, nameFromFieldSelector: name };
}

/**
 * fields.ParseSelector + RequiresExactMatch: the value of the first (in sorted term order) `field=` or `field==`
 * term, undefined when there is none, null when the selector does not parse.
 */
export function fieldSelectorExactMatch(selector: string, field: string): string | null | undefined {
  try {
    return parseFieldSelector(selector).requiresExactMatch(field);
  } catch (e) {
    if (e instanceof StatusError) return null; // the parse errors are 400s; upstream drops them here
    throw e;
  }
}
