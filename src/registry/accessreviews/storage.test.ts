import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { StatusError } from '../../apimachinery/errors.ts';
import { GROUP_MASTERS, type UserInfo } from '../../auth/authenticator/user.ts';
import type { AuthorizationResult, Authorizer } from '../../auth/authorizer/interface.ts';
import { PrivilegedGroupsAuthorizer } from '../../auth/authorizer/privileged-groups.ts';
import { RBACAuthorizer } from '../../auth/authorizer/rbac.ts';
import { UnionRuleResolver, unsupportedRuleResolver } from '../../auth/authorizer/rules.ts';
import { UnionAuthorizer } from '../../auth/authorizer/union.ts';
import { FakeRbacSource, group, user } from '../rbac/testing.ts';
import { resourceInfo, type ResourceScope } from '../rest/scope.ts';
import { registerAccessReviews } from './storage.ts';

const rbac = new RBACAuthorizer(
  new FakeRbacSource()
    .clusterRole('view', [{ verbs: ['get', 'list', 'watch'], apiGroups: ['', 'events.cluster.io'], resources: ['events'] }])
    .clusterRole('health', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }])
    .bind('a', 'team-a-view', 'ClusterRole', 'view', [group('team-a')])
    .bind('a', 'dangling', 'Role', 'missing', [user('alice')])
    .bind('', 'health', 'ClusterRole', 'health', [group('system:authenticated')]),
);
const chain = new UnionAuthorizer([new PrivilegedGroupsAuthorizer([GROUP_MASTERS]), rbac]);
let ruleResolver = new UnionRuleResolver([rbac]);
let authorizer: Authorizer = chain;
const scopes = registerAccessReviews({ authorizer: () => authorizer, ruleResolver: () => ruleResolver });
const scope = (gv: string, resource: string) => scopes.find((s) => s.groupVersion === gv && s.resource === resource)!;

const alice: UserInfo = { name: 'alice', groups: ['team-a', 'system:authenticated'] };
const admin: UserInfo = { name: 'admin', groups: [GROUP_MASTERS, 'system:authenticated'] };

async function create(s: ResourceScope, obj: object, by: UserInfo = alice, namespace = ''): Promise<any> {
  const served = await s.store.create(namespace, { kind: s.kind, apiVersion: s.groupVersion, metadata: {}, ...obj } as KubeObject, undefined, { dryRun: false, user: by });
  return JSON.parse(served.value.toString('utf8'));
}

async function refused(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('expected a Status error');
}

const getEvents = (namespace: string) => ({ resourceAttributes: { namespace, verb: 'get', resource: 'events' } });

describe('access reviews', () => {
  it('are served create-only, in authorization.k8s.io/v1 and authorization.cluster.io/v1', () => {
    assert.deepEqual(
      scopes.map((s) => `${s.groupVersion} ${s.resource} ${s.namespaced ? 'namespaced' : 'cluster'}`),
      [
        'authorization.k8s.io/v1 subjectaccessreviews cluster',
        'authorization.k8s.io/v1 selfsubjectaccessreviews cluster',
        'authorization.k8s.io/v1 localsubjectaccessreviews namespaced',
        'authorization.k8s.io/v1 selfsubjectrulesreviews cluster',
        'authorization.cluster.io/v1 subjectaccessreviews cluster',
        'authorization.cluster.io/v1 selfsubjectaccessreviews cluster',
        'authorization.cluster.io/v1 localsubjectaccessreviews namespaced',
        'authorization.cluster.io/v1 selfsubjectrulesreviews cluster',
      ],
    );
    assert.deepEqual(resourceInfo(scopes[1]!).verbs, ['create']);
    assert.ok(scopes.every((s) => s.protobuf));
  });

  it('SelfSubjectAccessReview: the asker, judged by the whole chain, with the deciding reason', async () => {
    const ssar = scope('authorization.k8s.io/v1', 'selfsubjectaccessreviews');
    const yes = await create(ssar, { spec: getEvents('a') });
    assert.deepEqual(yes.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "team-a-view/a" of ClusterRole "view" to Group "team-a"' });
    assert.deepEqual(yes.spec, getEvents('a'));
    assert.deepEqual((await create(ssar, { spec: getEvents('b') })).status, { allowed: false });
    assert.deepEqual((await create(ssar, { spec: getEvents('b') }, admin)).status, { allowed: true }, 'system:masters: allowed, no reason, as upstream');
    assert.deepEqual((await create(ssar, { spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } } })).status.allowed, true);
  });

  it('a missing role is an evaluationError; a Deny says denied; an authorizer error is reported, not thrown', async () => {
    const ssar = scope('authorization.k8s.io/v1', 'selfsubjectaccessreviews');
    // alice's binding in a to a missing Role: RBAC has no opinion, and says why.
    const other = await create(ssar, { spec: { resourceAttributes: { namespace: 'a', verb: 'create', resource: 'events' } } });
    assert.deepEqual(other.status, { allowed: false, reason: 'RBAC: role.rbac.authorization.k8s.io "missing" not found' });
    const deny: Authorizer = { authorize: (): AuthorizationResult => ({ decision: 'Deny', reason: 'no way' }) };
    const broken: Authorizer = { authorize: () => Promise.reject(new Error('webhook down')) };
    try {
      authorizer = deny;
      assert.deepEqual((await create(ssar, { spec: getEvents('a') })).status, { allowed: false, denied: true, reason: 'no way' });
      authorizer = broken;
      assert.deepEqual((await create(ssar, { spec: getEvents('a') })).status, { allowed: false, evaluationError: 'webhook down' });
    } finally {
      authorizer = chain;
    }
  });

  it('selectors that do not parse are reported as upstream reports them', async () => {
    const ssar = scope('authorization.k8s.io/v1', 'selfsubjectaccessreviews');
    const review = await create(ssar, {
      spec: {
        resourceAttributes: {
          ...getEvents('a').resourceAttributes,
          fieldSelector: { rawSelector: 'a in (x' },
          labelSelector: { requirements: [{ key: 'app', operator: 'In', values: ['web'] }, { key: 'tier', operator: 'Near' }] },
        },
      },
    });
    assert.equal(review.status.allowed, true);
    assert.equal(review.status.evaluationError, 'spec.resourceAttributes.fieldSelector ignored due to parse error; spec.resourceAttributes.labelSelector partially ignored due to parse error');
  });

  it('validation: upstream texts, 422 naming the kind in its group', async () => {
    const ssar = scope('authorization.k8s.io/v1', 'selfsubjectaccessreviews');
    let e = await refused(create(ssar, { spec: {} }));
    assert.equal(e.code, 422);
    assert.equal(e.message, 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified');
    e = await refused(create(ssar, { spec: { ...getEvents('a'), nonResourceAttributes: { path: '/x', verb: 'get' } } }));
    assert.equal(
      e.message,
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    );
    e = await refused(create(ssar, { metadata: { name: 'q' }, spec: getEvents('a') }));
    assert.match(e.message, /^SelfSubjectAccessReview.authorization.k8s.io "" is invalid: metadata: Invalid value: v1.ObjectMeta\{Name:"q", GenerateName:"", Namespace:"", .*CreationTimestamp:time.Date\(1, time.January, 1, 0, 0, 0, 0, time.UTC\), .*\}: must be empty$/);
    const sar = scope('authorization.k8s.io/v1', 'subjectaccessreviews');
    e = await refused(create(sar, { spec: getEvents('a') }, admin));
    assert.equal(e.message, 'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified');
    e = await refused(create(sar, { spec: { user: 'x', resourceAttributes: { verb: 'get', labelSelector: {}, fieldSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In' }] } } } }, admin));
    assert.equal(
      e.message,
      'SubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements, ' +
        "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn', " +
        'spec.resourceAttributes.labelSelector.requirements: Required value: when spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is required]',
    );
    // The cluster.io spelling names its own group.
    e = await refused(create(scope('authorization.cluster.io/v1', 'subjectaccessreviews'), { spec: getEvents('a') }, admin));
    assert.match(e.message, /^SubjectAccessReview.authorization.cluster.io "" is invalid: /);
  });

  it('SubjectAccessReview: about the spec\'s user, groups, uid and extra, not the asker', async () => {
    const sar = scope('authorization.k8s.io/v1', 'subjectaccessreviews');
    const spec = { user: 'carol', groups: ['team-a'], uid: 'c1', extra: { scopes: ['x'] }, ...getEvents('a') };
    const r = await create(sar, { spec }, admin);
    assert.equal(r.kind, 'SubjectAccessReview');
    assert.deepEqual(r.spec, { resourceAttributes: getEvents('a').resourceAttributes, user: 'carol', groups: ['team-a'], extra: { scopes: ['x'] }, uid: 'c1' });
    assert.equal(r.status.allowed, true);
    assert.deepEqual((await create(sar, { spec: { user: 'carol', ...getEvents('a') } }, admin)).status, { allowed: false }, 'a user without groups is in none');
  });

  it('LocalSubjectAccessReview: the URL namespace, which spec.resourceAttributes.namespace must repeat', async () => {
    const lsar = scope('authorization.k8s.io/v1', 'localsubjectaccessreviews');
    const r = await create(lsar, { spec: { groups: ['team-a'], ...getEvents('a') } }, alice, 'a');
    assert.deepEqual(r.metadata, { namespace: 'a' });
    assert.equal(r.status.allowed, true);
    let e = await refused(create(lsar, { spec: { groups: ['team-a'], ...getEvents('b') } }, alice, 'a'));
    assert.equal(e.code, 422);
    assert.equal(e.message, 'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "b": must match metadata.namespace');
    e = await refused(create(lsar, { metadata: { namespace: 'b' }, spec: { groups: ['team-a'], ...getEvents('b') } }, alice, 'a'));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'the namespace of the provided object does not match the namespace sent on the request');
    e = await refused(create(lsar, { metadata: { labels: { x: 'y' } }, spec: { user: 'u', nonResourceAttributes: { path: '/x', verb: 'get' } } }, alice, 'a'));
    assert.match(e.message, /^LocalSubjectAccessReview.authorization.k8s.io "" is invalid: \[metadata: Invalid value: v1.ObjectMeta\{.*Namespace:"a".*Labels:map\[string\]string\{"x":"y"\}.*\}: must be empty except for namespace, spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes\{Path:"\/x", Verb:"get"\}: disallowed on this kind of request\]$/);
  });

  it('SelfSubjectRulesReview: RBAC\'s rules, split as upstream; incomplete with the reason when an authorizer cannot list', async () => {
    const ssrr = scope('authorization.k8s.io/v1', 'selfsubjectrulesreviews');
    const r = await create(ssrr, { spec: { namespace: 'a' } });
    assert.deepEqual(r.spec, {}, 'a new object holding only the status, as upstream');
    assert.deepEqual(r.status, {
      resourceRules: [{ verbs: ['get', 'list', 'watch'], apiGroups: ['', 'events.cluster.io'], resources: ['events'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
      evaluationError: 'role.rbac.authorization.k8s.io "missing" not found',
    });
    const e = await refused(create(ssrr, { spec: {} }));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'no namespace on request');
    try {
      ruleResolver = new UnionRuleResolver([rbac, unsupportedRuleResolver('webhook')]);
      const partial = await create(ssrr, { spec: { namespace: 'b' } }, { name: 'bob', groups: ['system:authenticated'] });
      assert.deepEqual(partial.status, {
        resourceRules: [],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        incomplete: true,
        evaluationError: 'webhook authorizer does not support user rule resolution',
      });
    } finally {
      ruleResolver = new UnionRuleResolver([rbac]);
    }
  });

  it('protobuf bodies: the four kinds as kubectl 1.32 and typed clients send them', () => {
    // Field numbers as k8s.io/api authorization/v1 generated.proto, written out apart from the decoder's.
    const root = protobuf.parse(
      `syntax = "proto2"; package w;
       message Meta { optional string name = 1; optional string namespace = 3; }
       message Extra { repeated string items = 1; }
       message Req { optional string key = 1; optional string operator = 2; repeated string values = 3; }
       message FieldSel { optional string rawSelector = 1; repeated Req requirements = 2; }
       message RA { optional string namespace = 1; optional string verb = 2; optional string group = 3; optional string version = 4; optional string resource = 5; optional string subresource = 6; optional string name = 7; optional FieldSel fieldSelector = 8; optional FieldSel labelSelector = 9; }
       message NRA { optional string path = 1; optional string verb = 2; }
       message Spec { optional RA resourceAttributes = 1; optional NRA nonResourceAttributes = 2; optional string user = 3; repeated string groups = 4; map<string, Extra> extra = 5; optional string uid = 6; }
       message Status { optional bool allowed = 1; optional string reason = 2; optional string evaluationError = 3; optional bool denied = 4; }
       message Review { optional Meta metadata = 1; optional Spec spec = 2; optional Status status = 3; }
       message RulesSpec { optional string namespace = 1; }
       message Rules { optional Meta metadata = 1; optional RulesSpec spec = 2; }`,
      { keepCase: true },
    ).root;
    const wire = (type: string, obj: object) => {
      const T = root.lookupType(`w.${type}`);
      return Buffer.from(T.encode(T.fromObject(obj)).finish());
    };
    const ra = { namespace: 'a', verb: 'get', group: '', version: 'v1', resource: 'events', subresource: '', name: 'e1', fieldSelector: { requirements: [{ key: 'type', operator: 'In', values: ['Warning'] }] } };
    const raJSON = { namespace: 'a', verb: 'get', version: 'v1', resource: 'events', name: 'e1', fieldSelector: { requirements: [{ key: 'type', operator: 'In', values: ['Warning'] }] } };
    const ssar = scope('authorization.k8s.io/v1', 'selfsubjectaccessreviews').protobuf!;
    assert.deepEqual(ssar.decode(wire('Review', { metadata: { name: '' }, spec: { resourceAttributes: ra }, status: { allowed: false, reason: '', evaluationError: '', denied: false } })), {
      metadata: {},
      spec: { resourceAttributes: raJSON },
      status: { allowed: false, denied: false },
    });
    const sar = scope('authorization.k8s.io/v1', 'subjectaccessreviews').protobuf!;
    assert.deepEqual(sar.decode(wire('Review', { spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'u', groups: ['g'], extra: { 'example.com/k': { items: ['v'] } }, uid: 'x' } })), {
      spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'u', groups: ['g'], extra: { 'example.com/k': ['v'] }, uid: 'x' },
    });
    const lsar = scope('authorization.k8s.io/v1', 'localsubjectaccessreviews').protobuf!;
    assert.deepEqual(lsar.decode(wire('Review', { metadata: { namespace: 'a' }, spec: { resourceAttributes: ra, groups: ['g'] } })), {
      metadata: { namespace: 'a' },
      spec: { resourceAttributes: raJSON, groups: ['g'] },
    });
    const ssrr = scope('authorization.k8s.io/v1', 'selfsubjectrulesreviews').protobuf!;
    assert.deepEqual(ssrr.decode(wire('Rules', { spec: { namespace: 'a' } })), { spec: { namespace: 'a' } });
  });
});
