/** End-to-end with the real kubectl (1.33 and 1.27) against a fresh server, as a user would drive it. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { TestServer, sampleEvent } from './helpers/server.ts';

const s = new TestServer();

before(async () => {
  await s.start();
});
after(async () => {
  await s.cleanup();
});

const RES = 'events.v1.events.cluster.io';

for (const version of ['1.33', '1.27']) {
  describe(`kubectl ${version}`, () => {
    const ns = `k${version.replace('.', '')}`;
    const k = (args: string[], input?: string) => s.kubectl(args, { version, ...(input !== undefined ? { input } : {}) });
    const file = join(s.dataDir, `event-${ns}.yaml`);

    it('creates from a file and reads back in every format', async () => {
      writeFileSync(file, stringify(sampleEvent('ev1', ns)));
      const c = await k(['create', '-f', file]);
      assert.equal(c.code, 0, c.stderr);
      assert.equal(c.stdout.trim(), 'event.events.cluster.io/ev1 created');
      const again = await k(['create', '-f', file]);
      assert.notEqual(again.code, 0);
      assert.match(again.stderr, /AlreadyExists.*events\.events\.cluster\.io "ev1" already exists/);

      const all = await k(['get', RES, '-A']);
      assert.equal(all.code, 0, all.stderr);
      assert.match(all.stdout, /^NAMESPACE\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
      assert.match(all.stdout, new RegExp(`${ns}\\s+\\S+\\s+Normal\\s+Started\\s+pod/web-1\\s+Started container web`));

      const yaml = await k(['get', RES, '-n', ns, '-o', 'yaml']);
      assert.equal(yaml.code, 0, yaml.stderr);
      assert.match(yaml.stdout, /kind: List/);
      assert.match(yaml.stdout, /name: ev1/);
      const json = JSON.parse((await k(['get', RES, '-n', ns, '-o', 'json'])).stdout);
      assert.equal(json.items[0].metadata.name, 'ev1');
      const one = await k(['get', RES, '-n', ns, 'ev1']);
      assert.match(one.stdout, /Started container web/);
      const missing = await k(['get', RES, '-n', ns, 'nope']);
      assert.match(missing.stderr, /NotFound.*events\.events\.cluster\.io "nope" not found/);
    });

    it('replaces from a file', async () => {
      const cur = JSON.parse((await k(['get', RES, '-n', ns, 'ev1', '-o', 'json'])).stdout);
      cur.metadata.labels = { app: 'replaced' };
      writeFileSync(file, JSON.stringify(cur));
      const r = await k(['replace', '-f', file]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), 'event.events.cluster.io/ev1 replaced');
      const back = JSON.parse((await k(['get', RES, '-n', ns, 'ev1', '-o', 'json'])).stdout);
      assert.deepEqual(back.metadata.labels, { app: 'replaced' });
    });

    it('watches and sees a create within a second', async () => {
      const watching = k(['get', RES, '-n', ns, '-w', '--request-timeout=4s']);
      await new Promise((r) => setTimeout(r, 1500));
      const created = Date.now();
      const res = await s.request('POST', `/apis/events.cluster.io/v1/namespaces/${ns}/events`, sampleEvent('ev-watched', ns, { note: 'seen by watch' }));
      assert.equal(res.status, 201);
      const out = await watching;
      assert.match(out.stdout, /seen by watch/);
      assert.ok(Date.now() - created < 4000);
    });

    it('deletes one and all', async () => {
      const d = await k(['delete', RES, '-n', ns, 'ev1']);
      assert.equal(d.code, 0, d.stderr);
      assert.equal(d.stdout.trim(), 'event.events.cluster.io "ev1" deleted');
      await s.request('POST', `/apis/events.cluster.io/v1/namespaces/${ns}/events`, sampleEvent('ev2', ns));
      const all = await k(['delete', RES, '--all', '-n', ns]);
      assert.equal(all.code, 0, all.stderr);
      assert.match(all.stdout, /"ev2" deleted/);
      const none = await k(['get', RES, '-n', ns]);
      assert.match(none.stderr, /No resources found/);
    });

    it('discovers the resource and explains it', async () => {
      const ar = await k(['api-resources', '--api-group=events.cluster.io']);
      assert.equal(ar.code, 0, ar.stderr);
      assert.match(ar.stdout, /events\s+ev\s+events\.cluster\.io\/v1\s+true\s+Event/);
      const ex = await k(['explain', 'events', '--api-version=events.cluster.io/v1']);
      assert.equal(ex.code, 0, ex.stderr);
      assert.match(ex.stdout, /KIND:\s+Event/);
      assert.match(ex.stdout, /reportingController/);
      const field = await k(['explain', 'events.regarding', '--api-version=events.cluster.io/v1']);
      assert.equal(field.code, 0, field.stderr);
      assert.match(field.stdout, /fieldPath/);
    });
  });
}
