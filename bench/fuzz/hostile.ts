/**
 * Hostile requests for the fuzz runner (`npm run fuzz`, bench/fuzz/run.ts) and the short run in `npm test`
 * (test/fuzz.test.ts), as fast-check arbitraries, and the judge of every answer (`problemWith`).
 *
 * Coverage: every path the server routes — the 11 operations of events.cluster.io/v1 and the same 11 of the core/v1
 * Events view, discovery (legacy and aggregated v2 / v2beta1), OpenAPI v2 (JSON, protobuf) and v3 (index, documents
 * by hash), /healthz /livez /readyz with their query parameters and sub-checks, /version, the core namespace probe,
 * and unknown, `..` and percent-encoded paths — with every verb (HEAD, OPTIONS, TRACE and made-up ones), every query
 * parameter the server reads with plausible and hostile values, content types and Accept headers, sometimes without
 * a client certificate. Bodies are mutated from valid Events: malformed, truncated, huge (to just over the 3 MiB
 * limit), deeply nested JSON and YAML, wrong types, unicode edge cases, duplicate keys, YAML anchors, aliases and
 * bombs, the four patch types and apply, DeleteOptions.
 *
 * Generated requests may carry the placeholders `$HASH_EVENTS`, `$HASH_CORE`, `$ETAG_V2`, `$ETAG_APIS` in their
 * path or headers: the sender replaces them with the server's current OpenAPI v3 hashes and ETags (`fillIn`), so
 * cache-validating requests also hit.
 */
import fc from 'fast-check';
import { parse as parseYAML, stringify as toYAML } from 'yaml';
import type { RawResult } from '../../test/helpers/client.ts';
import { sampleCoreEvent, sampleEvent } from '../../test/helpers/samples.ts';

export const BASE = '/apis/events.cluster.io/v1';
export const CORE_BASE = '/api/v1';
/** Namespace and names the fuzz run (re)creates now and then, so reads, updates and deletes also reach real objects. */
export const FUZZ_NS = 'fuzz';
export const FUZZ_NAMES = ['ev-0', 'ev-1', 'ev-2', 'ev-3', 'ev-4'];

export interface FuzzRequest {
  /** What the request exercises (`create`, `core:list`, `discovery`, `openapi-v3`, `health`, …): the report's rows. */
  op: string;
  /** Sent over HTTP/2 rather than HTTP/1.1. */
  h2: boolean;
  /** Sent without the client certificate. */
  anon?: boolean;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** The answer as the senders (test/helpers/client.ts rawRequest / h2Request) return it. */
export type Answer = RawResult;

export interface HostileOptions {
  /**
   * Deeply nested YAML bodies (issue 8: they crashed the server through the YAML parser's recursion). On by
   * default; off only to exercise the rest while that fix is pending.
   */
  deepYaml?: boolean;
}

/** A valid events.cluster.io/v1 Event: what the body mutations start from. */
export const validEventObject = (name: string, ns = FUZZ_NS, extra: Record<string, unknown> = {}) => sampleEvent(name, ns, extra);

/** A valid core/v1 Event (the `/api/v1` view of the same objects). */
export const validCoreEventObject = (name: string, ns = FUZZ_NS, extra: Record<string, unknown> = {}) => sampleCoreEvent(name, ns, extra);

// ---------------------------------------------------------------------------------------------------------------
// Strings, parameters, headers

/** Strings that break parsers, selectors, integer conversions and path handling. */
const NASTY = [
  '', ' ', '\u0000', 'a\u0000b', '..', '.', '/', '\\', '"', "'", ',', '=', '==', '!=', '!', '(', ')', 'in', 'notin',
  '%', '%00', '%zz', '\ud800', '\udc00x', '\uffff', '\ufffe', '\ufeff', '\u202e', '\u200d', '\u0301', 'e\u0301', '🎉', '👩‍👩‍👧', 'é', 'ä'.repeat(200),
  'a'.repeat(64), 'a'.repeat(300), 'x'.repeat(70_000), '0', '-0', '-1', '1', '00', '+1', '1e3', '0x10', '1.5', 'NaN', 'Infinity',
  '9223372036854775807', '9223372036854775808', '18446744073709551615', '18446744073709551616', '9'.repeat(40), 'true',
  'false', 'null', 'undefined', '[]', '{}', '{"a":1}', '${jndi:ldap://x/a}', "' OR 1=1 --", '<script>alert(1)</script>',
  'a\r\nb: c', '__proto__', 'constructor', 'hasOwnProperty', '\u2028', '\u0085',
];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?$/) },
);

/** Unicode edge cases for string fields: lone surrogates, NUL, BOM, bidi overrides, non-characters, combining marks. */
const UNICODE_EDGES = [
  '\ud800', '\udfff', 'a\ud800b', '\udc00\ud800', '\u0000', 'x\u0000y', '\ufeff', '\ufeffname', '\u202eevil\u202c', '\u200f\u200e',
  '\u2066x\u2069', '\uffff', '\ufffe', '\u{10ffff}', '\u{1f600}', '👩‍👩‍👧‍👦', 'e\u0301\u0301\u0301', 'Z\u0351\u0352\u0353\u0354', '\u00a0', '\u3000',
  'İ', 'ß', 'ﬀ', '\u0085', '\u2028\u2029', '\r', '\t', '\u001b[31m', 'ｅｖ－１',
];

const goodContinue = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: 'ev-1\u0000' })).toString('base64url');

/** Valid and hostile shard selectors (the alpha `shardSelector`; a 400 while the feature gate is off). */
export const SHARD_SELECTORS = [
  "shardRange(object.metadata.uid, '0x0', '0x10000000000000000')", "shardRange(object.metadata.namespace, '0x8000000000000000', '0x0')",
  'shardRange(', "shardRange(object.metadata.name, '1', '2')", "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
  "shardRange(object.metadata.uid, '0x0', '0x8000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
  "shardRange(object.metadata.uid, '0x', '0xzz')", "shardRange(object.metadata.uid, '-0x1', '0x1')", 'shardRange()'.repeat(500), "shardRange(object.metadata.uid, '0x0', '0x" + 'f'.repeat(1000) + "')",
];
export const LABEL_SELECTORS = [
  'app=demo', 'app in (demo,x)', '!app', 'app notin ()', 'app=', 'a=b,', '(((', 'app=' + 'x'.repeat(70), 'app>1', 'app', 'fuzz=merged',
  'app!=demo', 'app==demo', 'a in (' + Array.from({ length: 300 }, (_, i) => `v${i}`).join(',') + ')', ',,,', '=', '!', 'app in (demo', 'a b',
  'x/y=z', 'example.com/app=demo', '-a=b', 'a=-', 'a.' + 'b'.repeat(300) + '=c', 'app=demo,'.repeat(200),
];
export const FIELD_SELECTORS = [
  'metadata.name=ev-1', 'type=Warning', 'regarding.name!=web-1', 'reason=Started,type=Normal', 'spec.x=1', 'metadata.name', 'a==b==c',
  'metadata.name in (a)', 'metadata.namespace=fuzz', 'involvedObject.name=web-1', 'source=kubelet', 'reportingController=example.com/controller',
  'metadata.name=', 'metadata.name==ev-1', 'metadata.name!=', ',', 'type=Normal,'.repeat(300), 'metadata.name=\\', 'metadata.name=a\\,b',
];

/** Plausible values per query parameter the server reads (and an unknown one). */
const PARAM_VALUES: Record<string, string[]> = {
  pretty: ['true', 'false', '1', '0'],
  dryRun: ['All', 'all', 'None', ''],
  fieldManager: ['fuzzer', 'kubectl-client-side-apply', 'a'.repeat(129), 'tab\there'],
  fieldValidation: ['Ignore', 'Warn', 'Strict', 'strict', ''],
  force: ['true', 'false', ''],
  gracePeriodSeconds: ['0', '30', '-1', '-9223372036854775808'],
  ignoreStoreReadErrorWithClusterBreakingPotential: ['true', 'false'],
  orphanDependents: ['true', 'false'],
  propagationPolicy: ['Orphan', 'Background', 'Foreground', 'orphan'],
  continue: [goodContinue, 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ', 'not-base64!', Buffer.from('{"v":"meta.k8s.io/v1","rv":-5,"start":"/../../"}').toString('base64')],
  fieldSelector: FIELD_SELECTORS,
  labelSelector: LABEL_SELECTORS,
  limit: ['1', '2', '0', '-5', '500', '9223372036854775807'],
  resourceVersion: ['', '0', '1', '2', '-1', 'abc', '999999999'],
  resourceVersionMatch: ['NotOlderThan', 'Exact', 'exact', ''],
  sendInitialEvents: ['true', 'false'],
  shardSelector: SHARD_SELECTORS,
  timeoutSeconds: ['1', '0', '-1', '99999999999'],
  timeout: ['1s', '0s', '-1s', '100ms', '1h', 'abc', '1e9h', '9223372036854775807ns'],
  allowWatchBookmarks: ['true', 'false'],
  watch: ['true', 'false', '1', '0', 'yes'],
  includeObject: ['None', 'Object', 'Metadata', 'Everything'],
  unknownParam: ['1'],
};

const queryParam: fc.Arbitrary<[string, string]> = fc
  .constantFrom(...Object.keys(PARAM_VALUES))
  .chain((name) => fc.tuple(fc.constant(name), fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PARAM_VALUES[name]!) }, { weight: 2, arbitrary: hostileString })));

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'application/yaml', 'application/json-patch+json',
  'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml',
  'application/apply-patch+cbor', 'application/cbor', 'application/vnd.kubernetes.protobuf', 'text/plain',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', '*/*', ';;;', 'application/',
  'application/yaml; charset=utf-16', 'APPLICATION/JSON', 'application/json;;', 'application/json; a="b',
];
const ACCEPTS = [
  'application/json', 'application/yaml', '*/*', 'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', 'application/yaml;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/json;as=Banana;v=v1;g=meta.k8s.io', 'application/vnd.kubernetes.protobuf', 'application/json;stream=watch',
  'text/html', 'application/json;q=0', ',,', 'application/json;q=abc', 'application/yaml;as=Table;v=v1;g=meta.k8s.io',
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'application/*', 'text/*',
];
const DISCOVERY_ACCEPTS = [
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json',
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer',
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList', 'application/json;g=apidiscovery.k8s.io;as=APIGroupDiscoveryList',
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0, application/json', 'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
];
const OPENAPI_ACCEPTS = [
  'application/json', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf;q=0',
  'application/yaml', 'text/plain', '*/*', 'application/*', 'application/json;q=0', 'application/json;q=0, */*;q=0',
];
const IF_NONE_MATCH = ['$ETAG_V2', '$ETAG_APIS', '"$HASH_EVENTS"', '*', '"abc"', 'W/"$ETAG_V2"', '"x", $ETAG_V2', '', '"' + 'f'.repeat(5000) + '"'];

/** Methods: the ones the paths serve, the ones they do not, and made-up or odd ones. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const ODD_METHODS = ['TRACE', 'OPTIONS', 'HEAD', 'PROPFIND', 'MKCOL', 'PURGE', 'LINK', 'FOO', 'get', 'Delete', 'M-SEARCH', 'X'.repeat(40)];

/** Node refuses to send header values with control or non-Latin-1 characters; those never reach a server. */
function isHeaderSafe(s: string): boolean {
  return /^[\x20-\x7e]*$/.test(s);
}

/** A path parameter: mostly real, sometimes hostile (percent-encoded, or raw when it is a safe ASCII trick). */
const pathParam = (real: string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...real) },
    { weight: 2, arbitrary: hostileString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))) },
    { weight: 1, arbitrary: fc.constantFrom('%zz', '%00', '%2F', '%2e%2e', '..', '.', 'a%2Fb', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '%EF%BB%BF', '%E2%80%AE', 'a'.repeat(254), '%25') },
  );

/** `arb` with probability `p`, else null (fc.option's `freq` only sets the chance of null, as 1/freq). */
function sometimes<T>(arb: fc.Arbitrary<T>, p: number): fc.Arbitrary<T | null> {
  const w = Math.round(p * 100);
  return fc.oneof({ weight: 100 - w, arbitrary: fc.constant(null) }, { weight: w, arbitrary: arb });
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies

type Body = { bytes: Buffer; type: string } | undefined;
const json = (v: unknown, type = 'application/json'): Body => ({ bytes: Buffer.from(JSON.stringify(v) ?? 'undefined'), type });
const text = (s: string, type: string): Body => ({ bytes: Buffer.from(s), type });

const EVENT_FIELDS = [
  'metadata', 'metadata.name', 'metadata.namespace', 'metadata.labels', 'metadata.annotations', 'metadata.uid',
  'metadata.resourceVersion', 'metadata.generateName', 'metadata.managedFields', 'metadata.creationTimestamp',
  'metadata.deletionTimestamp', 'metadata.finalizers', 'metadata.ownerReferences', 'metadata.labels.app', 'eventTime', 'series',
  'series.count', 'series.lastObservedTime', 'reportingController', 'reportingInstance', 'action', 'reason', 'type',
  'regarding', 'regarding.kind', 'regarding.namespace', 'related', 'note', 'deprecatedSource', 'deprecatedFirstTimestamp',
  'deprecatedLastTimestamp', 'deprecatedCount', 'apiVersion', 'kind', 'unknownField',
];
const CORE_EVENT_FIELDS = [
  'metadata', 'metadata.name', 'metadata.namespace', 'metadata.labels', 'involvedObject', 'involvedObject.name', 'involvedObject.namespace',
  'reason', 'message', 'source', 'source.component', 'firstTimestamp', 'lastTimestamp', 'count', 'type', 'eventTime', 'series', 'action',
  'related', 'reportingComponent', 'reportingInstance', 'apiVersion', 'kind', 'unknownField',
];
/** Fields whose value is a string in a valid Event: where the unicode edge cases go. */
const STRING_FIELDS = ['metadata.name', 'metadata.labels.app', 'metadata.annotations.a', 'reason', 'action', 'note', 'reportingController', 'reportingInstance', 'type', 'regarding.name', 'metadata.generateName'];

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  hostileString,
  fc.constantFrom(undefined, null, 1e308, -1, 2 ** 63, 0.5, true, [], {}, [[[]]], { '': '' }, '2026-11-22T10:00:00Z', '2026-13-45T99:99:99.1234567890Z', -0, 2 ** 53 + 1, '1', ['a'], { a: { b: { c: {} } } }),
);

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur: Record<string, unknown> = obj;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  if (value === undefined) delete cur[keys.at(-1)!];
  else cur[keys.at(-1)!] = value;
}

const eventName = fc.constantFrom(...FUZZ_NAMES, 'new-a', 'new-b');
const validEvent = eventName.map((n) => validEventObject(n, FUZZ_NS, { series: { count: 2, lastObservedTime: '2026-11-22T10:00:01.000000Z' } }));
const validCoreEvent = eventName.map((n) => validCoreEventObject(n, FUZZ_NS));
const mutated = (base: fc.Arbitrary<Record<string, unknown>>, fields: string[]) =>
  fc.tuple(base, fc.array(fc.tuple(fc.constantFrom(...fields), wrongValue), { minLength: 1, maxLength: 3 })).map(([ev, edits]) => {
    // Cloned: the wrong values include shared constants ({}, [[[]]]), which a second edit would write into.
    for (const [field, v] of edits) setPath(ev, field, structuredClone(v));
    return ev;
  });
const mutatedEvent = mutated(validEvent, EVENT_FIELDS);
const mutatedCoreEvent = mutated(validCoreEvent, CORE_EVENT_FIELDS);
const unicodeEvent = fc.tuple(fc.oneof(validEvent, validCoreEvent), fc.constantFrom(...STRING_FIELDS), fc.constantFrom(...UNICODE_EDGES), fc.boolean()).map(([ev, field, u, whole]) => {
  setPath(ev, field, whole ? u : `ev-${u}-x`);
  return ev;
});
const anyEvent = fc.oneof(validEvent, validCoreEvent);

/** A valid Event with one key written twice (the second value wins in JSON.parse; upstream's strict decoding warns or refuses). */
const duplicateKeys = fc.tuple(anyEvent, fc.constantFrom('"kind":', '"metadata":', '"name":', '"reason":', '"type":', '"namespace":', '"apiVersion":', '"labels":', '"app":'), fc.constantFrom('"Dup"', '1', 'null', '{}', '[]', '"x"')).map(
  ([ev, key, v]) => JSON.stringify(ev).replace(key, `${key}${v},${key}`),
);

/** Raw bytes spliced into a valid Event's JSON: invalid UTF-8, surrogate halves as CESU-8, overlong forms, NUL, BOM. */
const RAW_BYTES = [[0xff], [0xfe, 0xff], [0xc0, 0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x00], [0xef, 0xbb, 0xbf], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]];
const rawByteEvent = fc.tuple(anyEvent, fc.constantFrom(...RAW_BYTES), fc.nat(), fc.boolean()).map(([ev, bytes, at, inString]) => {
  const s = Buffer.from(JSON.stringify(ev));
  // Inside a string value (after `"note":"`) or at a random offset.
  const anchor = s.indexOf('":"');
  const i = inString && anchor > 0 ? anchor + 3 : at % (s.length + 1);
  return Buffer.concat([s.subarray(0, i), Buffer.from(bytes), s.subarray(i)]);
});

/** Nesting depths around the limits a decoder might have (upstream's JSON decoder stops at 10,000, YAML lower). */
const DEPTHS = [50, 99, 100, 101, 150, 1000, 1200, 5000];
const deepJson = fc
  .tuple(fc.constantFrom(...DEPTHS, 10_001, 200_000), fc.constantFrom('[', '{"a":', '[{"a":'), fc.boolean(), fc.constantFrom('bare', 'note', 'labels', 'managedFields'), anyEvent)
  .map(([depth, open, closed, where, ev]) => {
    const close = open === '[' ? ']' : open === '{"a":' ? '}' : '}]';
    const deep = open.repeat(depth) + '1' + (closed ? close.repeat(depth) : '');
    if (where === 'bare') return deep;
    const s = JSON.stringify(ev);
    if (where === 'note') return s.replace(/"(note|message)":"[^"]*"/, `"$1":${deep}`);
    if (where === 'labels') return s.replace(/"labels":\{[^}]*\}/, `"labels":{"a":${deep}}`);
    return s.replace('"metadata":{', `"metadata":{"managedFields":[{"manager":"m","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":${deep}}],`);
  });

/** Deeply nested YAML: flow `[` and `{`, block indentation, `- - - -`, `? ` keys, and issue 8's unclosed flow with a quoted line break. */
const deepYamlText = fc.tuple(fc.constantFrom(...DEPTHS, 3000), fc.constantFrom('flow-seq', 'flow-seq-open', 'flow-map', 'issue8', 'block-map', 'block-seq', 'dash-line', 'question', 'in-event')).map(([depth, shape]) => {
  switch (shape) {
    case 'flow-seq':
      return '['.repeat(depth) + 'x' + ']'.repeat(depth);
    case 'flow-seq-open':
      return '['.repeat(depth) + 'x';
    case 'flow-map':
      return '{a: '.repeat(depth) + 'x' + '}'.repeat(depth);
    case 'issue8':
      return '['.repeat(depth) + '"x\ny"';
    case 'block-map': {
      const d = Math.min(depth, 2000); // n²/2 bytes: 2000 levels are 2 MB
      return Array.from({ length: d }, (_, i) => ' '.repeat(i) + 'a:').join('\n') + ' x\n';
    }
    case 'block-seq': {
      const d = Math.min(depth, 2000);
      return Array.from({ length: d }, (_, i) => ' '.repeat(i * 2) + '-').join('\n') + ' x\n';
    }
    case 'dash-line':
      return '- '.repeat(depth) + 'x\n';
    case 'question':
      return '? '.repeat(depth) + 'x\n';
    default:
      return toYAML(validEventObject('deep-yaml')) + 'note:\n' + Array.from({ length: Math.min(depth, 1500) }, (_, i) => ' '.repeat(i + 2) + '-').join('\n') + ' x\n';
  }
});

const YAML_BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n';
const LAUGHS = ['lol: &a0 "lol"', ...Array.from({ length: 9 }, (_, i) => `l${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(',')}]`)].join('\n') + '\n';
const YAML_ODDITIES = [
  YAML_BOMB, LAUGHS, '--- \n---\n', 'a: !!binary AAAA\n', '!!python/object:os.system ls\n', '<<: *undefined\n', 'a: b\n  c: d\n', '\t- x',
  'kind: Event\nkind: Event\n', '? [a]\n: b\n', '%YAML 9.9\n---\na: 1\n', 'a: &x\n  b: *x\n', '*a\n', '&a [*a]\n', '!<tag:yaml.org,2002:js/function> "x"\n',
  'metadata: &m {name: x, namespace: fuzz}\nregarding: *m\napiVersion: events.cluster.io/v1\nkind: Event\n', 'base: &b {reason: A}\n<<: *b\n<<: [*b, *b]\n',
  '"\\ud800"\n', 'a: "\\x00"\n', 'a: 0o777\nb: 0x1F\nc: .inf\nd: .nan\ne: ~\nf: 2026-11-22\n', '{a: 1, a: 2}\n', '- !!map {? a: b}\n', '\ufeffkind: Event\n', 'a: |\n  x\n b\n',
  'a: "unterminated\n', "a: 'x''y\n", '[1, 2\n', '{"a": [1, {"b": }]}\n', 'a:\n- b\n -c\n', '...\n...\n', 'a: ' + 'x'.repeat(100_000) + '\n', '---\n'.repeat(2000),
];
const yamlOf = (deepYaml: boolean): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: anyEvent.map((e) => toYAML(e)) },
    { weight: 3, arbitrary: fc.oneof(mutatedEvent, mutatedCoreEvent, unicodeEvent).map((e) => toYAML(e)) },
    { weight: 1, arbitrary: fc.tuple(anyEvent, fc.nat()).map(([e, cut]) => { const s = toYAML(e); return s.slice(0, cut % s.length); }) },
    { weight: 1, arbitrary: anyEvent.map((e) => `${toYAML(e)}reason: Dup\nmetadata:\n  name: dup\n`) },
    { weight: 2, arbitrary: fc.constantFrom(...YAML_ODDITIES) },
    ...(deepYaml ? [{ weight: 3, arbitrary: deepYamlText }] : []),
  );

const jsonPatch = fc.array(
  fc.record({
    op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'), hostileString),
    path: fc.oneof(fc.constantFrom('/note', '/message', '/metadata/name', '/metadata/labels/x', '/~2', '/', '', '/series/count', '/metadata/resourceVersion', '/related/-', '/a/b/c/d', '/metadata/labels/__proto__', '/metadata/managedFields/0'), hostileString),
    from: fc.constantFrom('/note', '/reason', '/nope', '/metadata'),
    value: wrongValue,
  }, { requiredKeys: ['op'] }),
  { maxLength: 4 },
);

const deleteOptions = fc.record(
  {
    kind: fc.constantFrom('DeleteOptions', 'Event', 'Status', ''),
    apiVersion: fc.constantFrom('v1', 'meta.k8s.io/v1', 'events.cluster.io/v1', 'x/y'),
    gracePeriodSeconds: fc.oneof(fc.constantFrom(0, 30, -1, 2 ** 63, 1.5), wrongValue),
    propagationPolicy: fc.oneof(fc.constantFrom('Orphan', 'Background', 'Foreground'), hostileString),
    orphanDependents: fc.oneof(fc.boolean(), wrongValue),
    dryRun: fc.oneof(fc.constant(['All']), fc.constant([]), wrongValue),
    preconditions: fc.oneof(fc.record({ uid: fc.oneof(fc.uuid(), hostileString), resourceVersion: fc.oneof(fc.constantFrom('1', '2', '999999999'), hostileString) }, { requiredKeys: [] }), wrongValue),
  },
  { requiredKeys: [] },
);

/** A hostile request body (as bytes) and its usual content type, before the content type itself is randomized. */
/** Built once per variant: its constants (a 20,000-label Event) cost milliseconds, and bodies are drawn per request. */
const hostileBodies = new Map<boolean, fc.Arbitrary<Body>>();
function hostileBody(deepYaml: boolean): fc.Arbitrary<Body> {
  let arb = hostileBodies.get(deepYaml);
  if (!arb) hostileBodies.set(deepYaml, (arb = buildHostileBody(deepYaml)));
  return arb;
}

function buildHostileBody(deepYaml: boolean): fc.Arbitrary<Body> {
  return fc.oneof(
    { weight: 3, arbitrary: anyEvent.map((e) => json(e)) },
    { weight: 5, arbitrary: fc.oneof(mutatedEvent, mutatedCoreEvent).map((e) => json(e)) },
    { weight: 2, arbitrary: unicodeEvent.map((e) => json(e)) },
    { weight: 2, arbitrary: fc.tuple(anyEvent, fc.nat()).map(([e, cut]) => { const s = JSON.stringify(e); return text(s.slice(0, cut % s.length), 'application/json'); }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((s) => text(s, 'application/json')) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => ({ bytes: Buffer.from(a), type: 'application/json' })) },
    { weight: 2, arbitrary: deepJson.map((s) => text(s, 'application/json')) },
    { weight: 2, arbitrary: duplicateKeys.map((s) => text(s, 'application/json')) },
    { weight: 1, arbitrary: rawByteEvent.map((b) => ({ bytes: b, type: 'application/json' })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(64 * 1024, 1024 * 1024, 3 * 1024 * 1024 - 1024, 3 * 1024 * 1024 + 1).map((n) => json(validEventObject('huge', FUZZ_NS, { note: 'n'.repeat(n) }))),
    },
    { weight: 1, arbitrary: fc.constant(json(validEventObject('huge-labels', FUZZ_NS, { metadata: { name: 'huge-labels', namespace: FUZZ_NS, labels: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, `v${i}`])) } }))) },
    { weight: 1, arbitrary: fc.constantFrom('{"kind":"Event","kind":"Event"}', '{"metadata":{"name":"a"}} trailing', 'NaN', '{"note": "\\ud800"}', '{"note":"\u0000"}', '/* c */ {}', '{"a":1e999999}', '{"series":{"count":1e400}}', '\ufeff{}', '', ' ', 'null', '[]', '"x"', '{"__proto__":{"polluted":1}}', '{"metadata":{"__proto__":{"name":"x"}}}').map((s) => text(s, 'application/json')) },
    { weight: 3, arbitrary: yamlOf(deepYaml).map((s) => text(s, 'application/yaml')) },
    { weight: 2, arbitrary: jsonPatch.map((p) => json(p, 'application/json-patch+json')) },
    { weight: 2, arbitrary: fc.tuple(fc.oneof(mutatedEvent, mutatedCoreEvent, fc.jsonValue({ maxDepth: 3 })), fc.constantFrom('application/merge-patch+json', 'application/strategic-merge-patch+json')).map(([p, type]) => json(p, type)) },
    { weight: 1, arbitrary: fc.tuple(fc.oneof(validEvent, mutatedEvent), fc.constantFrom('application/strategic-merge-patch+json', 'application/merge-patch+json')).map(([e, type]) => json({ ...e, $patch: 'replace', metadata: { $retainKeys: ['name'], $deleteFromPrimitiveList: 'x' } }, type)) },
    { weight: 2, arbitrary: fc.tuple(yamlOf(deepYaml)).map(([y]) => text(y, 'application/apply-patch+yaml')) },
    { weight: 1, arbitrary: deleteOptions.map((d) => json(d)) },
  );
}

/** A body the operation accepts, so that a share of the requests reaches the storage (with the name of the path). */
/** Built once: constructing a stringMatching arbitrary costs milliseconds (78 s of the load's CPU when built per request). */
const createName = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/);

function validBodyFor(op: string, name: string, core: boolean): fc.Arbitrary<Body> {
  const named = (n: string) => (core ? validCoreEventObject(n, FUZZ_NS) : validEventObject(n, FUZZ_NS));
  switch (op) {
    case 'create':
      return createName.chain((n) => fc.constantFrom(json(named(n)), text(toYAML(named(n)), 'application/yaml')));
    case 'replace': // most Event fields are immutable: change a label
      return fc.constant(json({ ...named(name), metadata: { name, namespace: FUZZ_NS, labels: { app: 'demo', fuzz: 'replaced' } } }));
    case 'patch':
      return fc.constantFrom(
        json([{ op: 'add', path: '/metadata/labels/fuzz', value: 'json-patched' }], 'application/json-patch+json'),
        json({ metadata: { labels: { fuzz: 'merged' } } }, 'application/merge-patch+json'),
        json({ metadata: { labels: { fuzz: null } } }, 'application/strategic-merge-patch+json'),
        text(toYAML(named(name)), 'application/apply-patch+yaml'),
      );
    case 'delete':
    case 'deletecollection':
      return fc.constantFrom(json({ kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 }), json({ propagationPolicy: 'Background' }), json({ dryRun: ['All'] }), undefined);
    default:
      return fc.constant(undefined);
  }
}

function bodyFor(op: string, name: string, core: boolean, deepYaml: boolean): fc.Arbitrary<Body> {
  if (op === 'create' || op === 'replace' || op === 'patch') {
    return fc.oneof({ weight: 4, arbitrary: validBodyFor(op, name, core) }, { weight: 5, arbitrary: hostileBody(deepYaml) }, { weight: 1, arbitrary: fc.constant(undefined) });
  }
  if (op === 'delete' || op === 'deletecollection') {
    return fc.oneof({ weight: 4, arbitrary: validBodyFor(op, name, core) }, { weight: 2, arbitrary: deleteOptions.map((d) => json(d)) }, { weight: 2, arbitrary: hostileBody(deepYaml) });
  }
  return fc.oneof({ weight: 6, arbitrary: fc.constant<Body>(undefined) }, { weight: 2, arbitrary: hostileBody(deepYaml) });
}

// ---------------------------------------------------------------------------------------------------------------
// Requests

/** The 11 resource operations: method and path template below a group version. */
const OPERATIONS: { op: string; method: string; template: string }[] = [
  { op: 'create', method: 'POST', template: '/namespaces/{ns}/events' },
  { op: 'patch', method: 'PATCH', template: '/namespaces/{ns}/events/{name}' },
  { op: 'replace', method: 'PUT', template: '/namespaces/{ns}/events/{name}' },
  { op: 'delete', method: 'DELETE', template: '/namespaces/{ns}/events/{name}' },
  { op: 'deletecollection', method: 'DELETE', template: '/namespaces/{ns}/events' },
  { op: 'read', method: 'GET', template: '/namespaces/{ns}/events/{name}' },
  { op: 'list', method: 'GET', template: '/namespaces/{ns}/events' },
  { op: 'list-all', method: 'GET', template: '/events' },
  { op: 'watch-one', method: 'GET', template: '/watch/namespaces/{ns}/events/{name}' },
  { op: 'watch-list', method: 'GET', template: '/watch/namespaces/{ns}/events' },
  { op: 'watch-all', method: 'GET', template: '/watch/events' },
];

function assemble(r: { op: string; h2: boolean; anon: boolean; method: string; path: string; query: [string, string][]; rawQuery: string | null; body: Body; contentType: string | null; accept: string | null; extra?: Record<string, string> }): FuzzRequest {
  const qs = [new URLSearchParams(r.query).toString(), r.rawQuery ?? ''].filter(Boolean).join('&');
  const headers: Record<string, string> = { ...r.extra };
  if (r.body) {
    headers['content-type'] = r.contentType ?? r.body.type;
    headers['content-length'] = String(r.body.bytes.length);
  } else if (r.contentType !== null) headers['content-type'] = r.contentType;
  if (r.accept !== null) headers.accept = r.accept;
  return { op: r.op, h2: r.h2, ...(r.anon ? { anon: true } : {}), method: r.method, path: qs ? `${r.path}?${qs}` : r.path, headers, ...(r.body ? { body: r.body.bytes } : {}) };
}

const contentType = sometimes(fc.oneof(fc.constantFrom(...CONTENT_TYPES), hostileString.filter(isHeaderSafe)), 0.2);
const accept = (extra: string[] = []) => sometimes(fc.oneof(fc.constantFrom(...ACCEPTS, ...extra), hostileString.filter(isHeaderSafe)), 0.25);
const rawQuery = sometimes(fc.constantFrom('&&', '=', 'watch', '%zz=1', 'limit=%00', 'a=%', '?', 'fieldSelector=%FF', 'labelSelector=%E2%80%AE', 'pretty&pretty=false&pretty', 'limit=1&limit=2', 'x='.repeat(300)), 0.1);
const anon = fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });
const method = (usual: string) => fc.oneof({ weight: 80, arbitrary: fc.constant(usual) }, { weight: 14, arbitrary: fc.constantFrom(...METHODS) }, { weight: 6, arbitrary: fc.constantFrom(...ODD_METHODS) });

/** One hostile (or, now and then, valid) request against one of the 11 operations, of events.cluster.io/v1 or core/v1. */
function resourceRequest(deepYaml: boolean): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(fc.constantFrom(...OPERATIONS), fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }), pathParam([...FUZZ_NAMES, 'missing']))
    .chain(([op, core, name]) =>
      fc.record({
        method: method(op.method),
        ns: pathParam([FUZZ_NS, FUZZ_NS, FUZZ_NS, FUZZ_NS, 'default', 'kube-system']),
        query: fc.array(queryParam, { maxLength: 5 }),
        rawQuery,
        body: bodyFor(op.op, name, core, deepYaml),
        contentType,
        accept: accept(),
        h2: fc.boolean(),
        anon,
      }).map((r) =>
        assemble({ ...r, op: `${core ? 'core:' : ''}${op.op}`, path: (core ? CORE_BASE : BASE) + op.template.replace('{ns}', r.ns).replace('{name}', name) }),
      ),
    );
}

/** Everything that is not a resource: discovery, OpenAPI, health, version, the namespace probe, unknown paths. */
const NON_RESOURCE: { op: string; paths: string[]; accepts?: string[]; query?: string[] }[] = [
  { op: 'discovery', paths: ['/api', '/apis', '/api/v1', '/apis/events.cluster.io', '/apis/events.cluster.io/v1', '/api/', '/apis/', '/apis/events.cluster.io/', '/apis/events.cluster.io/v1/'], accepts: DISCOVERY_ACCEPTS },
  { op: 'openapi-v2', paths: ['/openapi/v2', '/swagger.json', '/swagger-2.0.0.pb-v1', '/openapi/v2/'], accepts: OPENAPI_ACCEPTS },
  {
    op: 'openapi-v3',
    paths: ['/openapi/v3', '/openapi/v3/', '/openapi/v3/apis/events.cluster.io/v1', '/openapi/v3/api/v1', '/openapi/v3/apis/events.cluster.io/v1?hash=$HASH_EVENTS', '/openapi/v3/api/v1?hash=$HASH_CORE', '/openapi/v3/apis/events.cluster.io/v1?hash=0', '/openapi/v3/apis/events.cluster.io/v1?hash=', '/openapi/v3/apis/events.cluster.io/v2', '/openapi/v3/apis', '/openapi/v3/api/v1?hash=$HASH_EVENTS&hash=$HASH_CORE'],
    accepts: OPENAPI_ACCEPTS,
  },
  {
    op: 'health',
    paths: ['/healthz', '/livez', '/readyz', '/readyz/sqlite', '/readyz/ping', '/readyz/log', '/readyz/shutdown', '/livez/ping', '/livez/sqlite', '/livez/log', '/healthz/ping', '/healthz/sqlite', '/readyz/nope', '/readyz/', '/livez/ping/x', '/healthz/shutdown'],
    query: ['verbose', 'verbose=false', 'exclude=ping', 'exclude=sqlite&exclude=log', 'exclude=nope&exclude=%00', 'exclude=shutdown&verbose', 'exclude=' + 'x'.repeat(5000), 'exclude=sqlite&exclude=sqlite'],
  },
  { op: 'version', paths: ['/version', '/version/', '/version/x'] },
  { op: 'namespace', paths: ['/api/v1/namespaces/fuzz', '/api/v1/namespaces/default', '/api/v1/namespaces/NOPE', '/api/v1/namespaces/' + 'a'.repeat(64), '/api/v1/namespaces/%00', '/api/v1/namespaces', '/api/v1/namespaces/fuzz/status', '/api/v1/namespaces/fuzz/pods'] },
  {
    op: 'unknown',
    paths: [
      '/', '//', '/metrics', '/apis/events.cluster.io/v2', '/apis/foo', '/apis/foo/v1/bars', '/api/v2', '/apis/events.cluster.io/v1/foos', '/api/v1/pods',
      '/apis/events.cluster.io/v1/namespaces/fuzz/events/ev-1/status', '/api/v1/namespaces/fuzz/events/ev-1/binding', '/apis/events.cluster.io/v1/watch/',
      '/apis/events.cluster.io/v1/watch', '/api/v1/watch', '/api/v1/watch/', '/apis/events.cluster.io/v1/namespaces', '/apis/events.cluster.io/v1/namespaces/',
      '/apis/events.cluster.io/v1/namespaces/fuzz', '/apis/events.cluster.io/v1/namespaces/fuzz/events/ev-1/x/y/z', '/../../etc/passwd', '/apis/%2e%2e/%2e%2e/etc/passwd',
      '/apis/events.cluster.io/v1/namespaces/fuzz/events/%2e%2e', '/apis/events.cluster.io/v1/namespaces/%2e%2e/events', '/apis/events.cluster.io/v1/namespaces/fuzz/events/..',
      '/apis/events.cluster.io/v1/namespaces/fuzz/../fuzz/events', '/api/v1/namespaces/fuzz/events/%2F', '/%zz', '/%00', '/%2e%2e%2f%2e%2e', '/api%2Fv1', '/apis/events.cluster.io%2Fv1',
      '/apis/events.cluster.io/v1/namespaces/fuzz/events/ev-1%00', '/apis/events.cluster.io/v1/namespaces/fuzz/events/ev-1;x=y', '/apis/events.cluster.io/v1/namespaces/fuzz/events#frag',
      '/apis/events.cluster.io/v1/' + 'a/'.repeat(2000), '/' + 'x'.repeat(60_000), '/apis/events.cluster.io/v1/namespaces/fuzz/events/ev-1/', '/API/V1', '/apis/EVENTS.cluster.io/v1',
      '/openapi', '/openapi/v1', '/healthz/', '/livez/../readyz', '/apis/events.cluster.io/v1/watch/namespaces/fuzz/events/ev-1/status', '/apis/events.cluster.io/v1/watch/events/x',
      '/apis/apidiscovery.k8s.io/v2', '/apis/meta.k8s.io/v1', '/api/v1/componentstatuses', '/.well-known/openid-configuration', '/apis/events.cluster.io/v1/events/x',
    ],
  },
];

const hostilePath = fc.oneof(
  hostileString.map((s) => '/' + encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))),
  fc.webPath().filter((p) => /^[\x21-\x7e]*$/.test(p)).map((p) => (p.startsWith('/') ? p : '/' + p)),
  fc.array(fc.constantFrom('api', 'apis', 'v1', 'events.cluster.io', 'namespaces', 'fuzz', 'events', 'ev-1', 'watch', '..', '.', '%2e', '%2F', '', 'openapi', 'v3', 'readyz'), { minLength: 1, maxLength: 9 }).map((a) => '/' + a.join('/')),
);

function nonResourceRequest(deepYaml: boolean): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...NON_RESOURCE).chain((nr) =>
    fc.record({
      path: nr.op === 'unknown' ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...nr.paths) }, { weight: 1, arbitrary: hostilePath }) : fc.constantFrom(...nr.paths),
      method: fc.oneof({ weight: 75, arbitrary: fc.constant('GET') }, { weight: 10, arbitrary: fc.constant('HEAD') }, { weight: 10, arbitrary: fc.constantFrom(...METHODS) }, { weight: 5, arbitrary: fc.constantFrom(...ODD_METHODS) }),
      query: fc.oneof({ weight: 3, arbitrary: fc.constant<[string, string][]>([]) }, { weight: 1, arbitrary: fc.array(queryParam, { maxLength: 3 }) }),
      rawQuery: nr.query ? sometimes(fc.constantFrom(...nr.query), 0.5) : rawQuery,
      body: fc.oneof({ weight: 9, arbitrary: fc.constant<Body>(undefined) }, { weight: 1, arbitrary: hostileBody(deepYaml) }),
      contentType: sometimes(fc.constantFrom(...CONTENT_TYPES), 0.05),
      accept: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: fc.constantFrom(...(nr.accepts ?? ACCEPTS)) }, { weight: 1, arbitrary: accept() }),
      ifNoneMatch: sometimes(fc.constantFrom(...IF_NONE_MATCH), nr.op === 'openapi-v2' || nr.op === 'openapi-v3' || nr.op === 'discovery' ? 0.3 : 0.02),
      h2: fc.boolean(),
      anon,
    }).map((r) => {
      const [path, inlineQuery] = r.path.split('?') as [string, string | undefined];
      const raw = [inlineQuery, r.rawQuery].filter(Boolean).join('&');
      return assemble({ ...r, op: nr.op, path, rawQuery: raw || null, extra: r.ifNoneMatch !== null ? { 'if-none-match': r.ifNoneMatch } : {} });
    }),
  );
}

/** Any request the server may get: mostly resource operations, a quarter everything else. */
export function fuzzRequests(opts: HostileOptions = {}): fc.Arbitrary<FuzzRequest> {
  const deepYaml = opts.deepYaml ?? true;
  return fc.oneof({ weight: 3, arbitrary: resourceRequest(deepYaml) }, { weight: 1, arbitrary: nonResourceRequest(deepYaml) });
}

/** The default mix (deep YAML included). */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fuzzRequests();

/**
 * Issue 8's reproduction: YAML bodies `'['.repeat(n) + '"x\ny"'` for n = 200…3000, POSTed as creates (the sender
 * puts them concurrently on one HTTP/2 connection).
 */
export function issue8Requests(step = 100): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  for (let n = 200; n <= 3000; n += step) {
    const body = Buffer.from('['.repeat(n) + '"x\ny"');
    out.push({ op: 'issue8', h2: true, method: 'POST', path: `${BASE}/namespaces/${FUZZ_NS}/events`, headers: { 'content-type': 'application/yaml', 'content-length': String(body.length) }, body });
  }
  return out;
}

/** Watch paths with hostile and valid selectors, for the long-lived watches kept open during a run. */
export const watchPath: fc.Arbitrary<string> = fc
  .record({
    core: fc.boolean(),
    scope: fc.constantFrom('ns', 'all', 'one'),
    label: sometimes(fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...LABEL_SELECTORS) }, { weight: 1, arbitrary: hostileString }), 0.5),
    field: sometimes(fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...FIELD_SELECTORS) }, { weight: 1, arbitrary: hostileString }), 0.4),
    shard: sometimes(fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...SHARD_SELECTORS) }, { weight: 1, arbitrary: hostileString }), 0.3),
    rv: sometimes(fc.constantFrom('0', '1', '', 'abc', '-1'), 0.3),
    bookmarks: fc.boolean(),
    style: fc.constantFrom('watch-path', 'watch-param'),
    timeoutSeconds: fc.integer({ min: 1, max: 20 }),
  })
  .map((w) => {
    const base = w.core ? CORE_BASE : BASE;
    const res = w.scope === 'ns' ? `/namespaces/${FUZZ_NS}/events` : w.scope === 'all' ? '/events' : `/namespaces/${FUZZ_NS}/events/ev-1`;
    const q = new URLSearchParams();
    if (w.style === 'watch-param' && w.scope !== 'one') q.set('watch', 'true');
    if (w.label !== null) q.set('labelSelector', w.label);
    if (w.field !== null) q.set('fieldSelector', w.field);
    if (w.shard !== null) q.set('shardSelector', w.shard);
    if (w.rv !== null) q.set('resourceVersion', w.rv);
    if (w.bookmarks) q.set('allowWatchBookmarks', 'true');
    q.set('timeoutSeconds', String(w.timeoutSeconds));
    const path = w.style === 'watch-path' || w.scope === 'one' ? `${base}/watch${res}` : `${base}${res}`;
    return `${path}?${q}`;
  });

/** Replaces the `$HASH_*` / `$ETAG_*` placeholders with the server's current values. */
export function fillIn(r: FuzzRequest, values: Record<string, string>): FuzzRequest {
  const sub = (s: string) => (s.includes('$') ? s.replace(/\$(HASH_EVENTS|HASH_CORE|ETAG_V2|ETAG_APIS)/g, (m, k: string) => values[k] ?? m) : s);
  if (!r.path.includes('$') && !Object.values(r.headers).some((v) => v.includes('$'))) return r;
  return { ...r, path: sub(r.path), headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, sub(v)])) };
}

// ---------------------------------------------------------------------------------------------------------------
// Judging answers

/**
 * The one 5xx kept from upstream: a resourceVersion the server has not reached yet is a 504 Timeout after 3 s with
 * Retry-After — not bad input but "not yet", the signal clients retry on.
 */
export const UPSTREAM_5XX: { code: number; reason: string; message: RegExp; onlyWith?: RegExp }[] = [
  { code: 504, reason: 'Timeout', message: /^Timeout: Too large resource version: \d+, current: \d+$/ },
  // The deadline the client itself asked for with `?timeout=` (upstream WithRequestDeadline and the timeout filter
  // answer exactly this): only when the request carried that parameter.
  { code: 504, reason: 'Timeout', message: /^Timeout: request did not complete within the allotted timeout$/, onlyWith: /[?&]timeout=/ },
];

/** The longest a request may take before it counts as hung (the slowest legitimate answer is the 3 s 504 above). */
export const REQUEST_TIMEOUT_MS = 10_000;

export function describeRequest(r: FuzzRequest): string {
  const body = r.body ? ` body(${r.body.length}B)=${JSON.stringify(r.body.subarray(0, 300).toString('utf8'))}` : '';
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, v.length > 200 ? `${v.slice(0, 200)}…(${v.length} chars)` : v]));
  const path = r.path.length > 400 ? `${r.path.slice(0, 400)}…(${r.path.length} chars)` : r.path;
  return `${r.h2 ? 'HTTP/2 ' : ''}${r.anon ? 'anonymous ' : ''}${r.method} ${path} headers=${JSON.stringify(headers)}${body}`;
}

const JSON_TYPE = /^application\/(json|merge-patch\+json|json-patch\+json)/;

/** Parses an answer body by its content type; throws when it is neither valid JSON nor valid YAML. */
export function parseBody(res: Answer): unknown {
  const type = String(res.headers['content-type'] ?? '');
  const text = res.body.toString('utf8');
  if (JSON_TYPE.test(type)) {
    try {
      return JSON.parse(text);
    } catch (e) {
      // A watch answers with a stream of JSON frames, one per line (possibly none).
      if (!text.includes('\n') && text !== '') throw e;
      return text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    }
  }
  // uniqueKeys off: the library checks duplicates pairwise, 20 s for the 20,000-label Event this run stores.
  if (type.startsWith('application/yaml')) return parseYAML(text, { uniqueKeys: false });
  throw new Error(`unexpected content-type ${JSON.stringify(type)}`);
}

/** Content types a 2xx may carry besides JSON and YAML (health checks, the OpenAPI v2 protobuf). */
const OTHER_2XX_TYPES = [/^text\/plain/, /^application\/com\.github\.proto-openapi\.spec\.v2[.@]v1\.0\+protobuf$/];

/** Returns what is wrong with one answer, or undefined when it is acceptable. */
export function problemWith(req: FuzzRequest, res: Answer): string | undefined {
  if (res.timedOut) return `no complete answer within ${REQUEST_TIMEOUT_MS} ms (status ${res.status || 'none'})`;
  if (res.aborted) return `the server broke off the response (status ${res.status})`;
  const hasBody = req.method !== 'HEAD';
  const type = String(res.headers['content-type'] ?? '');
  if (res.status >= 200 && res.status < 300) {
    if (res.cut || !hasBody || res.status === 204) return undefined;
    if (OTHER_2XX_TYPES.some((t) => t.test(type))) return undefined;
    try {
      parseBody(res);
    } catch (e) {
      return `2xx body does not parse: ${(e as Error).message}: ${res.body.subarray(0, 200)}`;
    }
    return undefined;
  }
  // Cache validation (discovery, OpenAPI) and OpenAPI v3's redirect from a stale hash to the current one.
  if (res.status === 304) return req.headers['if-none-match'] !== undefined ? undefined : `304 without If-None-Match`;
  if (res.status === 301) return req.path.startsWith('/openapi/v3/') && String(res.headers.location ?? '').startsWith('/openapi/v3/') ? undefined : `unexpected 301 to ${String(res.headers.location)}`;
  if (res.status < 400 || res.status > 599) return `unexpected status ${res.status}`;
  if (!hasBody) return res.status >= 500 ? `HEAD answered ${res.status}` : undefined;
  // Outside the API prefixes (a `..` path parameter can lead there) upstream answers a plain-text 404.
  const text = res.body.toString();
  if (type.startsWith('text/plain') && res.status === 404 && text === '404 page not found\n') return undefined;
  // Over HTTP/1.1, Node's request parser refuses a method it does not know with a bare 400 and closes the connection
  // before any handler runs (Go's would route it and answer 405); that is the parser's answer, not a handler's.
  if (!req.h2 && res.status === 400 && text === '' && !KNOWN_H1_METHODS.has(req.method)) return undefined;
  let status: any;
  try {
    status = parseBody(res);
  } catch (e) {
    return `error ${res.status} without a Status body: ${(e as Error).message}: ${JSON.stringify(res.body.subarray(0, 200).toString())}`;
  }
  if (status?.kind !== 'Status' || status.apiVersion !== 'v1' || status.status !== 'Failure') return `error ${res.status} body is not a failure Status: ${JSON.stringify(status).slice(0, 300)}`;
  if (status.code !== res.status) return `Status code ${status.code} != HTTP ${res.status}`;
  if (typeof status.message !== 'string' || status.message === '') return `Status ${res.status} without message`;
  if (res.status >= 500) return isUpstream5xx(res.status, status, req.path) ? undefined : `server error ${res.status}: ${JSON.stringify(status)}`;
  if (!status.reason) return `Status ${res.status} without reason: ${JSON.stringify(status)}`;
  return undefined;
}

/** The methods Node's HTTP/1.1 parser (llhttp) knows; anything else never reaches a handler over HTTP/1.1. */
export const KNOWN_H1_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'POST', 'PUT', 'CONNECT', 'OPTIONS', 'TRACE', 'COPY', 'LOCK', 'MKCOL', 'MOVE', 'PROPFIND', 'PROPPATCH', 'SEARCH', 'UNLOCK', 'BIND', 'REBIND', 'UNBIND', 'ACL', 'REPORT', 'MKACTIVITY', 'CHECKOUT', 'MERGE', 'M-SEARCH', 'NOTIFY', 'SUBSCRIBE', 'UNSUBSCRIBE', 'PATCH', 'PURGE', 'MKCALENDAR', 'LINK', 'UNLINK', 'SOURCE', 'QUERY']);

/** True for the documented 5xx (a Status object parsed from the body). */
export function isUpstream5xx(code: number, status: { reason?: string; message?: string } | undefined, path: string): boolean {
  return UPSTREAM_5XX.some((k) => k.code === code && (status?.reason ?? '') === k.reason && k.message.test(status?.message ?? '') && (!k.onlyWith || k.onlyWith.test(path)));
}
