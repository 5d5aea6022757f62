import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSubpath, requestAttributes, subresourcesFor } from './auth.ts';

test("isSubpath: kubelet's cases", () => {
  const cases: [string, string, boolean][] = [
    ['', '', true],
    ['/foo', '/foo', true],
    ['/foo/', '/foo/', true],
    ['/foo/bar', '/foo/bar', true],
    ['/foo', '/', true],
    ['/foo/bar', '/', true],
    ['/foo/', '/foo', true],
    ['/foo/bar', '/foo', true],
    ['/foo', '/bar', false],
    ['/foo', '/foobar', false],
    ['/foobar', '/foo', false],
  ];
  for (const [sub, path, want] of cases) assert.equal(isSubpath(sub, path), want, `${sub} under ${path}`);
});

test('the subresources a path is authorized as, fine-grained first and then proxy (KubeletFineGrainedAuthz, GA)', () => {
  const table: Record<string, string[]> = {
    '/stats/': ['stats'],
    '/stats/summary': ['stats'],
    '/stats': ['stats'],
    '/statsx': ['proxy'],
    '/metrics': ['metrics'],
    '/metrics/resource': ['metrics'],
    '/metrics/slis': ['metrics'],
    '/metrics/probes': ['metrics'],
    '/logs/': ['log'],
    '/logs/syslog': ['log'],
    '/checkpoint/ns/pod/c': ['checkpoint'],
    '/pods': ['pods', 'proxy'],
    '/pods/': ['pods', 'proxy'],
    '/runningpods/': ['pods', 'proxy'],
    '/healthz': ['healthz', 'proxy'],
    '/healthz/syncloop': ['healthz', 'proxy'],
    '/configz': ['configz', 'proxy'],
    '/statusz': ['statusz', 'proxy'],
    '/flagz': ['proxy'],
    '/spec/': ['proxy'],
    '/containerLogs/ns/pod/c': ['proxy'],
    '/exec/ns/pod/c': ['proxy'],
    '/debug/pprof/heap': ['proxy'],
    '/': ['proxy'],
  };
  for (const [path, want] of Object.entries(table)) assert.deepEqual(subresourcesFor(path), want, path);
});

test('request attributes: the verb of the method, nodes named after the node, API version v1, the path', () => {
  const user = { name: 'phibby', groups: ['system:authenticated'] };
  const verbs: Record<string, string> = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete', HEAD: '', OPTIONS: '' };
  for (const [method, verb] of Object.entries(verbs)) {
    assert.deepEqual(requestAttributes(user, method, '/healthz', 'n1'), [
      { user, verb, namespace: '', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: 'healthz', name: 'n1', path: '/healthz', isResourceRequest: true },
      { user, verb, namespace: '', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: 'proxy', name: 'n1', path: '/healthz', isResourceRequest: true },
    ]);
  }
});
