/**
 * fast-check arbitraries for hostile requests against the events API: the 11 operations of the spec with random
 * methods, path parameters, query parameters (the spec's list, plus unknown ones) with plausible and hostile values,
 * content types, Accept headers, and bodies (malformed JSON, deep nesting, huge strings, wrong types, unicode, NUL
 * bytes, YAML bombs, patches, valid Events with one field mutated).
 */
import fc from 'fast-check';
import { stringify as toYAML } from 'yaml';
import { sampleEvent } from './server.ts';

export const BASE = '/apis/events.cluster.io/v1';
/** Namespace and names the fuzz test creates up front, so reads, updates and deletes also reach real objects. */
export const FUZZ_NS = 'fuzz';
export const FUZZ_NAMES = ['ev-0', 'ev-1', 'ev-2', 'ev-3', 'ev-4'];

export interface FuzzRequest {
  op: string;
  /** Sent over HTTP/2 rather than HTTP/1.1. */
  h2: boolean;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** The spec's 11 operations: method and path template. */
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

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Strings that break parsers, selectors, integer conversions and path handling. */
const NASTY = [
  '', ' ', '\u0000', 'a\u0000b', '..', '.', '/', '\\', '"', "'", ',', '=', '==', '!=', '!', '(', ')', 'in', 'notin',
  '%', '%00', '%zz', '\ud800', '\uffff', '\u202e', '🎉', 'é', 'ä'.repeat(200), 'a'.repeat(64), 'a'.repeat(300),
  'x'.repeat(70_000), '0', '-0', '-1', '1', '00', '+1', '1e3', '0x10', '1.5', 'NaN', 'Infinity', '9223372036854775807',
  '9223372036854775808', '18446744073709551615', '18446744073709551616', '9'.repeat(40), 'true', 'false', 'null',
  'undefined', '[]', '{}', '{"a":1}', '${jndi:ldap://x/a}', "' OR 1=1 --", '<script>alert(1)</script>', 'a\r\nb: c',
];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?$/) },
);

const goodContinue = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: 'ev-1\u0000' })).toString('base64url');

/** Plausible values per query parameter of the spec (and a few others the server reads). */
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
  fieldSelector: ['metadata.name=ev-1', 'type=Warning', 'regarding.name!=web-1', 'reason=Started,type=Normal', 'spec.x=1', 'metadata.name', 'a==b==c', 'metadata.name in (a)'],
  labelSelector: ['app=demo', 'app in (demo,x)', '!app', 'app notin ()', 'app=', 'a=b,', '(((', 'app=' + 'x'.repeat(70), 'app>1'],
  limit: ['1', '2', '0', '-5', '500', '9223372036854775807'],
  resourceVersion: ['', '0', '1', '2', '-1', 'abc', '999999999'],
  resourceVersionMatch: ['NotOlderThan', 'Exact', 'exact', ''],
  sendInitialEvents: ['true', 'false'],
  shardSelector: ["shardRange(object.metadata.uid, '0x0', '0x10000000000000000')", "shardRange(object.metadata.namespace, '0x8000000000000000', '0x0')", 'shardRange(', "shardRange(object.metadata.name, '1', '2')"],
  timeoutSeconds: ['1', '0', '-1', '99999999999'],
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
];
const ACCEPTS = [
  'application/json', 'application/yaml', '*/*', 'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/json;as=Banana;v=v1;g=meta.k8s.io', 'application/vnd.kubernetes.protobuf', 'application/json;stream=watch',
  'text/html', 'application/json;q=0', ',,', 'application/json;q=abc', 'application/yaml;as=Table;v=v1;g=meta.k8s.io',
];

/** A path parameter: mostly real, sometimes hostile (percent-encoded, or raw when it is a safe ASCII trick). */
const pathParam = (real: string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...real) },
    { weight: 2, arbitrary: hostileString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))) },
    { weight: 1, arbitrary: fc.constantFrom('%zz', '%00', '%2F', '%2e%2e', '..', '.', 'a%2Fb', '%E0%A4%A', '%C0%AF') },
  );

const eventFields = [
  'metadata', 'metadata.name', 'metadata.namespace', 'metadata.labels', 'metadata.annotations', 'metadata.uid',
  'metadata.resourceVersion', 'metadata.generateName', 'metadata.managedFields', 'metadata.creationTimestamp',
  'metadata.deletionTimestamp', 'metadata.finalizers', 'metadata.ownerReferences', 'eventTime', 'series',
  'series.count', 'series.lastObservedTime', 'reportingController', 'reportingInstance', 'action', 'reason', 'type',
  'regarding', 'regarding.kind', 'regarding.namespace', 'related', 'note', 'deprecatedSource', 'deprecatedFirstTimestamp',
  'deprecatedLastTimestamp', 'deprecatedCount', 'apiVersion', 'kind', 'unknownField',
];

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  hostileString,
  fc.constantFrom(undefined, null, 1e308, -1, 2 ** 63, 0.5, true, [], {}, [[[]]], { '': '' }, '2026-11-22T10:00:00Z', '2026-13-45T99:99:99.1234567890Z'),
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

const validEvent = fc.constantFrom(...FUZZ_NAMES, 'new-a', 'new-b').map((n) => sampleEvent(n, FUZZ_NS, { series: { count: 2, lastObservedTime: '2026-11-22T10:00:01.000000Z' } }));
const mutatedEvent = fc.tuple(validEvent, fc.constantFrom(...eventFields), wrongValue).map(([ev, field, v]) => {
  setPath(ev, field, v);
  return ev;
});

const deepNesting = fc.tuple(fc.constantFrom(64, 1000, 10_001, 200_000), fc.constantFrom('[', '{"a":'), fc.boolean()).map(([depth, open, closed]) => {
  const close = open === '[' ? ']' : '}';
  return open.repeat(depth) + '1' + (closed ? close.repeat(depth) : '');
});

const YAML_BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n';
const yamlBody = fc.oneof(
  validEvent.map((e) => toYAML(e)),
  mutatedEvent.map((e) => toYAML(e)),
  fc.constantFrom(YAML_BOMB, '--- \n---\n', 'a: !!binary AAAA\n', '!!python/object:os.system ls\n', '<<: *undefined\n', 'a: b\n  c: d\n', '\t- x', 'kind: Event\nkind: Event\n', '? [a]\n: b\n', '%YAML 9.9\n---\na: 1\n', 'a: &x\n  b: *x\n'),
);

const jsonPatch = fc.array(
  fc.record({
    op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'), hostileString),
    path: fc.oneof(fc.constantFrom('/note', '/metadata/name', '/metadata/labels/x', '/~2', '/', '', '/series/count', '/metadata/resourceVersion', '/related/-', '/a/b/c/d'), hostileString),
    from: fc.constantFrom('/note', '/reason', '/nope'),
    value: wrongValue,
  }, { requiredKeys: ['op'] }),
  { maxLength: 4 },
);

type Body = { bytes: Buffer; type: string } | undefined;

/** A hostile request body (as bytes) and its usual content type, before the content type itself is randomized. */
const hostileBody: fc.Arbitrary<Body> = fc.oneof(
  { weight: 3, arbitrary: validEvent.map((e) => ({ bytes: Buffer.from(JSON.stringify(e)), type: 'application/json' })) },
  { weight: 4, arbitrary: mutatedEvent.map((e) => ({ bytes: Buffer.from(JSON.stringify(e) ?? 'undefined'), type: 'application/json' })) },
  { weight: 2, arbitrary: fc.tuple(validEvent, fc.nat()).map(([e, cut]) => { const s = JSON.stringify(e); return { bytes: Buffer.from(s.slice(0, cut % s.length)), type: 'application/json' }; }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((s) => ({ bytes: Buffer.from(s), type: 'application/json' })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => ({ bytes: Buffer.from(a), type: 'application/json' })) },
  { weight: 1, arbitrary: deepNesting.map((s) => ({ bytes: Buffer.from(s), type: 'application/json' })) },
  { weight: 1, arbitrary: fc.constantFrom(64 * 1024, 1024 * 1024, 3 * 1024 * 1024 + 1).map((n) => ({ bytes: Buffer.from(JSON.stringify(sampleEvent('huge', FUZZ_NS, { note: 'n'.repeat(n) }))), type: 'application/json' })) },
  { weight: 1, arbitrary: fc.constantFrom('{"kind":"Event","kind":"Event"}', '{"metadata":{"name":"a"}} trailing', 'NaN', '{"note": "\\ud800"}', '{"note":"\u0000"}', '/* c */ {}', '{"a":1e999999}', '{"series":{"count":1e400}}', '\ufeff{}').map((s) => ({ bytes: Buffer.from(s), type: 'application/json' })) },
  { weight: 1, arbitrary: fc.constant({ bytes: Buffer.concat([Buffer.from('{"metadata":{"name":"'), Buffer.from([0xff, 0xfe, 0xc0, 0x80]), Buffer.from('"}}')]), type: 'application/json' }) },
  { weight: 2, arbitrary: yamlBody.map((s) => ({ bytes: Buffer.from(s), type: 'application/yaml' })) },
  { weight: 2, arbitrary: jsonPatch.map((p) => ({ bytes: Buffer.from(JSON.stringify(p)), type: 'application/json-patch+json' })) },
  { weight: 2, arbitrary: fc.tuple(fc.oneof(mutatedEvent, fc.jsonValue({ maxDepth: 3 })), fc.constantFrom('application/merge-patch+json', 'application/strategic-merge-patch+json')).map(([p, type]) => ({ bytes: Buffer.from(JSON.stringify(p) ?? 'null'), type })) },
  { weight: 1, arbitrary: fc.oneof(validEvent, mutatedEvent).map((e) => ({ bytes: Buffer.from(toYAML(e)), type: 'application/apply-patch+yaml' })) },
);

const json = (v: unknown, type = 'application/json'): Body => ({ bytes: Buffer.from(JSON.stringify(v)), type });

/** A body the operation accepts, so that a share of the requests reaches the storage (with the name of the path). */
function validBodyFor(op: string, name: string): fc.Arbitrary<Body> {
  const named = (n: string) => sampleEvent(n, FUZZ_NS);
  switch (op) {
    case 'create':
      return fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/).chain((n) => fc.constantFrom(json(named(n)), { bytes: Buffer.from(toYAML(named(n))), type: 'application/yaml' }));
    case 'replace': // most Event fields are immutable: change a label
      return fc.constant(json({ ...named(name), metadata: { name, namespace: FUZZ_NS, labels: { app: 'demo', fuzz: 'replaced' } } }));
    case 'patch':
      return fc.constantFrom(
        json([{ op: 'add', path: '/metadata/labels/fuzz', value: 'json-patched' }], 'application/json-patch+json'),
        json({ metadata: { labels: { fuzz: 'merged' } } }, 'application/merge-patch+json'),
        json({ metadata: { labels: { fuzz: null } } }, 'application/strategic-merge-patch+json'),
        { bytes: Buffer.from(toYAML(named(name))), type: 'application/apply-patch+yaml' },
      );
    default:
      return fc.constant(undefined);
  }
}

function bodyFor(op: string, name: string): fc.Arbitrary<Body> {
  if (op === 'create' || op === 'replace' || op === 'patch') {
    return fc.oneof({ weight: 4, arbitrary: validBodyFor(op, name) }, { weight: 5, arbitrary: hostileBody }, { weight: 1, arbitrary: fc.constant(undefined) });
  }
  return fc.oneof({ weight: 6, arbitrary: fc.constant<Body>(undefined) }, { weight: 2, arbitrary: hostileBody });
}

/** `arb` with probability `p`, else null (fc.option's `freq` only sets the chance of null, as 1/freq). */
function sometimes<T>(arb: fc.Arbitrary<T>, p: number): fc.Arbitrary<T | null> {
  const w = Math.round(p * 100);
  return fc.oneof({ weight: 100 - w, arbitrary: fc.constant(null) }, { weight: w, arbitrary: arb });
}

/** One hostile (or, now and then, valid) request against one of the 11 operations. */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(fc.constantFrom(...OPERATIONS), pathParam([...FUZZ_NAMES, 'missing']))
  .chain(([op, name]) =>
    fc.record({
      op: fc.constant(op),
      name: fc.constant(name),
      otherMethod: sometimes(fc.constantFrom(...METHODS), 0.2),
      ns: pathParam([FUZZ_NS, FUZZ_NS, FUZZ_NS, FUZZ_NS, 'default', 'kube-system']),
      query: fc.array(queryParam, { maxLength: 5 }),
      rawQuery: sometimes(fc.constantFrom('&&', '=', 'watch', '%zz=1', 'limit=%00', 'a=%', '?', 'fieldSelector=%FF'), 0.1),
      body: bodyFor(op.op, name),
      contentType: sometimes(fc.oneof(fc.constantFrom(...CONTENT_TYPES), hostileString.filter(isHeaderSafe)), 0.2),
      accept: sometimes(fc.oneof(fc.constantFrom(...ACCEPTS), hostileString.filter(isHeaderSafe)), 0.25),
      h2: fc.boolean(),
    }),
  )
  .map((r) => {
    const { op, method, template } = r.op;
    const path = BASE + template.replace('{ns}', r.ns).replace('{name}', r.name);
    const qs = [new URLSearchParams(r.query).toString(), r.rawQuery ?? ''].filter(Boolean).join('&');
    const headers: Record<string, string> = {};
    if (r.body) {
      headers['content-type'] = r.contentType ?? r.body.type;
      headers['content-length'] = String(r.body.bytes.length);
    }
    if (r.accept !== null) headers.accept = r.accept;
    return { op, h2: r.h2, method: r.otherMethod ?? method, path: qs ? `${path}?${qs}` : path, headers, body: r.body?.bytes };
  });

/** Node refuses to send header values with control or non-Latin-1 characters; those never reach a server. */
function isHeaderSafe(s: string): boolean {
  return /^[\x20-\x7e]*$/.test(s);
}
