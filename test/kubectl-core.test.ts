/**
 * End-to-end with the real kubectl (1.33 and 1.27) on the core/v1 view of events: the everyday commands that read
 * `/api/v1` events (`kubectl events`, `kubectl get events`, `kubectl get ev -w`) against a fresh server.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { TestServer, kubectlBinary, sampleEvent } from './helpers/server.ts';

const s = new TestServer();

before(async () => {
  await s.start();
});
after(async () => {
  await s.cleanup();
});

/** Whole seconds, a minute ago: ages print as `60s`, never `<invalid>`. */
const minuteAgo = () => new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString().replace('.000Z', 'Z');

function coreEvent(name: string, ns: string, pod: string, message: string): Record<string, unknown> {
  const t = minuteAgo();
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: ns },
    involvedObject: { kind: 'Pod', namespace: ns, name: pod, apiVersion: 'v1' },
    reason: 'Pulled',
    message,
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: t,
    lastTimestamp: t,
    count: 2,
    type: 'Normal',
  };
}

for (const version of ['1.33', '1.27']) {
  describe(`kubectl ${version}, core/v1 events`, () => {
    const ns = `c${version.replace('.', '')}`;
    const k = (args: string[]) => s.kubectl(args, { version });

    before(async () => {
      // one event through each API, about two different pods
      const file = join(s.dataDir, `core-${ns}.yaml`);
      writeFileSync(file, stringify(coreEvent('pulled', ns, 'web-1', 'Pulled the image')));
      const c = await k(['create', '-f', file]);
      assert.equal(c.code, 0, c.stderr);
      assert.equal(c.stdout.trim(), 'event/pulled created');
      const ev = sampleEvent('started', ns, { eventTime: new Date(Date.now() - 30_000).toISOString().replace('Z', '000Z'), note: 'Started the database' });
      (ev.regarding as Record<string, string>).name = 'db-0';
      const r = await s.request('POST', `/apis/events.cluster.io/v1/namespaces/${ns}/events`, ev);
      assert.equal(r.status, 201, r.body);
    });

    it('kubectl events -n x lists events of both APIs', async () => {
      const r = await k(['events', '-n', ns]);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trim().split('\n');
      assert.match(lines[0]!, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
      // sorted by time: the core event (a minute ago, seen twice) first
      assert.match(lines[1]!, /^\d+s \(x2 over \d+s\)\s+Normal\s+Pulled\s+Pod\/web-1\s+Pulled the image$/);
      assert.match(lines[2]!, /^\d+s\s+Normal\s+Started\s+Pod\/db-0\s+Started the database$/);
      assert.equal(lines.length, 3);
    });

    it('kubectl events --for pod/p -n x selects by involvedObject', async () => {
      const r = await k(['events', '--for', 'pod/db-0', '-n', ns]);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trim().split('\n');
      assert.equal(lines.length, 2, r.stdout);
      assert.match(lines[1]!, /Pod\/db-0\s+Started the database$/);
      const none = await k(['events', '--for', 'pod/nothing', '-n', ns]);
      assert.equal(none.code, 0, none.stderr);
      assert.match(none.stderr, new RegExp(`No events found in ${ns} namespace`));
    });

    it('kubectl get events -A and get ev by name read the core view', async () => {
      const all = await k(['get', 'events', '-A']);
      assert.equal(all.code, 0, all.stderr);
      assert.match(all.stdout, /^NAMESPACE\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
      assert.match(all.stdout, new RegExp(`${ns}\\s+\\d+s\\s+Normal\\s+Pulled\\s+pod/web-1\\s+Pulled the image`));
      assert.match(all.stdout, new RegExp(`${ns}\\s+\\d+s\\s+Normal\\s+Started\\s+pod/db-0\\s+Started the database`));
      const json = JSON.parse((await k(['get', 'ev', '-n', ns, 'started', '-o', 'json'])).stdout);
      assert.equal(json.apiVersion, 'v1');
      assert.equal(json.message, 'Started the database');
      assert.equal(json.reportingComponent, 'example.com/controller');
      const missing = await k(['get', 'ev', '-n', ns, 'nope']);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /Error from server \(NotFound\): events "nope" not found/);
    });

    it('kubectl get ev -w sees a create through the events API within a second', async () => {
      const child = spawn(kubectlBinary(version), [`--kubeconfig=${s.kubeconfig}`, `--cache-dir=${join(s.dataDir, 'kubectl-cache')}`, 'get', 'ev', '-n', ns, '-w']);
      let out = '';
      let seenAt = 0;
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (!seenAt && out.includes('seen by the core watch')) seenAt = Date.now();
      });
      try {
        // the initial list is printed once the watch is about to start
        for (let i = 0; i < 100 && !out.includes('Pulled the image'); i++) await new Promise((r) => setTimeout(r, 50));
        await new Promise((r) => setTimeout(r, 200));
        const created = Date.now();
        const res = await s.request('POST', `/apis/events.cluster.io/v1/namespaces/${ns}/events`, sampleEvent('watched', ns, { note: 'seen by the core watch' }));
        assert.equal(res.status, 201);
        for (let i = 0; i < 40 && !seenAt; i++) await new Promise((r) => setTimeout(r, 25));
        assert.ok(seenAt > 0, out);
        assert.ok(seenAt - created < 1000, `seen after ${seenAt - created} ms`);
        assert.match(out, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
      } finally {
        child.kill();
      }
    });

    it('kubectl delete ev removes the event from both APIs', async () => {
      const d = await k(['delete', 'ev', '-n', ns, 'pulled']);
      assert.equal(d.code, 0, d.stderr);
      assert.equal(d.stdout.trim(), 'event "pulled" deleted');
      assert.equal((await s.request('GET', `/apis/events.cluster.io/v1/namespaces/${ns}/events/pulled`)).status, 404);
    });
  });
}
