/** End-to-end: every kubectl write path that patches (patch, label, annotate, edit, client-side apply, diff). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { TestServer, sampleEvent } from './helpers/server.ts';

const s = new TestServer();
const RES = 'events.v1.events.cluster.io';
const NS = 'kw';

before(async () => {
  await s.start();
});
after(async () => {
  await s.cleanup();
});

const k = (args: string[], env?: Record<string, string>) => s.kubectl(args, env ? { env } : {});
const getJSON = async (name: string) => {
  const r = await k(['get', RES, '-n', NS, name, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};
async function create(name: string): Promise<void> {
  const r = await s.request('POST', `/apis/events.cluster.io/v1/namespaces/${NS}/events`, sampleEvent(name, NS));
  assert.equal(r.status, 201, r.body);
}

describe('kubectl patch, label, annotate, edit', () => {
  it('patches with --type merge, json and strategic; reports no-op patches', async () => {
    await create('p1');
    const merge = await k(['patch', RES, 'p1', '-n', NS, '--type', 'merge', '-p', '{"metadata":{"labels":{"tier":"web"}}}']);
    assert.equal(merge.code, 0, merge.stderr);
    assert.equal(merge.stdout.trim(), 'event.events.cluster.io/p1 patched');
    const same = await k(['patch', RES, 'p1', '-n', NS, '--type', 'merge', '-p', '{"metadata":{"labels":{"tier":"web"}}}']);
    assert.equal(same.stdout.trim(), 'event.events.cluster.io/p1 patched (no change)');
    const json = await k(['patch', RES, 'p1', '-n', NS, '--type', 'json', '-p', '[{"op":"replace","path":"/metadata/labels/tier","value":"db"}]']);
    assert.equal(json.code, 0, json.stderr);
    const smp = await k(['patch', RES, 'p1', '-n', NS, '-p', '{"metadata":{"finalizers":["example.com/a"],"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"web-1","uid":"u-1"}]}}']);
    assert.equal(smp.code, 0, smp.stderr);
    const ev = await getJSON('p1');
    assert.deepEqual(ev.metadata.labels, { app: 'demo', tier: 'db' });
    assert.deepEqual(ev.metadata.finalizers, ['example.com/a']);
    assert.equal(ev.metadata.ownerReferences[0].uid, 'u-1');
    const failing = await k(['patch', RES, 'p1', '-n', NS, '--type', 'json', '-p', '[{"op":"test","path":"/metadata/labels/tier","value":"nope"}]']);
    assert.notEqual(failing.code, 0);
    assert.match(failing.stderr, /The request is invalid: the server rejected our request due to an error in our request/);
    const immutable = await k(['patch', RES, 'p1', '-n', NS, '--type', 'merge', '-p', '{"note":"rewritten"}']);
    assert.notEqual(immutable.code, 0);
    assert.match(immutable.stderr, /Event "p1" is invalid: note: Invalid value: "rewritten": field is immutable/);
    const missing = await k(['patch', RES, 'nope', '-n', NS, '--type', 'merge', '-p', '{}']);
    assert.match(missing.stderr, /NotFound.*events\.events\.cluster\.io "nope" not found/);
    const clear = await k(['patch', RES, 'p1', '-n', NS, '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    assert.equal(clear.code, 0, clear.stderr);
  });

  it('labels and annotates', async () => {
    await create('l1');
    const add = await k(['label', RES, 'l1', '-n', NS, 'tier=web']);
    assert.equal(add.code, 0, add.stderr);
    assert.equal(add.stdout.trim(), 'event.events.cluster.io/l1 labeled');
    const clash = await k(['label', RES, 'l1', '-n', NS, 'tier=db']);
    assert.notEqual(clash.code, 0);
    const over = await k(['label', RES, 'l1', '-n', NS, 'tier=db', '--overwrite']);
    assert.equal(over.code, 0, over.stderr);
    const del = await k(['label', RES, 'l1', '-n', NS, 'app-']);
    assert.equal(del.stdout.trim(), 'event.events.cluster.io/l1 unlabeled');
    const ann = await k(['annotate', RES, 'l1', '-n', NS, 'example.com/note=hello world']);
    assert.equal(ann.code, 0, ann.stderr);
    assert.equal(ann.stdout.trim(), 'event.events.cluster.io/l1 annotated');
    const ev = await getJSON('l1');
    assert.deepEqual(ev.metadata.labels, { tier: 'db' });
    assert.deepEqual(ev.metadata.annotations, { 'example.com/note': 'hello world' });
    const sel = await k(['get', RES, '-n', NS, '-l', 'tier=db,!app', '-o', 'name']);
    assert.equal(sel.stdout.trim(), 'event.events.cluster.io/l1');
  });

  it('edits with $EDITOR', async () => {
    await create('e1');
    const editor = join(s.dataDir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/app: demo/app: edited/" "$1"\n');
    chmodSync(editor, 0o755);
    const r = await k(['edit', RES, 'e1', '-n', NS], { EDITOR: editor, KUBE_EDITOR: editor });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'event.events.cluster.io/e1 edited');
    assert.deepEqual((await getJSON('e1')).metadata.labels, { app: 'edited' });
  });
});

describe('kubectl apply (client-side) and diff', () => {
  it('creates with the last-applied annotation, then patches the changes', async () => {
    const file = join(s.dataDir, 'apply.yaml');
    const ev = sampleEvent('ap1', NS);
    writeFileSync(file, stringify(ev));
    const c = await k(['apply', '-f', file]);
    assert.equal(c.code, 0, c.stderr);
    assert.equal(c.stdout.trim(), 'event.events.cluster.io/ap1 created');
    const created = await getJSON('ap1');
    const last = JSON.parse(created.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.deepEqual(last.metadata.labels, { app: 'demo' });

    (ev.metadata as Record<string, unknown>).labels = { tier: 'web' };
    writeFileSync(file, stringify(ev));
    const diff = await k(['diff', '-f', file]);
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /^-\s+app: demo$/m);
    assert.match(diff.stdout, /^\+\s+tier: web$/m);
    assert.deepEqual((await getJSON('ap1')).metadata.labels, { app: 'demo' });

    const u = await k(['apply', '-f', file]);
    assert.equal(u.code, 0, u.stderr);
    assert.equal(u.stdout.trim(), 'event.events.cluster.io/ap1 configured');
    const updated = await getJSON('ap1');
    assert.deepEqual(updated.metadata.labels, { tier: 'web' });
    assert.deepEqual(JSON.parse(updated.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).metadata.labels, { tier: 'web' });
    const same = await k(['apply', '-f', file]);
    assert.equal(same.stdout.trim(), 'event.events.cluster.io/ap1 unchanged');
    const none = await k(['diff', '-f', file]);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, '');
  });
});

describe('kubectl apply --server-side', () => {
  it('creates, updates, reports a conflict between two managers, forces, and shows managedFields', async () => {
    const file = join(s.dataDir, 'ssa.yaml');
    const ev = sampleEvent('ss1', NS);
    writeFileSync(file, stringify(ev));
    const c = await k(['apply', '--server-side', '--field-manager=alice', '-f', file]);
    assert.equal(c.code, 0, c.stderr);
    assert.equal(c.stdout.trim(), 'event.events.cluster.io/ss1 serverside-applied');

    (ev.metadata as Record<string, unknown>).labels = { app: 'demo', tier: 'web' };
    writeFileSync(file, stringify(ev));
    const u = await k(['apply', '--server-side', '--field-manager=alice', '-f', file]);
    assert.equal(u.code, 0, u.stderr);
    assert.deepEqual((await getJSON('ss1')).metadata.labels, { app: 'demo', tier: 'web' });

    (ev.metadata as Record<string, unknown>).labels = { tier: 'db' };
    writeFileSync(file, stringify(ev));
    const conflict = await k(['apply', '--server-side', '--field-manager=bob', '-f', file]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "alice": \.metadata\.labels\.tier/);
    assert.deepEqual((await getJSON('ss1')).metadata.labels, { app: 'demo', tier: 'web' });

    const forced = await k(['apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', file]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(forced.stdout.trim(), 'event.events.cluster.io/ss1 serverside-applied');
    assert.deepEqual((await getJSON('ss1')).metadata.labels, { app: 'demo', tier: 'db' });

    const hidden = await k(['get', RES, '-n', NS, 'ss1', '-o', 'yaml']);
    assert.doesNotMatch(hidden.stdout, /managedFields/);
    const shown = await k(['get', RES, '-n', NS, 'ss1', '-o', 'yaml', '--show-managed-fields']);
    assert.equal(shown.code, 0, shown.stderr);
    const managers = [...shown.stdout.matchAll(/manager: (\S+)\n\s+operation: (\S+)/g)].map((m) => `${m[1]}/${m[2]}`);
    assert.deepEqual(managers, ['alice/Apply', 'bob/Apply']);
    assert.match(shown.stdout, /f:tier: \{\}/);
  });

  it('records kubectl-label and kubectl-patch as Update managers', async () => {
    await create('ss2');
    await k(['label', RES, 'ss2', '-n', NS, 'tier=web']);
    await k(['patch', RES, 'ss2', '-n', NS, '--type', 'merge', '-p', '{"metadata":{"annotations":{"a":"b"}}}']);
    const ev = JSON.parse((await k(['get', RES, '-n', NS, 'ss2', '-o', 'json', '--show-managed-fields'])).stdout);
    const managers = ev.metadata.managedFields.map((e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`);
    assert.ok(managers.includes('kubectl-label/Update'), managers.join());
    assert.ok(managers.includes('kubectl-patch/Update'), managers.join());
  });
});
