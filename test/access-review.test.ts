/**
 * End-to-end: `kubectl auth can-i` (SelfSubjectAccessReview), `kubectl auth can-i --list` (SelfSubjectRulesReview),
 * impersonation (`--as`, `--as-group`), SubjectAccessReview and LocalSubjectAccessReview, with kubectl 1.27, 1.32
 * and 1.33 (1.32 and later send the reviews in protobuf) against the real server, team identities from
 * --token-auth-file bound by RBAC.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer } from './helpers/server.ts';

const VERSIONS = ['1.27', '1.32', '1.33'];
const s = new TestServer();
const kubeconfigs: Record<string, string> = {};

/** A kubeconfig for a token of the token file, as a team would be given. */
function tokenKubeconfig(name: string, token: string): string {
  const caPem = readFileSync(join(s.dataDir, 'pki/ca.crt'));
  const file = join(s.dataDir, `${name}.kubeconfig`);
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "${s.url}", certificate-authority-data: ${caPem.toString('base64')}}}]`,
      `users: [{name: ${name}, user: {token: ${token}}}]`,
      'contexts: [{name: c, context: {cluster: c, user: ' + name + ', namespace: a}}]',
      'current-context: c',
    ].join('\n'),
  );
  return file;
}

/** kubectl as `who` (a token user, or the admin when absent); never throws, the exit code is part of the answer. */
function kubectl(args: string[], opts: { version?: string; who?: string; input?: string } = {}) {
  return s.kubectl([...args, ...(opts.who ? [`--kubeconfig=${kubeconfigs[opts.who]}`] : [])], {
    ...(opts.version ? { version: opts.version } : {}),
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });
}

async function ok(args: string[], opts: { version?: string; who?: string; input?: string } = {}): Promise<string> {
  const r = await kubectl(args, opts);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Bindings reach the authorizer through the watch cache: wait until `cond` holds. */
async function eventually(cond: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`${what} did not take effect`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

before(async () => {
  writeFileSync(join(s.dataDir, 'tokens.csv'), 'team-a-token,team-a-user,uid-a,"team-a"\nbob-token,bob,uid-bob\n');
  await s.start([`--token-auth-file=${join(s.dataDir, 'tokens.csv')}`]);
  kubeconfigs['team-a-user'] = tokenKubeconfig('team-a-user', 'team-a-token');
  kubeconfigs.bob = tokenKubeconfig('bob', 'bob-token');
  // Team A reads Events in a (view, to the group) and its user writes them (system:event-writer, to the user).
  await ok(['create', 'rolebinding', 'team-a-view', '-n', 'a', '--clusterrole=view', '--group=team-a']);
  await ok(['create', 'rolebinding', 'team-a-writer', '-n', 'a', '--clusterrole=system:event-writer', '--user=team-a-user']);
  await eventually(async () => (await kubectl(['auth', 'can-i', 'create', 'events', '-n', 'a'], { who: 'team-a-user' })).stdout.trim() === 'yes', 'the bindings');
});
after(async () => {
  await s.cleanup();
});

describe('kubectl auth can-i', () => {
  for (const version of VERSIONS) {
    it(`kubectl ${version}: yes in the team's namespace, no elsewhere (exit code 1)`, async () => {
      let r = await kubectl(['auth', 'can-i', 'create', 'events', '-n', 'a'], { version, who: 'team-a-user' });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'yes\n');
      r = await kubectl(['auth', 'can-i', 'list', 'events.events.cluster.io', '-n', 'a'], { version, who: 'team-a-user' });
      assert.equal(r.stdout, 'yes\n');
      r = await kubectl(['auth', 'can-i', 'create', 'events', '-n', 'b'], { version, who: 'team-a-user' });
      assert.equal(r.code, 1);
      assert.equal(r.stdout, 'no\n');
      r = await kubectl(['auth', 'can-i', 'list', 'events', '--all-namespaces'], { version, who: 'team-a-user' });
      assert.equal(r.stdout, 'no\n');
      // Non-resource URLs too.
      assert.equal(await ok(['auth', 'can-i', 'get', '/healthz'], { version, who: 'team-a-user' }), 'yes\n');
      assert.equal((await kubectl(['auth', 'can-i', 'get', '/metrics'], { version, who: 'team-a-user' })).stdout, 'no\n');
      // The admin (system:masters) may do everything.
      assert.equal(await ok(['auth', 'can-i', 'delete', 'events', '-n', 'b'], { version }), 'yes\n');
    });

    it(`kubectl ${version}: --list shows the rules RBAC gives the user in the namespace`, async () => {
      const out = await ok(['auth', 'can-i', '--list', '-n', 'a'], { version, who: 'team-a-user' });
      assert.match(out, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/m);
      // kubectl merges the rules of view (group binding) and system:event-writer (user binding) per resource.
      assert.match(out, /^events\s+\[\]\s+\[\]\s+\[get list watch create delete deletecollection patch update\]$/m);
      assert.match(out, /^events\.events\.cluster\.io\s+\[\]\s+\[\]\s+\[get list watch create delete deletecollection patch update\]$/m);
      assert.match(out, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
      assert.match(out, /^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/m);
      assert.doesNotMatch(out, /incomplete/i, 'RBAC lists every rule it has');
      // In b the team has only what every authenticated user has.
      const b = await ok(['auth', 'can-i', '--list', '-n', 'b'], { version, who: 'team-a-user' });
      assert.doesNotMatch(b, /^events/m);
    });

    it(`kubectl ${version}: the admin asks for the team with --as and --as-group (impersonation)`, async () => {
      // As the user alone: the user's own binding counts, the group's does not.
      assert.equal(await ok(['auth', 'can-i', 'create', 'events', '-n', 'a', '--as=team-a-user'], { version }), 'yes\n');
      let r = await kubectl(['auth', 'can-i', 'get', 'events', '-n', 'a', '--as=team-a-user'], { version });
      assert.equal(r.stdout, 'no\n');
      assert.equal(await ok(['auth', 'can-i', 'get', 'events', '-n', 'a', '--as=team-a-user', '--as-group=team-a'], { version }), 'yes\n');
      r = await kubectl(['auth', 'can-i', 'get', 'events', '-n', 'b', '--as=team-a-user', '--as-group=team-a'], { version });
      assert.equal(r.stdout, 'no\n');
      const list = await ok(['auth', 'can-i', '--list', '-n', 'a', '--as=team-a-user', '--as-group=team-a'], { version });
      assert.match(list, /^events\s+\[\]\s+\[\]\s+\[get list watch create delete deletecollection patch update\]$/m);
      const userOnly = await ok(['auth', 'can-i', '--list', '-n', 'a', '--as=team-a-user'], { version });
      assert.match(userOnly, /^events\s+\[\]\s+\[\]\s+\[create delete deletecollection patch update\]$/m);
    });

    it(`kubectl ${version}: a user without the impersonate verb gets 403 for --as`, async () => {
      const r = await kubectl(['auth', 'can-i', 'get', 'events', '-n', 'a', '--as=team-a-user'], { version, who: 'bob' });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Error from server \(Forbidden\): users "team-a-user" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope/);
      const g = await kubectl(['get', 'events', '-n', 'a', '--as=bob', '--as-group=team-a'], { version, who: 'bob' });
      assert.match(g.stderr, /users "bob" is forbidden: User "bob" cannot impersonate resource "users"/);
    });
  }

  it('kubectl 1.32 and 1.33 send the reviews in protobuf', async () => {
    for (const version of ['1.32', '1.33']) {
      for (const args of [['auth', 'can-i', 'create', 'events', '-n', 'a'], ['auth', 'can-i', '--list', '-n', 'a']]) {
        const r = await kubectl([...args, '-v=8'], { version, who: 'team-a-user' });
        assert.equal(r.code, 0, r.stderr);
        // 1.32 logs `POST <url>`, 1.33 `"Request" verb="POST" url="<url>"`; the request's headers follow.
        assert.match(r.stderr, /POST"? (url=")?https:\/\/\S+\/apis\/authorization\.k8s\.io\/v1\/selfsubject(access|rules)reviews[^]*?Content-Type: application\/vnd\.kubernetes\.protobuf/);
      }
    }
  });

  it('impersonation reaches every handler: whoami as another user, and granted impersonation works', async () => {
    const who = JSON.parse(await ok(['auth', 'whoami', '-o', 'json', '--as=jane', '--as-group=dev', '--as-uid=j1'], { version: '1.33' }));
    assert.deepEqual(who.status.userInfo, { username: 'jane', uid: 'j1', groups: ['dev', 'system:authenticated'] });
    // Grant bob the impersonation of team-a-user alone (users is not a served resource, so not via kubectl create).
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'impersonate-team-a' }, rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['team-a-user'] }] };
    assert.equal((await s.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', role)).status, 201);
    await ok(['create', 'clusterrolebinding', 'bob-impersonates', '--clusterrole=impersonate-team-a', '--user=bob']);
    await eventually(async () => (await kubectl(['auth', 'can-i', 'create', 'events', '-n', 'a', '--as=team-a-user'], { who: 'bob', version: '1.33' })).stdout === 'yes\n', 'the impersonation grant');
    const other = await kubectl(['auth', 'can-i', 'create', 'events', '-n', 'a', '--as=alice'], { who: 'bob', version: '1.33' });
    assert.match(other.stderr, /users "alice" is forbidden: User "bob" cannot impersonate resource "users"/);
    const group = await kubectl(['auth', 'can-i', 'get', 'events', '-n', 'a', '--as=team-a-user', '--as-group=team-a'], { who: 'bob', version: '1.33' });
    assert.match(group.stderr, /groups "team-a" is forbidden: User "bob" cannot impersonate resource "groups"/);
    // Groups without a user: 400 with upstream's text.
    const r = await s.request('GET', '/api', undefined, { 'Impersonate-Group': 'team-a' });
    assert.equal(r.status, 400);
    assert.equal(r.json().message, 'requested [{Group  team-a    }] without impersonating a user');
  });
});

describe('SubjectAccessReview and LocalSubjectAccessReview', () => {
  const sar = (user: string, groups: string[], namespace: string, verb: string) =>
    [
      'apiVersion: authorization.k8s.io/v1',
      'kind: SubjectAccessReview',
      'spec:',
      `  user: ${user}`,
      `  groups: [${groups.join(', ')}]`,
      `  resourceAttributes: {namespace: ${namespace}, verb: ${verb}, resource: events}`,
    ].join('\n');

  for (const version of VERSIONS) {
    it(`kubectl ${version} create -f: the admin asks about the team`, async () => {
      const yes = JSON.parse(await ok(['create', '-f', '-', '-o', 'json'], { version, input: sar('team-a-user', ['team-a'], 'a', 'list') }));
      assert.equal(yes.kind, 'SubjectAccessReview');
      assert.deepEqual(yes.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "team-a-view/a" of ClusterRole "view" to Group "team-a"' });
      const no = JSON.parse(await ok(['create', '-f', '-', '-o', 'json'], { version, input: sar('team-a-user', ['team-a'], 'b', 'list') }));
      assert.deepEqual(no.status, { allowed: false });
    });
  }

  it('only privileged callers may create SubjectAccessReviews; a team member gets 403', async () => {
    const r = await kubectl(['create', '-f', '-', '-o', 'json'], { version: '1.33', who: 'team-a-user', input: sar('bob', [], 'a', 'list') });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /subjectaccessreviews.authorization.k8s.io is forbidden: User "team-a-user" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope/);
    const invalid = await kubectl(['create', '-f', '-'], { version: '1.33', input: ['apiVersion: authorization.k8s.io/v1', 'kind: SubjectAccessReview', 'spec: {resourceAttributes: {verb: get}}'].join('\n') });
    // kubectl prints a 422 as `The <kind> "<name>" is invalid: <causes>`.
    assert.match(invalid.stderr, /The SubjectAccessReview "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified/);
  });

  it('LocalSubjectAccessReview: in its namespace; another namespace in the spec is 422, in metadata 400', async () => {
    const lsar = (metaNamespace: string, specNamespace: string) =>
      [
        'apiVersion: authorization.k8s.io/v1',
        'kind: LocalSubjectAccessReview',
        `metadata: {namespace: ${metaNamespace}}`,
        `spec: {groups: [team-a], resourceAttributes: {namespace: ${specNamespace}, verb: get, resource: events}}`,
      ].join('\n');
    for (const version of VERSIONS) {
      const r = JSON.parse(await ok(['create', '-f', '-', '-o', 'json'], { version, input: lsar('a', 'a') }));
      assert.deepEqual([r.kind, r.metadata.namespace, r.status.allowed], ['LocalSubjectAccessReview', 'a', true]);
      const bad = await kubectl(['create', '-f', '-'], { version, input: lsar('a', 'b') });
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /The LocalSubjectAccessReview "" is invalid: spec.resourceAttributes.namespace: Invalid value: "b": must match metadata.namespace/);
    }
    const body = { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', metadata: { namespace: 'b' }, spec: { user: 'x', resourceAttributes: { namespace: 'b', verb: 'get', resource: 'events' } } };
    const r = await s.request('POST', '/apis/authorization.k8s.io/v1/namespaces/a/localsubjectaccessreviews', body);
    assert.equal(r.status, 400);
    assert.equal(r.json().message, 'the namespace of the provided object does not match the namespace sent on the request');
    // A namespace admin (admin role in a) may ask about its namespace.
    await ok(['create', 'rolebinding', 'bob-admin', '-n', 'a', '--clusterrole=admin', '--user=bob']);
    await eventually(async () => (await kubectl(['auth', 'can-i', 'create', 'localsubjectaccessreviews', '-n', 'a'], { who: 'bob', version: '1.33' })).stdout === 'yes\n', 'the admin binding');
    const asked = JSON.parse(await ok(['create', '-f', '-', '-o', 'json'], { version: '1.33', who: 'bob', input: lsar('a', 'a') }));
    assert.equal(asked.status.allowed, true);
  });
});

describe('discovery', () => {
  it('kubectl api-resources lists the reviews, create only', async () => {
    const out = await ok(['api-resources', '--api-group=authorization.k8s.io', '-o', 'wide'], { version: '1.33' });
    for (const [name, namespaced, kind] of [
      ['localsubjectaccessreviews', 'true', 'LocalSubjectAccessReview'],
      ['selfsubjectaccessreviews', 'false', 'SelfSubjectAccessReview'],
      ['selfsubjectrulesreviews', 'false', 'SelfSubjectRulesReview'],
      ['subjectaccessreviews', 'false', 'SubjectAccessReview'],
    ]) {
      assert.match(out, new RegExp(`^${name}\\s+authorization.k8s.io/v1\\s+${namespaced}\\s+${kind}\\s+create\\b`, 'm'));
    }
  });
});

describe('impersonating service accounts', () => {
  it('a namespace admin (edit, as upstream) may act as the service accounts of its namespace, not of others', async () => {
    // bob is admin in a (bound above): edit, and so admin, may impersonate a's service accounts.
    const who = JSON.parse(await ok(['auth', 'whoami', '-o', 'json', '--as=system:serviceaccount:a:robot'], { version: '1.33', who: 'bob' }));
    assert.deepEqual(who.status.userInfo, { username: 'system:serviceaccount:a:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:a', 'system:authenticated'] });
    const r = await kubectl(['auth', 'can-i', 'list', 'events', '-n', 'a', '--as=system:serviceaccount:a:robot'], { version: '1.33', who: 'bob' });
    assert.equal(r.stdout, 'no\n', 'impersonation allowed; the service account itself holds nothing');
    const other = await kubectl(['auth', 'can-i', 'list', 'events', '-n', 'b', '--as=system:serviceaccount:b:robot'], { version: '1.33', who: 'bob' });
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /serviceaccounts "robot" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "b"/);
  });

  it('extras: authorized one key at a time, the key percent-decoded', async () => {
    const r = await s.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, {
      'Impersonate-User': 'jane',
      'Impersonate-Extra-Example.com%2Fteam': 'a',
      'Impersonate-Uid': 'j1',
    });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(r.json().status.userInfo, { username: 'jane', uid: 'j1', groups: ['system:authenticated'], extra: { 'example.com/team': ['a'] } });
  });
});
