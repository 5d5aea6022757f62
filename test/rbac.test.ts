/**
 * End-to-end RBAC: an admin (system:masters) manages roles and bindings with kubectl; a team's client certificate,
 * bound in its namespace, can do every verb on Events there and nothing elsewhere; a namespace admin cannot
 * escalate; the bootstrap policy is reconciled on restart.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYAML } from 'yaml';
import { writeAdminKubeconfig } from '../src/cmd/kubeconfig.ts';
import { importSigningKey, issueCertificate } from '../src/cmd/x509gen.ts';
import { sampleEvent, TestServer } from './helpers/server.ts';

const s = new TestServer();
before(async () => {
  await s.start();
});
after(async () => {
  await s.cleanup();
});

interface Identity {
  certPem: string;
  keyPem: string;
  kubeconfig: string;
}

/** A client certificate signed by the server's CA, and a kubeconfig for it (as the README tells admins to make). */
async function identity(cn: string, orgs: string[]): Promise<Identity> {
  const caPem = readFileSync(join(s.dataDir, 'pki/ca.crt'), 'utf8');
  const caKey = await importSigningKey(readFileSync(join(s.dataDir, 'pki/ca.key'), 'utf8'));
  const c = await issueCertificate({ subject: [...orgs.map((o) => ({ O: [o] })), { CN: [cn] }], validDays: 1, clientAuth: true }, { certPem: caPem, key: caKey });
  const kubeconfig = join(s.dataDir, `${cn}.kubeconfig`);
  writeAdminKubeconfig(kubeconfig, { server: s.url, caPem, certPem: c.certPem, keyPem: c.key.pem });
  return { certPem: c.certPem, keyPem: c.key.pem, kubeconfig };
}

function call(id: Identity, method: string, path: string, body?: object, contentType = 'application/json'): Promise<{ status: number; body: any }> {
  const payload = body ? Buffer.from(JSON.stringify(body)) : undefined;
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port: s.port, method, path, cert: id.certPem, key: id.keyPem, rejectUnauthorized: false, headers: payload ? { 'content-type': contentType } : {} },
      (res) => {
        let b = '';
        res.on('data', (d) => (b += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b ? JSON.parse(b) : undefined }));
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** The status of a watch and its first frame (after `then` runs once the watch is open). */
function watchFirst(id: Identity, path: string, then: () => Promise<unknown>): Promise<{ status: number; frame?: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: s.port, method: 'GET', path, cert: id.certPem, key: id.keyPem, rejectUnauthorized: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return resolve({ status: res.statusCode ?? 0 });
      }
      let b = '';
      res.on('data', (d) => {
        b += d;
        const nl = b.indexOf('\n');
        if (nl >= 0) {
          req.destroy();
          resolve({ status: 200, frame: JSON.parse(b.slice(0, nl)) });
        }
      });
      void then();
    });
    req.on('error', reject);
    req.end();
  });
}

/** Bindings reach the authorizer through the watch cache: wait until a request stops being refused. */
async function eventually(f: () => Promise<{ status: number }>, ok = (st: number) => st !== 403): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    if (ok((await f()).status)) return;
    if (Date.now() > deadline) assert.fail('the binding did not take effect');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function kubectl(args: string[], opts: { version?: string; as?: Identity; input?: string } = {}): Promise<string> {
  const r = await s.kubectl([...args, ...(opts.as ? [`--kubeconfig=${opts.as.kubeconfig}`] : [])], { ...(opts.version ? { version: opts.version } : {}), ...(opts.input !== undefined ? { input: opts.input } : {}) });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

describe('RBAC with kubectl', () => {
  // kubectl 1.32 and later send RBAC objects (creates, and reconcile's updates) as protobuf bodies and do not retry
  // with JSON after a 415; 1.31 and earlier send JSON.
  for (const v of ['1.27', '1.31', '1.32', '1.33']) {
    it(`admin creates roles and bindings with kubectl ${v}`, async () => {
      const ns = `k${v.replace('.', '')}`;
      assert.match(await kubectl(['create', 'role', 'reader', '-n', ns, '--verb=get,list,watch', '--resource=events.events.cluster.io,events'], { version: v }), /role.rbac.authorization.k8s.io\/reader created/);
      assert.match(await kubectl(['create', 'rolebinding', 'reader', '-n', ns, '--role=reader', '--user=carol', '--group=g1', '--serviceaccount=sa-ns:robot'], { version: v }), /created/);
      assert.match(await kubectl(['create', 'clusterrole', `probe-${ns}`, '--verb=get', '--non-resource-url=/healthz/*'], { version: v }), /created/);
      assert.match(await kubectl(['create', 'clusterrolebinding', `probe-${ns}`, `--clusterrole=probe-${ns}`, '--group=probers'], { version: v }), /created/);
      const yaml = parseYAML(await kubectl(['get', 'roles', '-n', ns, '-o', 'yaml'], { version: v }));
      assert.deepEqual(yaml.items[0].rules, [
        { apiGroups: [''], resources: ['events'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['events.cluster.io'], resources: ['events'], verbs: ['get', 'list', 'watch'] },
      ]);
      const described = await kubectl(['describe', 'rolebinding', 'reader', '-n', ns], { version: v });
      assert.match(described, /Role:\s+Kind:\s+Role\s+Name:\s+reader/);
      assert.match(described, /User\s+carol/);
      assert.match(described, /ServiceAccount\s+robot\s+sa-ns/);
      const wide = await kubectl(['get', 'rolebindings', '-n', ns, '-o', 'wide'], { version: v });
      assert.match(wide, /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\n/);
      assert.match(wide, /reader\s+Role\/reader\s+\S+\s+carol\s+g1\s+sa-ns:robot/);
      const manifest = [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: Role',
        `metadata: {name: reconciled, namespace: ${ns}}`,
        'rules: [{apiGroups: [""], resources: [events], verbs: [get]}]',
        '---',
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: RoleBinding',
        `metadata: {name: reconciled, namespace: ${ns}}`,
        'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reconciled}',
        'subjects: [{kind: User, name: dave, apiGroup: rbac.authorization.k8s.io}]',
      ].join('\n');
      const file = join(s.dataDir, `reconcile-${ns}.yaml`);
      writeFileSync(file, manifest);
      assert.match(await kubectl(['auth', 'reconcile', '-f', file], { version: v }), /role.rbac.authorization.k8s.io\/reconciled reconciled/);
      // A second run finds nothing to add; a rule the admin added stays.
      await kubectl(['patch', 'role', 'reconciled', '-n', ns, '--type=json', '-p', '[{"op":"add","path":"/rules/-","value":{"apiGroups":[""],"resources":["events"],"verbs":["list"]}}]'], { version: v });
      await kubectl(['auth', 'reconcile', '-f', file], { version: v });
      const rules = JSON.parse(await kubectl(['get', 'role', 'reconciled', '-n', ns, '-o', 'json'], { version: v })).rules;
      assert.equal(rules.length, 2);
      // A rule and a subject the manifest adds are written by updates (PUT; protobuf from 1.32 on).
      writeFileSync(file, manifest.replace('verbs: [get]}]', 'verbs: [get]}, {apiGroups: [""], resources: [events], verbs: [watch]}]').replace('apiGroup: rbac.authorization.k8s.io}]', 'apiGroup: rbac.authorization.k8s.io}, {kind: Group, name: auditors, apiGroup: rbac.authorization.k8s.io}]'));
      assert.match(await kubectl(['auth', 'reconcile', '-f', file], { version: v }), /role.rbac.authorization.k8s.io\/reconciled reconciled/);
      assert.equal(JSON.parse(await kubectl(['get', 'role', 'reconciled', '-n', ns, '-o', 'json'], { version: v })).rules.length, 3);
      const subjects = JSON.parse(await kubectl(['get', 'rolebinding', 'reconciled', '-n', ns, '-o', 'json'], { version: v })).subjects;
      assert.deepEqual(subjects.map((x: { name: string }) => x.name), ['dave', 'auditors']);
    });
  }

  it('kubectl 1.33 reads roles and bindings', async () => {
    await kubectl(['create', 'role', 'r133', '-n', 'k133', '--verb=get', '--resource=events'], { version: '1.31' });
    await kubectl(['create', 'rolebinding', 'r133', '-n', 'k133', '--role=r133', '--user=erin'], { version: '1.31' });
    assert.equal(parseYAML(await kubectl(['get', 'roles', '-n', 'k133', '-o', 'yaml'], { version: '1.33' })).items[0].metadata.name, 'r133');
    assert.match(await kubectl(['describe', 'rolebinding', 'r133', '-n', 'k133'], { version: '1.33' }), /User\s+erin/);
    assert.match(await kubectl(['get', 'roles', '-n', 'k133'], { version: '1.33' }), /^NAME\s+CREATED AT\nr133\s+\d{4}-/);
    const bootstrap = await kubectl(['get', 'clusterroles', 'cluster-admin', 'view', 'system:event-writer'], { version: '1.33' });
    for (const name of ['cluster-admin', 'view', 'system:event-writer']) assert.match(bootstrap, new RegExp(`^${name}\\s`, 'm'));
  });
});

describe('a team in its namespace', () => {
  let alice: Identity;
  before(async () => {
    alice = await identity('alice', ['team-a']);
    await kubectl(['create', 'rolebinding', 'team-a-edit', '-n', 'a', '--clusterrole=edit', '--group=team-a'], { version: '1.31' });
    await kubectl(['create', 'rolebinding', 'team-a-events', '-n', 'a', '--clusterrole=system:event-writer', '--group=team-a'], { version: '1.31' });
  });

  const events = (ns: string) => `/apis/events.cluster.io/v1/namespaces/${ns}/events`;

  it('does every verb on Events in namespace a', async () => {
    await eventually(() => call(alice, 'POST', events('a'), sampleEvent('e1', 'a')));
    assert.equal((await call(alice, 'POST', events('a'), sampleEvent('e2', 'a'))).status, 201);
    assert.equal((await call(alice, 'GET', `${events('a')}/e1`)).status, 200);
    const list = await call(alice, 'GET', events('a'));
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items.map((e: any) => e.metadata.name).sort(), ['e1', 'e2']);
    assert.equal((await call(alice, 'GET', '/api/v1/namespaces/a/events')).status, 200, 'the core view too');
    const w = await watchFirst(alice, `${events('a')}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`, () => call(alice, 'POST', events('a'), sampleEvent('e3', 'a')));
    assert.equal(w.status, 200);
    assert.equal(w.frame.type, 'ADDED');
    assert.equal(w.frame.object.metadata.name, 'e3');
    const patched = await call(alice, 'PATCH', `${events('a')}/e1`, { metadata: { labels: { patched: 'yes' } } }, 'application/merge-patch+json');
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.metadata.labels.patched, 'yes');
    assert.equal((await call(alice, 'DELETE', `${events('a')}/e1`)).status, 200);
    const dc = await call(alice, 'DELETE', events('a'));
    assert.equal(dc.status, 200);
    assert.equal((await call(alice, 'GET', events('a'))).body.items.length, 0);
  });

  it('gets 403 in namespace b and across all namespaces', async () => {
    const b = events('b');
    const checks: [string, string, object?][] = [
      ['POST', b, sampleEvent('x', 'b')],
      ['GET', `${b}/x`],
      ['GET', b],
      ['GET', `${b}?watch=1`],
      ['PATCH', `${b}/x`, {}],
      ['DELETE', `${b}/x`],
      ['DELETE', b],
      ['GET', '/apis/events.cluster.io/v1/events'],
      ['GET', '/apis/events.cluster.io/v1/events?watch=1'],
      ['GET', '/api/v1/events'],
      ['GET', '/api/v1/namespaces/b/events'],
    ];
    for (const [method, path, body] of checks) {
      const r = await call(alice, method, path, body, 'application/merge-patch+json');
      assert.equal(r.status, 403, `${method} ${path}`);
    }
    const all = await call(alice, 'GET', '/apis/events.cluster.io/v1/events');
    assert.equal(all.body.message, 'events.events.cluster.io is forbidden: User "alice" cannot list resource "events" in API group "events.cluster.io" at the cluster scope');
  });

  it('cannot grant itself more: no RBAC writes with edit, and a binding deleted by the admin stops granting', async () => {
    const rb = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'mine' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    };
    const r = await call(alice, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings', rb);
    assert.equal(r.status, 403);
    assert.match(r.body.message, /cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "a"/);
    assert.equal((await call(alice, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles')).status, 403);
    await kubectl(['create', 'rolebinding', 'temp', '-n', 'tmp', '--clusterrole=view', '--user=alice'], { version: '1.31' });
    await eventually(() => call(alice, 'GET', events('tmp')));
    await kubectl(['delete', 'rolebinding', 'temp', '-n', 'tmp']);
    await eventually(() => call(alice, 'GET', events('tmp')), (st) => st === 403);
  });

  it('uses kubectl with the team kubeconfig', async () => {
    const ok = await s.kubectl(['get', 'events.events.cluster.io', '-n', 'a', `--kubeconfig=${alice.kubeconfig}`], { version: '1.31' });
    assert.equal(ok.code, 0, ok.stderr);
    const r = await s.kubectl(['get', 'events.events.cluster.io', '-n', 'b', `--kubeconfig=${alice.kubeconfig}`], { version: '1.31' });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Forbidden/);
  });
});

describe('escalation prevention', () => {
  let bob: Identity;
  before(async () => {
    bob = await identity('bob', ['team-b-admins']);
    await kubectl(['create', 'rolebinding', 'team-b-admin', '-n', 'b', '--clusterrole=admin', '--group=team-b-admins'], { version: '1.31' });
    await eventually(() => call(bob, 'GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/b/roles'));
  });

  const binding = (name: string, kind: string, role: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
  });
  const role = (name: string, verbs: string[]) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name },
    rules: [{ apiGroups: ['events.cluster.io'], resources: ['events'], verbs }],
  });
  const path = (r: string) => `/apis/rbac.authorization.k8s.io/v1/namespaces/b/${r}`;

  it('a namespace admin cannot bind cluster-admin', async () => {
    const r = await call(bob, 'POST', path('rolebindings'), binding('root', 'ClusterRole', 'cluster-admin'));
    assert.equal(r.status, 403);
    assert.equal(
      r.body.message,
      'rolebindings.rbac.authorization.k8s.io "root" is forbidden: user "bob" (groups=["team-b-admins" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}',
    );
  });

  it('a namespace admin cannot grant a verb they lack, and can grant what they hold', async () => {
    const r = await call(bob, 'POST', path('roles'), role('writer', ['get', 'create', 'delete']));
    assert.equal(r.status, 403);
    assert.match(r.body.message, /^roles.rbac.authorization.k8s.io "writer" is forbidden: user "bob" .* not currently held:\n\{APIGroups:\["events.cluster.io"\], Resources:\["events"\], Verbs:\["create" "delete"\]\}$/);
    assert.equal((await call(bob, 'POST', path('roles'), role('reader', ['get', 'list']))).status, 201);
    assert.equal((await call(bob, 'POST', path('rolebindings'), binding('readers', 'Role', 'reader'))).status, 201);
    assert.equal((await call(bob, 'POST', path('rolebindings'), binding('viewers', 'ClusterRole', 'view'))).status, 201);
    // An update that adds a verb is refused just the same.
    const upd = await call(bob, 'PUT', `${path('roles')}/reader`, role('reader', ['get', 'list', 'update']));
    assert.equal(upd.status, 403);
  });

  it('with bind on a role, a namespace admin may bind it', async () => {
    await kubectl(['create', 'role', 'binder', '-n', 'b', '--verb=bind', '--resource=clusterroles', '--resource-name=system:event-writer'], { version: '1.31' });
    await kubectl(['create', 'rolebinding', 'binder', '-n', 'b', '--role=binder', '--user=bob'], { version: '1.31' });
    await eventually(
      () => call(bob, 'POST', `${path('rolebindings')}?dryRun=All`, binding('writers', 'ClusterRole', 'system:event-writer')),
      (st) => st === 201,
    );
    assert.equal((await call(bob, 'POST', path('rolebindings'), binding('root2', 'ClusterRole', 'cluster-admin'))).status, 403);
  });

  it('a binding cannot be pointed at another role', async () => {
    const current = await call(bob, 'GET', `${path('rolebindings')}/readers`);
    const r = await call(bob, 'PUT', `${path('rolebindings')}/readers`, { ...current.body, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } });
    assert.equal(r.status, 422);
    assert.match(r.body.message, /roleRef: Invalid value: .*: cannot change roleRef$/);
  });

  it('outside the namespace the authorizer refuses before escalation is checked', async () => {
    const r = await call(bob, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/c/roles', role('x', ['get']));
    assert.equal(r.status, 403);
    assert.match(r.body.message, /cannot create resource "roles" in API group "rbac.authorization.k8s.io" in the namespace "c"/);
  });
});

describe('ClusterRole aggregation', () => {
  it('a ClusterRole labelled aggregate-to-view extends view (and so edit and admin) until it is deleted', async () => {
    const extra = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] };
    // kubectl create checks resources against discovery, so this one is posted as it is.
    const created = await s.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'widget-viewer' }, rules: [extra] });
    assert.equal(created.status, 201);
    await kubectl(['label', 'clusterrole', 'widget-viewer', 'rbac.authorization.k8s.io/aggregate-to-view=true']);
    const rulesOf = async (name: string) => (await s.request('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`)).json().rules as object[];
    const until = async (cond: () => Promise<boolean>) => {
      const deadline = Date.now() + 5000;
      while (!(await cond())) {
        if (Date.now() > deadline) assert.fail(`aggregation did not settle: view has ${JSON.stringify(await rulesOf('view'))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    for (const role of ['view', 'edit', 'admin']) await until(async () => (await rulesOf(role)).some((r) => isDeepStrictEqual(r, extra)));
    await kubectl(['delete', 'clusterrole', 'widget-viewer']);
    for (const role of ['view', 'edit', 'admin']) await until(async () => !(await rulesOf(role)).some((r) => isDeepStrictEqual(r, extra)));
  });
});

describe('bootstrap policy', () => {
  it('restores a deleted rule of cluster-admin on restart and keeps a rule the admin added', async () => {
    const path = '/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin';
    const before = (await s.request('GET', path)).json();
    const userRule = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] };
    before.rules = [before.rules[0], userRule];
    assert.equal((await s.request('PUT', path, before)).status, 200);
    // autoupdate "false" protects a role from reconciliation.
    const mon = (await s.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:monitoring')).json();
    mon.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'] = 'false';
    mon.rules[0].nonResourceURLs = ['/metrics'];
    assert.equal((await s.request('PUT', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:monitoring', mon)).status, 200);
    await s.stop();
    await s.start();
    const after = (await s.request('GET', path)).json();
    assert.deepEqual(after.rules, [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      userRule,
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]);
    const monAfter = (await s.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:monitoring')).json();
    assert.deepEqual(monAfter.rules[0].nonResourceURLs, ['/metrics']);
    // Objects survive the restart (their own database file beside events.db).
    assert.equal((await s.request('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/b/rolebindings/team-b-admin')).status, 200);
  });
});
