import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactRules, compactString, covers, ruleAllows, type RuleRequest } from './evaluation.ts';
import type { PolicyRule } from './types.ts';

const res = (verb: string, apiGroup: string, resource: string, extra: Partial<RuleRequest> = {}): RuleRequest => ({
  isResourceRequest: true,
  verb,
  apiGroup,
  resource,
  subresource: '',
  name: '',
  path: '',
  ...extra,
});
const url = (verb: string, path: string): RuleRequest => ({ isResourceRequest: false, verb, apiGroup: '', resource: '', subresource: '', name: '', path });

test('rule matching: verbs, groups, resources and wildcards', () => {
  const rule: PolicyRule = { verbs: ['get', 'list'], apiGroups: ['', 'events.cluster.io'], resources: ['events'] };
  assert.equal(ruleAllows(res('get', '', 'events'), rule), true);
  assert.equal(ruleAllows(res('list', 'events.cluster.io', 'events'), rule), true);
  assert.equal(ruleAllows(res('create', '', 'events'), rule), false);
  assert.equal(ruleAllows(res('get', 'apps', 'events'), rule), false);
  assert.equal(ruleAllows(res('get', '', 'pods'), rule), false);
  const star: PolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'] };
  assert.equal(ruleAllows(res('deletecollection', 'x.io', 'things', { subresource: 'status' }), star), true);
  assert.equal(ruleAllows(url('get', '/metrics'), star), false, 'resource rules never match a non-resource URL');
});

test('rule matching: subresources', () => {
  assert.equal(ruleAllows(res('get', '', 'pods', { subresource: 'log' }), { verbs: ['get'], apiGroups: [''], resources: ['pods'] }), false);
  assert.equal(ruleAllows(res('get', '', 'pods', { subresource: 'log' }), { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }), true);
  assert.equal(ruleAllows(res('get', '', 'pods', { subresource: 'log' }), { verbs: ['get'], apiGroups: [''], resources: ['*/log'] }), true);
  assert.equal(ruleAllows(res('get', '', 'pods'), { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }), false);
  assert.equal(ruleAllows(res('get', '', 'pods'), { verbs: ['get'], apiGroups: [''], resources: ['*/log'] }), false);
});

test('rule matching: resourceNames limit named requests only', () => {
  const rule: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['events'], resourceNames: ['a'] };
  assert.equal(ruleAllows(res('get', '', 'events', { name: 'a' }), rule), true);
  assert.equal(ruleAllows(res('get', '', 'events', { name: 'b' }), rule), false);
  assert.equal(ruleAllows(res('list', '', 'events'), rule), false, 'a list has no name');
});

test('rule matching: non-resource URLs with a trailing *', () => {
  const rule: PolicyRule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
  assert.equal(ruleAllows(url('get', '/healthz'), rule), true);
  assert.equal(ruleAllows(url('get', '/healthz/ping'), rule), false);
  assert.equal(ruleAllows(url('get', '/apis/events.cluster.io'), rule), true);
  assert.equal(ruleAllows(url('get', '/apis'), rule), false);
  assert.equal(ruleAllows(url('post', '/healthz'), rule), false);
  assert.equal(ruleAllows(url('post', '/anything'), { verbs: ['*'], nonResourceURLs: ['*'] }), true);
});

test('covers: broken down per verb, group, resource and name', () => {
  const owned: PolicyRule[] = [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['events'] },
    { verbs: ['get'], apiGroups: ['x'], resources: ['*/status'] },
    { verbs: ['get'], nonResourceURLs: ['/metrics*'] },
  ];
  assert.equal(covers(owned, [{ verbs: ['get'], apiGroups: [''], resources: ['events'], resourceNames: ['a'] }]).covered, true);
  assert.equal(covers(owned, [{ verbs: ['get'], apiGroups: ['x'], resources: ['things/status'] }]).covered, true);
  assert.equal(covers(owned, [{ verbs: ['get'], nonResourceURLs: ['/metrics/slis'] }]).covered, true);
  const r = covers(owned, [{ verbs: ['get', 'delete', 'create'], apiGroups: [''], resources: ['events'] }]);
  assert.equal(r.covered, false);
  assert.deepEqual(r.missing, [
    { apiGroups: [''], resources: ['events'], verbs: ['delete'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create'] },
  ]);
  const named: PolicyRule[] = [{ verbs: ['get'], apiGroups: [''], resources: ['events'], resourceNames: ['a'] }];
  assert.equal(covers(named, [{ verbs: ['get'], apiGroups: [''], resources: ['events'] }]).covered, false, 'a named grant does not cover all names');
  assert.equal(covers([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['get'], nonResourceURLs: ['/x'] }]).covered, false);
});

test('missing rules are compacted and printed as upstream', () => {
  const missing = covers([], [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/x'] }]).missing;
  assert.deepEqual(compactRules(missing).map(compactString), ['{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}', '{NonResourceURLs:["/x"], Verbs:["get"]}']);
  assert.equal(compactString({ verbs: ['get'], apiGroups: [''], resources: ['events'], resourceNames: ['a'] }), '{APIGroups:[""], Resources:["events"], ResourceNames:["a"], Verbs:["get"]}');
});
