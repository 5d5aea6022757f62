import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo, plainQueryIndex, RequestInfoError, fieldSelectorExactMatch } from './request-info.ts';

function parse(method: string, url: string) {
  const u = new URL(url, 'http://localhost');
  return parseRequestInfo(method, u.pathname, u.searchParams);
}

// [method, url, verb, apiPrefix, group, version, namespace, resource, subresource, name, parts] — the success
// table of upstream requestinfo_test.go TestGetAPIRequestInfo, plus our group.
const cases: [string, string, string, string, string, string, string, string, string, string, string[]][] = [
  ['GET', '/api/v1/namespaces', 'list', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
  ['GET', '/api/v1/namespaces/other', 'get', 'api', '', 'v1', 'other', 'namespaces', '', 'other', ['namespaces', 'other']],
  ['GET', '/api/v1/namespaces/other/pods', 'list', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['HEAD', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['GET', '/api/v1/pods', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['HEAD', '/api/v1/pods', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/proxy/namespaces/other/pods/foo', 'proxy', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['GET', '/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource', 'proxy', 'api', '', 'v1', 'other', 'pods', '', 'foo',
    ['pods', 'foo', 'subpath', 'not', 'a', 'subresource']],
  ['GET', '/api/v1/watch/pods', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/pods?watch=true', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/pods?watch=false', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/watch/namespaces/other/pods', 'watch', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/other/pods?watch=1', 'watch', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/other/pods?watch=0', 'list', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/other/pods/foo/status', 'get', 'api', '', 'v1', 'other', 'pods', 'status', 'foo', ['pods', 'foo', 'status']],
  ['GET', '/api/v1/namespaces/other/pods/foo/proxy/subpath', 'get', 'api', '', 'v1', 'other', 'pods', 'proxy', 'foo', ['pods', 'foo', 'proxy', 'subpath']],
  ['PUT', '/api/v1/namespaces/other/finalize', 'update', 'api', '', 'v1', 'other', 'namespaces', 'finalize', 'other', ['namespaces', 'other', 'finalize']],
  ['PUT', '/api/v1/namespaces/other/status', 'update', 'api', '', 'v1', 'other', 'namespaces', 'status', 'other', ['namespaces', 'other', 'status']],
  ['PATCH', '/api/v1/namespaces/other/pods/foo', 'patch', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['DELETE', '/api/v1/namespaces/other/pods/foo', 'delete', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['POST', '/api/v1/namespaces/other/pods', 'create', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['DELETE', '/api/v1/nodes', 'deletecollection', 'api', '', 'v1', '', 'nodes', '', '', ['nodes']],
  ['DELETE', '/api/v1/namespaces', 'deletecollection', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
  ['DELETE', '/api/v1/namespaces/other/pods', 'deletecollection', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['DELETE', '/apis/extensions/v1/namespaces/other/pods', 'deletecollection', 'apis', 'extensions', 'v1', 'other', 'pods', '', '', ['pods']],
  ['POST', '/apis/extensions/v1/namespaces/other/pods', 'create', 'apis', 'extensions', 'v1', 'other', 'pods', '', '', ['pods']],
  ['POST', '/apis/extensions/v1beta3/namespaces/other/pods', 'create', 'apis', 'extensions', 'v1beta3', 'other', 'pods', '', '', ['pods']],
  // events.cluster.io
  ['GET', '/apis/events.cluster.io/v1/events', 'list', 'apis', 'events.cluster.io', 'v1', '', 'events', '', '', ['events']],
  ['GET', '/apis/events.cluster.io/v1/namespaces/ns/events?watch=true&resourceVersion=5', 'watch', 'apis', 'events.cluster.io', 'v1', 'ns',
    'events', '', '', ['events']],
  ['GET', '/apis/events.cluster.io/v1/watch/namespaces/ns/events/e1', 'watch', 'apis', 'events.cluster.io', 'v1', 'ns', 'events', '', 'e1',
    ['events', 'e1']],
  ['GET', '/apis/events.cluster.io/v1/namespaces/ns/events/e1?watch=true', 'get', 'apis', 'events.cluster.io', 'v1', 'ns', 'events', '', 'e1',
    ['events', 'e1']],
  ['PUT', '/apis/events.cluster.io/v1/namespaces/ns/events/e1', 'update', 'apis', 'events.cluster.io', 'v1', 'ns', 'events', '', 'e1', ['events', 'e1']],
  ['DELETE', '/apis/events.cluster.io/v1/namespaces/ns/events', 'deletecollection', 'apis', 'events.cluster.io', 'v1', 'ns', 'events', '', '',
    ['events']],
  ['OPTIONS', '/apis/events.cluster.io/v1/namespaces/ns/events', '', 'apis', 'events.cluster.io', 'v1', 'ns', 'events', '', '', ['events']],
  // trailing slash and empty segments are split as upstream does
  ['GET', '/api/v1/pods/', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1//pods', 'get', 'api', '', 'v1', '', '', '', 'pods', ['', 'pods']],
];

test('parseRequestInfo: upstream resource request table', () => {
  for (const [method, url, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts] of cases) {
    const u = new URL(url, 'http://localhost');
    assert.deepEqual(parse(method, url), {
      isResourceRequest: true,
      path: u.pathname,
      verb,
      apiPrefix,
      apiGroup,
      apiVersion,
      namespace,
      resource,
      subresource,
      name,
      parts,
    }, `${method} ${url}`);
  }
});

test('parseRequestInfo: non-resource requests keep the lower-case method as verb', () => {
  for (const url of ['/', '/api/version/', '/apis/group/version/', '/badprefix/version/resource', '/apis/version/resource',
    '/apis/extensions/v1beta1', '/api/version', '/api', '', '/healthz', '/readyz/sqlite', '/openapi/v3/apis/events.cluster.io/v1']) {
    const info = parseRequestInfo('GET', url, new URLSearchParams());
    assert.equal(info.isResourceRequest, false, url);
    assert.equal(info.verb, 'get');
    assert.equal(info.path, url);
  }
  assert.equal(parse('POST', '/apis').verb, 'post');
  assert.equal(parse('HEAD', '/version').verb, 'head');
  for (const url of ['/api/version/resource', '/apis/group/version/resource/name/subresource', '/apis/batch/v1/job/foo/scale']) {
    assert.equal(parse('GET', url).isResourceRequest, true, url);
  }
});

test('parseRequestInfo: a bare special verb cannot be parsed', () => {
  assert.throws(() => parse('GET', '/api/v1/watch'), (e: unknown) =>
    e instanceof RequestInfoError && e.message === 'unable to determine kind and namespace from url, /api/v1/watch');
  assert.throws(() => parse('GET', '/apis/events.cluster.io/v1/proxy?x=1'), {
    message: 'unable to determine kind and namespace from url, /apis/events.cluster.io/v1/proxy?x=1',
  });
});

test('parseRequestInfo: watch query values as apimachinery converts bools', () => {
  const verb = (q: string) => parse('GET', `/apis/events.cluster.io/v1/events?${q}`).verb;
  assert.equal(verb('watch='), 'watch');
  assert.equal(verb('watch=FALSE'), 'list');
  assert.equal(verb('watch=no'), 'watch');
  assert.equal(verb('watch=0&watch=1'), 'list');
  assert.equal(verb('watch=fal%C5%BFe'), 'list'); // strings.EqualFold folds ſ to s, as the handler's decoding does
});

test('parseRequestInfo: fieldSelector metadata.name names list and watch requests (upstream TestSelectorParsing)', () => {
  const name = (method: string, url: string) => {
    const i = parse(method, url);
    return [i.verb, i.name];
  };
  assert.deepEqual(name('GET', '/apis/group/version/resource'), ['list', '']);
  assert.deepEqual(name('GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1'), ['list', 'name1']);
  assert.deepEqual(name('GET', '/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1'), ['watch', 'name1']);
  assert.deepEqual(name('GET', '/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux'), ['list', '']);
  assert.deepEqual(name('GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo'), ['list', '']);
  assert.deepEqual(name('GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true'), ['watch', '']);
  assert.deepEqual(name('GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false'), ['list', '']);
  assert.deepEqual(name('DELETE', '/apis/group/version/resource?fieldSelector=metadata.name=x'), ['deletecollection', '']);
  assert.deepEqual(name('GET', '/apis/group/version/resource?fieldSelector=metadata.name=foo&fieldSelector=metadata.name=bar'), ['list', 'foo']);
  assert.deepEqual(name('GET', '/apis/group/version/resource/name?fieldSelector=metadata.name=other'), ['get', 'name']);
  assert.deepEqual(name('GET', '/apis/group/version/watch/resource?fieldSelector=metadata.name=foo'), ['watch', '']);
  assert.deepEqual(name('GET', '/apis/group/version/watch/resource/name?fieldSelector=metadata.name=foo'), ['watch', 'name']);
  // == works, != does not name; terms are sorted before the first match is taken
  assert.deepEqual(name('GET', '/apis/g/v/r?fieldSelector=metadata.name%3D%3Dn2'), ['list', 'n2']);
  assert.deepEqual(name('GET', '/apis/g/v/r?fieldSelector=metadata.name!%3Dn2'), ['list', '']);
  assert.deepEqual(name('GET', '/apis/g/v/r?fieldSelector=type%3DNormal,metadata.name%3Db,metadata.name%3Da'), ['list', 'a']);
  // names that cannot be path segments are ignored
  assert.deepEqual(name('GET', '/apis/g/v/r?fieldSelector=metadata.name=a%2Fb'), ['list', '']);
  assert.deepEqual(name('GET', '/apis/g/v/r?fieldSelector=metadata.name=..'), ['list', '']);
  // any ListOptions decoding error drops the name but keeps watch
  assert.deepEqual(name('GET', '/apis/g/v/r?fieldSelector=metadata.name=a&limit=x'), ['list', '']);
  assert.deepEqual(name('GET', '/apis/g/v/r?fieldSelector=metadata.name=a&timeoutSeconds=1.5&watch=1'), ['watch', '']);
  assert.deepEqual(name('GET', '/apis/g/v/r?fieldSelector=metadata.name=a&limit=%2B500'), ['list', 'a']);
  assert.deepEqual(name('GET', '/apis/g/v/r?fieldSelector=metadata.name=a&limit=9223372036854775808'), ['list', '']);
});

test('fieldSelectorExactMatch: escapes and parse errors as fields.ParseSelector', () => {
  assert.equal(fieldSelectorExactMatch('metadata.name=a\\,b', 'metadata.name'), 'a,b');
  assert.equal(fieldSelectorExactMatch('metadata.name=a\\=b\\\\', 'metadata.name'), 'a=b\\');
  assert.equal(fieldSelectorExactMatch('metadata.name=a\\x', 'metadata.name'), null);
  assert.equal(fieldSelectorExactMatch('metadata.name=a\\', 'metadata.name'), null);
  assert.equal(fieldSelectorExactMatch('metadata.name=a=b', 'metadata.name'), null);
  assert.equal(fieldSelectorExactMatch('metadata.name', 'metadata.name'), null);
  assert.equal(fieldSelectorExactMatch('', 'metadata.name'), undefined);
  assert.equal(fieldSelectorExactMatch(',,type=x,', 'metadata.name'), undefined);
});

describe('plainQueryIndex', () => {
  // What describe() derives through WHATWG URL parsing, for comparison.
  const viaURL = (raw: string) => {
    const u = new URL(raw, 'https://localhost');
    return { pathname: decodeURIComponent(u.pathname), query: [...u.searchParams] };
  };
  it('takes plain targets as they are, with the same path and query URL parsing gives', () => {
    const plain = [
      '/',
      '/apis/events.cluster.io/v1/namespaces/default/events',
      '/apis/events.cluster.io/v1/namespaces/default/events/pod.17a2b3c4d5e6f7a8',
      '/api/v1/namespaces/kube-system/events?watch=1&resourceVersion=10',
      '/apis/x/v1/events?fieldSelector=regarding.name%3Dp,type!=Warning&limit=500&labelSelector=a+in+(b,c)',
      '/apis/x/v1/events?q="a"<b>\'c\'&x=%zz&y=%41&&=&z',
      '/version?',
      '/a/b/',
      '/a~b_c-d.e',
    ];
    for (const raw of plain) {
      const q = plainQueryIndex(raw);
      assert.ok(q >= 0, raw);
      const got = { pathname: raw.slice(0, q), query: [...new URLSearchParams(raw.slice(q + 1))] };
      assert.deepEqual(got, viaURL(raw), raw);
    }
  });
  it('sends anything URL parsing could change through URL parsing', () => {
    for (const raw of ['', 'x', '//host/a', '/a//b', '/a/./b', '/a/../b', '/.well-known', '/a%2Fb', '/a b', '/a\tb', '/a\\b', '/a#f', '/a?b#c', '/a?b c', '/é', '/a?é', '/a:b', '/a;b', '/a@b']) {
      assert.equal(plainQueryIndex(raw), -1, JSON.stringify(raw));
    }
  });
});
