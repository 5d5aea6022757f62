import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../apimachinery/errors.ts';
import { negotiateOutput, requestBodyType, patchType, parseIncludeObject } from './negotiation.ts';
import { parseMediaType } from '../util/media-type.ts';

const KUBECTL_TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const KUBECTL_DISCOVERY =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const NOT_ACCEPTABLE = 'only the following media types are accepted: application/json, application/yaml';
const NOT_ACCEPTABLE_STREAM = 'only the following media types are accepted: application/json;stream=watch';

const plain = { stream: false };
const watch = { stream: true };

function rejects(fn: () => unknown, code: number, reason: string, message: string) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.equal(e.code, code);
    assert.equal(e.reason, reason);
    assert.equal(e.message, message);
    return true;
  });
}

test('negotiateOutput: what kubectl and client libraries send', () => {
  assert.deepEqual(negotiateOutput(undefined, plain), { mediaType: 'application/json', pretty: false });
  assert.deepEqual(negotiateOutput('', plain), { mediaType: 'application/json', pretty: false });
  assert.deepEqual(negotiateOutput(KUBECTL_TABLE, plain), {
    mediaType: 'application/json',
    as: 'Table',
    asApiVersion: 'meta.k8s.io/v1',
    pretty: false,
  });
  // kubectl get -w keeps the Table Accept on the watch
  assert.deepEqual(negotiateOutput(KUBECTL_TABLE, watch), {
    mediaType: 'application/json',
    as: 'Table',
    asApiVersion: 'meta.k8s.io/v1',
    pretty: false,
  });
  // a resource endpoint does not convert to discovery kinds, so the plain JSON clause wins
  assert.deepEqual(negotiateOutput(KUBECTL_DISCOVERY, plain), { mediaType: 'application/json', pretty: false });
  assert.deepEqual(negotiateOutput('application/json, */*', plain), { mediaType: 'application/json', pretty: false });
  // kubectl events and typed clients ask for protobuf first
  assert.deepEqual(negotiateOutput('application/vnd.kubernetes.protobuf, */*', plain), { mediaType: 'application/json', pretty: false });
  assert.deepEqual(negotiateOutput('application/vnd.kubernetes.protobuf,application/json', watch), {
    mediaType: 'application/json',
    pretty: false,
  });
  assert.deepEqual(negotiateOutput('application/json;stream=watch', watch), { mediaType: 'application/json', pretty: false });
  assert.deepEqual(negotiateOutput('application/yaml', plain), { mediaType: 'application/yaml', pretty: false });
  assert.deepEqual(negotiateOutput('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', plain), {
    mediaType: 'application/json',
    as: 'PartialObjectMetadataList',
    asApiVersion: 'meta.k8s.io/v1',
    pretty: false,
  });
});

test('negotiateOutput: wildcards, q-values and goautoneg ordering', () => {
  const mt = (accept: string) => negotiateOutput(accept, plain).mediaType;
  assert.equal(mt('*/*'), 'application/json');
  assert.equal(mt('*'), 'application/json');
  assert.equal(mt('application/*'), 'application/json');
  assert.equal(mt('text/html, application/yaml'), 'application/yaml');
  assert.equal(mt('application/json;q=0.5, application/yaml'), 'application/yaml');
  assert.equal(mt('application/yaml;q=0.9,application/json'), 'application/json');
  assert.equal(mt('application/yaml;q=0.1, */*;q=0.9'), 'application/json');
  // goautoneg's Less prefers a concrete type over a wildcard before looking at q in this order
  assert.equal(mt('*/*;q=0.9, application/yaml;q=0.1'), 'application/yaml');
  // q=0 is not excluded by the apiserver, and an unparsable q counts as 0
  assert.equal(mt('application/yaml;q=0'), 'application/yaml');
  assert.equal(mt('application/json;q=abc, application/yaml;q=0.1'), 'application/yaml');
  assert.equal(mt(' application/yaml ; q=1 '), 'application/yaml');
  // params with an empty value or two '=' are dropped, so this is a plain JSON clause
  assert.deepEqual(negotiateOutput('application/json;as=;g=meta.k8s.io=x', plain), { mediaType: 'application/json', pretty: false });
});

test('negotiateOutput: 406 when nothing is acceptable', () => {
  rejects(() => negotiateOutput('application/vnd.kubernetes.protobuf', plain), 406, 'NotAcceptable', NOT_ACCEPTABLE);
  rejects(() => negotiateOutput('text/html', plain), 406, 'NotAcceptable', NOT_ACCEPTABLE);
  rejects(() => negotiateOutput('Application/JSON', plain), 406, 'NotAcceptable', NOT_ACCEPTABLE);
  rejects(() => negotiateOutput('application/json/x, application/', plain), 406, 'NotAcceptable', NOT_ACCEPTABLE);
  // conversions outside meta.{k8s,cluster}.io v1/v1beta1, or to unknown kinds, are refused
  rejects(() => negotiateOutput('application/json;as=Table', plain), 406, 'NotAcceptable', NOT_ACCEPTABLE);
  rejects(() => negotiateOutput('application/json;as=Table;g=meta.k8s.io;v=v2', plain), 406, 'NotAcceptable', NOT_ACCEPTABLE);
  rejects(() => negotiateOutput('application/json;as=Event;g=meta.k8s.io;v=v1', plain), 406, 'NotAcceptable', NOT_ACCEPTABLE);
  rejects(() => negotiateOutput('application/json;g=meta.k8s.io;v=v1', plain), 406, 'NotAcceptable', NOT_ACCEPTABLE);
  rejects(() => negotiateOutput('application/json;sv=v2', plain), 406, 'NotAcceptable', NOT_ACCEPTABLE);
  rejects(() => negotiateOutput('application/json;stream=chunks', plain), 406, 'NotAcceptable', NOT_ACCEPTABLE);
  rejects(() => negotiateOutput('application/yaml;stream=watch', plain), 406, 'NotAcceptable', NOT_ACCEPTABLE);
  assert.equal(negotiateOutput('application/json;sv=v1', plain).mediaType, 'application/json');
  assert.equal(negotiateOutput('application/yaml;stream=watch, application/json', plain).mediaType, 'application/json');
});

test('negotiateOutput: YAML cannot be streamed', () => {
  rejects(() => negotiateOutput('application/yaml', watch), 406, 'NotAcceptable', NOT_ACCEPTABLE_STREAM);
  // upstream takes the first acceptable clause and does not look further
  rejects(() => negotiateOutput('application/yaml, application/json', watch), 406, 'NotAcceptable', NOT_ACCEPTABLE_STREAM);
  rejects(() => negotiateOutput('application/vnd.kubernetes.protobuf;stream=watch', watch), 406, 'NotAcceptable', NOT_ACCEPTABLE);
});

test('negotiateOutput: Table and PartialObjectMetadata in both group spellings and versions', () => {
  const r = negotiateOutput('application/yaml;as=Table;v=v1beta1;g=meta.cluster.io', plain);
  assert.deepEqual(r, { mediaType: 'application/yaml', as: 'Table', asApiVersion: 'meta.cluster.io/v1beta1', pretty: false });
  assert.equal(negotiateOutput('application/json;as=PartialObjectMetadata;g=meta.cluster.io;v=v1', plain).as, 'PartialObjectMetadata');
  assert.equal(negotiateOutput('*/*;as=Table;g=meta.k8s.io;v=v1', plain).as, 'Table');
});

test('negotiateOutput: pretty', () => {
  const pretty = (accept: string | undefined, userAgent?: string, prettyParam?: string | null, stream = false) =>
    negotiateOutput(accept, { stream, userAgent, prettyParam }).pretty;
  assert.equal(pretty(undefined, 'curl/8.5.0'), true);
  assert.equal(pretty(undefined, 'Wget/1.21'), true);
  assert.equal(pretty(undefined, 'Mozilla/5.0 (X11)'), true);
  assert.equal(pretty(undefined, 'kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0'), false);
  assert.equal(pretty(undefined, 'kubectl/v1.33.1', 'true'), true);
  assert.equal(pretty(undefined, 'kubectl/v1.33.1', 'T'), true);
  assert.equal(pretty(undefined, 'kubectl/v1.33.1', '1'), true);
  assert.equal(pretty(undefined, 'curl/8.5.0', 'false'), false);
  assert.equal(pretty(undefined, 'curl/8.5.0', 'yes'), false); // unparsable: false, not the UA rule
  assert.equal(pretty(undefined, 'curl/8.5.0', ''), true); // empty: the UA rule
  assert.equal(pretty(undefined, 'curl/8.5.0', null), true);
  assert.equal(pretty('application/json;pretty=1', 'kubectl'), true);
  assert.equal(pretty('application/json;pretty=true', 'kubectl'), false);
  assert.equal(pretty('application/yaml', 'curl/8.5.0', '1'), false);
  assert.equal(pretty(undefined, 'curl/8.5.0', '1', true), false);
  assert.equal(pretty(undefined, 'curl/8.5.0', 'TRUE'), true);
  assert.equal(pretty(undefined, 'curl/8.5.0', 'tRUE'), false); // strconv.ParseBool is case-exact
});

test('requestBodyType', () => {
  assert.equal(requestBodyType(undefined), 'application/json');
  assert.equal(requestBodyType(''), 'application/json');
  assert.equal(requestBodyType('application/json'), 'application/json');
  assert.equal(requestBodyType('application/json; charset=utf-8'), 'application/json');
  assert.equal(requestBodyType('application/json;'), 'application/json');
  assert.equal(requestBodyType('APPLICATION/YAML'), 'application/yaml');
  assert.equal(requestBodyType('application/yaml; a="x y"; b=1; b=1'), 'application/yaml');
  const msg = 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml';
  for (const ct of ['application/vnd.kubernetes.protobuf', 'text/plain', 'application/json;charset', 'application/json; a=1; a=2',
    'application/json/x', 'application/json; a="x', 'application', '/json', 'application/merge-patch+json']) {
    rejects(() => requestBodyType(ct), 415, 'UnsupportedMediaType', msg);
  }
});

test('parseMediaType follows Go mime.ParseMediaType', () => {
  assert.equal(parseMediaType(' Application/JSON ; charset=UTF-8'), 'application/json');
  assert.equal(parseMediaType('application'), 'application');
  assert.equal(parseMediaType('application/json; ;'), null);
  assert.equal(parseMediaType('application/json; a=""'), 'application/json');
  assert.equal(parseMediaType('application/json; a='), null);
  assert.equal(parseMediaType(''), null);
});

test('patchType', () => {
  assert.equal(patchType('application/json-patch+json'), 'json');
  assert.equal(patchType('application/merge-patch+json; charset=utf-8'), 'merge');
  assert.equal(patchType('application/strategic-merge-patch+json'), 'strategic');
  assert.equal(patchType('application/apply-patch+yaml'), 'apply');
  const msg =
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, ' +
    'application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml';
  for (const ct of [undefined, '', 'application/json', 'Application/merge-patch+json', 'application/merge-patch+json ;x=1',
    'application/apply-patch+cbor', ';application/merge-patch+json']) {
    rejects(() => patchType(ct), 415, 'UnsupportedMediaType', msg);
  }
});

test('parseIncludeObject', () => {
  assert.equal(parseIncludeObject(null), 'Metadata');
  assert.equal(parseIncludeObject(''), 'Metadata');
  assert.equal(parseIncludeObject('Metadata'), 'Metadata');
  assert.equal(parseIncludeObject('None'), 'None');
  assert.equal(parseIncludeObject('Object'), 'Object');
  rejects(() => parseIncludeObject('x'), 400, 'BadRequest',
    `Unable to convert to Table as requested: includeObject: Invalid value: "x": must be 'Metadata', 'Object', 'None', or empty`);
  rejects(() => parseIncludeObject('object'), 400, 'BadRequest',
    `Unable to convert to Table as requested: includeObject: Invalid value: "object": must be 'Metadata', 'Object', 'None', or empty`);
});
