/**
 * Any resource from one definition: a namespaced Widget and a cluster-scoped Gadget, registered as the README's
 * "Adding a resource" says, are served with the generic REST behaviour — routing for each scope, discovery,
 * OpenAPI, Table, every verb, watch, the three patch types and server-side apply, admission — and kubectl works
 * with them as with any resource.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AdmissionChain } from '../src/admission/chain.ts';
import type { Attributes } from '../src/admission/interfaces.ts';
import { ForbiddenError } from '../src/apimachinery/errors.ts';
import { type Registered, registerResource } from '../src/registry/generic/registration.ts';
import { type Widget, gadgetDefinition, widgetDefinition } from '../src/registry/testing/widgets.ts';
import { MemoryStorage } from '../src/storage/memory/storage.ts';
import { Scheme } from '../src/storage/scheme.ts';
import { type InProcessServer, startInProcessServer } from './helpers/inproc.ts';

const G = '/apis/testing.cluster.io/v1';
const widget = (name: string, size = 1) => ({ apiVersion: 'testing.cluster.io/v1', kind: 'Widget', metadata: { name }, spec: { size } });
const gadget = (name: string, size = 1) => ({ apiVersion: 'testing.cluster.io/v1', kind: 'Gadget', metadata: { name }, spec: { size } });

/** Records what admission saw; refuses Widgets whose color is `forbidden`, defaults a missing color to `grey`. */
class RecordingPlugin {
  readonly seen: string[] = [];
  handles(): boolean {
    return true;
  }
  admit(a: Attributes): void {
    this.seen.push(`admit ${a.operation} ${a.resource.resource} ${a.namespace}/${a.name} dryRun=${a.dryRun}`);
    const spec = (a.object as Widget | null)?.spec;
    if (spec && a.kind.kind === 'Widget' && !spec.color) spec.color = 'grey';
  }
  validate(a: Attributes): void {
    this.seen.push(`validate ${a.operation} ${a.resource.resource} ${a.namespace}/${a.name} old=${a.oldObject ? 'yes' : 'no'}`);
    if ((a.object as Widget | null)?.spec?.color === 'forbidden') throw new ForbiddenError('widgets may not be forbidden');
  }
}

function kubectl(s: InProcessServer, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile('kubectl', [`--kubeconfig=${s.kubeconfig}`, `--cache-dir=${join(s.dataDir, 'kubectl-cache')}`, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

describe('generic REST behaviour for a resource of each scope', () => {
  let storage: MemoryStorage;
  let widgets: Registered<Widget>;
  let gadgets: Registered<Widget>;
  let s: InProcessServer;
  const plugin = new RecordingPlugin();

  before(async () => {
    const scheme = new Scheme();
    storage = new MemoryStorage({ codec: scheme });
    widgets = await registerResource(widgetDefinition(), { storage, scheme });
    gadgets = await registerResource(gadgetDefinition(), { storage, scheme });
    s = await startInProcessServer([widgets.scope, gadgets.scope], { admission: new AdmissionChain([plugin]) });
  });
  after(async () => {
    await s.stop();
    widgets.cacher.stop();
    gadgets.cacher.stop();
    await storage.close();
  });

  it('discovery lists both with their scope, verbs, short names and categories', async () => {
    const list = (await s.request('GET', G)).json();
    const byName = Object.fromEntries(list.resources.map((r: { name: string }) => [r.name, r]));
    assert.deepEqual(
      { namespaced: byName.widgets.namespaced, kind: byName.widgets.kind, shortNames: byName.widgets.shortNames, categories: byName.widgets.categories },
      { namespaced: true, kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
    );
    assert.equal(byName.gadgets.namespaced, false);
    assert.deepEqual(byName.gadgets.verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    const groups = (await s.request('GET', '/apis')).json();
    assert.deepEqual(groups.groups.map((g: { name: string }) => g.name), ['testing.cluster.io']);
  });

  it('OpenAPI v3 describes the namespaced and the cluster-scoped paths', async () => {
    const index = (await s.request('GET', '/openapi/v3')).json();
    const url: string = index.paths['apis/testing.cluster.io/v1'].serverRelativeURL;
    const doc = (await s.request('GET', url)).json();
    assert.ok(doc.paths['/apis/testing.cluster.io/v1/namespaces/{namespace}/widgets/{name}']);
    assert.ok(doc.paths['/apis/testing.cluster.io/v1/gadgets/{name}']);
    assert.ok(!doc.paths['/apis/testing.cluster.io/v1/namespaces/{namespace}/gadgets']);
    assert.ok(doc.components.schemas['io.cluster.api.testing.v1.Widget']);
  });

  it('routes each scope: a namespaced resource has no objects outside namespaces, a cluster-scoped one no namespaced paths', async () => {
    assert.equal((await s.request('POST', `${G}/widgets`, widget('w'))).status, 405);
    assert.equal((await s.request('GET', `${G}/widgets/w`)).status, 404);
    assert.equal((await s.request('GET', `${G}/widgets`)).status, 200, 'the cluster-wide list of a namespaced resource');
    assert.equal((await s.request('GET', `${G}/namespaces/ns/gadgets`)).status, 404);
    assert.equal((await s.request('POST', `${G}/namespaces/ns/gadgets`, gadget('g'))).status, 404);
  });

  for (const [kind, base, obj, keyOf] of [
    ['namespaced Widget', `${G}/namespaces/ns/widgets`, widget, (n: string) => `/widgets/ns/${n}`],
    ['cluster-scoped Gadget', `${G}/gadgets`, gadget, (n: string) => `/gadgets/${n}`],
  ] as const) {
    describe(kind, () => {
      it('create, get, list, replace, the three patch types, apply, delete — and a watch sees each change', async () => {
        const watch = await startWatch(s, `${base}?watch=true`);
        const created = await s.request('POST', base, obj('a', 1));
        assert.equal(created.status, 201, created.body);
        const a = created.json();
        assert.equal(a.metadata.namespace, base.includes('/namespaces/') ? 'ns' : undefined);
        assert.equal((await s.request('GET', `${base}/a`)).json().metadata.uid, a.metadata.uid);
        assert.deepEqual((await s.request('GET', base)).json().items.map((i: Widget) => i.metadata.name), ['a']);
        const replaced = await s.request('PUT', `${base}/a`, { ...a, spec: { ...a.spec, size: 2 } });
        assert.equal(replaced.status, 200, replaced.body);
        const merge = await s.request('PATCH', `${base}/a`, { spec: { size: 3 } }, { 'content-type': 'application/merge-patch+json' });
        assert.equal(merge.json().spec.size, 3);
        const json = await s.request('PATCH', `${base}/a`, [{ op: 'replace', path: '/spec/size', value: 4 }], { 'content-type': 'application/json-patch+json' });
        assert.equal(json.json().spec.size, 4);
        const smp = await s.request('PATCH', `${base}/a`, { spec: { size: 5 } }, { 'content-type': 'application/strategic-merge-patch+json' });
        assert.equal(smp.json().spec.size, 5);
        const apply = await s.request('PATCH', `${base}/b?fieldManager=test`, JSON.stringify(obj('b', 6)), { 'content-type': 'application/apply-patch+yaml' });
        assert.equal(apply.status, 201, apply.body);
        assert.deepEqual(apply.json().metadata.managedFields.map((m: { manager: string; operation: string }) => `${m.manager}/${m.operation}`), ['test/Apply']);
        assert.equal((await s.request('PATCH', `${base}/missing`, { spec: { size: 1 } }, { 'content-type': 'application/merge-patch+json' })).status, 404);
        const del = await s.request('DELETE', `${base}/a`);
        assert.equal(del.status, 200);
        assert.equal(del.json().status, 'Success');
        assert.equal(del.json().details.uid, a.metadata.uid);
        const gone = await s.request('DELETE', base);
        assert.equal(gone.status, 200);
        assert.deepEqual(gone.json().items.map((i: Widget) => i.metadata.name), ['b']);
        const frames = await watch.until(8);
        assert.deepEqual(
          frames.map((f) => `${f.type} ${f.object.metadata.name}`),
          ['ADDED a', 'MODIFIED a', 'MODIFIED a', 'MODIFIED a', 'MODIFIED a', 'ADDED b', 'DELETED a', 'DELETED b'],
        );
        watch.stop();
        assert.equal(await storage.count(keyOf('')), 0);
      });

      it('errors name the resource: 404, 409 AlreadyExists and Conflict, 422 Invalid', async () => {
        const qualified = base.endsWith('widgets') ? 'widgets.testing.cluster.io' : 'gadgets.testing.cluster.io';
        assert.equal((await s.request('GET', `${base}/nope`)).json().message, `${qualified} "nope" not found`);
        const c = (await s.request('POST', base, obj('e1'))).json();
        assert.equal((await s.request('POST', base, obj('e1'))).json().message, `${qualified} "e1" already exists`);
        await s.request('PUT', `${base}/e1`, { ...c, spec: { size: 2 } });
        const stale = await s.request('PUT', `${base}/e1`, { ...c, spec: { size: 3 } });
        assert.equal(stale.status, 409);
        assert.equal(stale.json().reason, 'Conflict');
        const bad = await s.request('POST', base, obj('neg', -1));
        assert.equal(bad.status, 422);
        assert.equal(bad.json().details.causes[0].field, 'spec.size');
        await s.request('DELETE', `${base}/e1`);
      });
    });
  }

  it('Table output: the resource\'s own columns, or the default Name and Created At', async () => {
    await s.request('POST', `${G}/namespaces/t/widgets`, widget('tw', 7));
    await s.request('POST', `${G}/gadgets`, gadget('tg'));
    const accept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const wt = (await s.request('GET', `${G}/namespaces/t/widgets`, undefined, accept)).json();
    assert.deepEqual(wt.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Size']);
    assert.deepEqual(wt.rows[0].cells, ['tw', 7]);
    const gt = (await s.request('GET', `${G}/gadgets`, undefined, accept)).json();
    assert.deepEqual(gt.columnDefinitions.map((c: { name: string; type: string }) => `${c.name}:${c.type}`), ['Name:string', 'Created At:date']);
    assert.equal(gt.rows[0].cells[0], 'tg');
    assert.match(gt.rows[0].cells[1], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await s.request('DELETE', `${G}/namespaces/t/widgets/tw`);
    await s.request('DELETE', `${G}/gadgets/tg`);
  });

  it('admission: mutating plugins change the object, validating ones refuse, at every write; dry run is passed on', async () => {
    plugin.seen.length = 0;
    const c = await s.request('POST', `${G}/namespaces/adm/widgets?dryRun=All`, widget('x'));
    assert.equal(c.json().spec.color, 'grey', 'the mutating plugin defaulted the color');
    const created = (await s.request('POST', `${G}/namespaces/adm/widgets`, widget('x'))).json();
    const refused = await s.request('PUT', `${G}/namespaces/adm/widgets/x`, { ...created, spec: { size: 1, color: 'forbidden' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.json().message, 'widgets may not be forbidden');
    await s.request('PATCH', `${G}/namespaces/adm/widgets/x`, { spec: { size: 2 } }, { 'content-type': 'application/merge-patch+json' });
    await s.request('DELETE', `${G}/namespaces/adm/widgets/x`);
    assert.deepEqual(plugin.seen, [
      'admit CREATE widgets adm/x dryRun=true',
      'validate CREATE widgets adm/x old=no',
      'admit CREATE widgets adm/x dryRun=false',
      'validate CREATE widgets adm/x old=no',
      'admit UPDATE widgets adm/x dryRun=false',
      'validate UPDATE widgets adm/x old=yes',
      'admit UPDATE widgets adm/x dryRun=false',
      'validate UPDATE widgets adm/x old=yes',
      'admit DELETE widgets adm/x dryRun=false',
      'validate DELETE widgets adm/x old=yes',
    ]);
  });

  it('kubectl works with both as with any resource (get with short names, apply, describe-free delete)', async () => {
    const manifest = join(s.dataDir, 'both.yaml');
    writeFileSync(
      manifest,
      'apiVersion: testing.cluster.io/v1\nkind: Widget\nmetadata:\n  name: kw\n  namespace: kns\nspec:\n  size: 3\n---\napiVersion: testing.cluster.io/v1\nkind: Gadget\nmetadata:\n  name: kg\nspec:\n  size: 4\n',
    );
    const applied = await kubectl(s, ['apply', '--server-side', '-f', manifest]);
    assert.equal(applied.code, 0, applied.stderr);
    const wd = await kubectl(s, ['get', 'wd', '-n', 'kns']);
    assert.equal(wd.code, 0, wd.stderr);
    assert.match(wd.stdout, /^NAME\s+SIZE\nkw\s+3\n$/);
    const g = await kubectl(s, ['get', 'gadgets', '-o', 'jsonpath={.items[*].spec.size}']);
    assert.equal(g.stdout, '4');
    const del = await kubectl(s, ['delete', '-f', manifest]);
    assert.equal(del.code, 0, del.stderr);
    assert.equal(await storage.count('/'), 0);
  });
});

/** A watch that collects frames; `until(n)` waits for n of them (or two seconds). */
async function startWatch(s: InProcessServer, path: string) {
  const https = await import('node:https');
  const { readFileSync } = await import('node:fs');
  const { parse } = await import('yaml');
  const kc = parse(readFileSync(s.kubeconfig, 'utf8'));
  const u = kc.users[0].user;
  const frames: { type: string; object: Widget }[] = [];
  let buf = '';
  const req = https.request({
    host: '127.0.0.1',
    port: s.port,
    path,
    ca: Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64'),
    cert: Buffer.from(u['client-certificate-data'], 'base64'),
    key: Buffer.from(u['client-key-data'], 'base64'),
  });
  await new Promise<void>((resolve) => {
    req.on('response', (res) => {
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) frames.push(JSON.parse(buf.slice(0, i)));
      });
      resolve();
    });
    req.on('error', () => resolve());
    req.end();
  });
  return {
    async until(n: number) {
      for (let t = 0; t < 100 && frames.length < n; t++) await new Promise((r) => setTimeout(r, 20));
      return frames;
    },
    stop: () => req.destroy(),
  };
}
