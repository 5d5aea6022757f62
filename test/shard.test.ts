/** End-to-end: shardSelector behind the ShardedListAndWatch gate. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TestServer, sampleEvent } from './helpers/server.ts';

const BASE = '/apis/events.cluster.io/v1';
const q = (s: string) => encodeURIComponent(s);

describe('shardSelector with the gate on', () => {
  const s = new TestServer();
  before(async () => {
    await s.start(['--feature-gates=ShardedListAndWatch=true']);
    for (let i = 0; i < 40; i++) assert.equal((await s.request('POST', `${BASE}/namespaces/sh${i % 5}/events`, sampleEvent(`e${i}`, `sh${i % 5}`))).status, 201);
  });
  after(() => s.cleanup());

  it('N disjoint uid shards together return every event exactly once', async () => {
    const bounds = ['0x0', '0x4000000000000000', '0x8000000000000000', '0xc000000000000000', '0x10000000000000000'];
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const sel = `shardRange(object.metadata.uid, '${bounds[i]}', '${bounds[i + 1]}')`;
      const r = await s.request('GET', `${BASE}/events?shardSelector=${q(sel)}`);
      assert.equal(r.status, 200, r.body);
      const l = r.json();
      assert.match(l.metadata.shardInfo.selector, /^shardRange\(object\.metadata\.uid, '0x[0-9a-f]{16,17}', '0x[0-9a-f]{16,17}'\)$/);
      seen.push(...l.items.map((e: any) => e.metadata.uid));
    }
    const all = (await s.request('GET', `${BASE}/events`)).json().items.map((e: any) => e.metadata.uid);
    assert.equal(seen.length, all.length);
    assert.deepEqual([...seen].sort(), [...all].sort());
  });

  it('shards by namespace, and joins ranges with ||', async () => {
    const sel = `shardRange(object.metadata.namespace, '0x0', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')`;
    const l = (await s.request('GET', `${BASE}/events?shardSelector=${q(sel)}`)).json();
    assert.equal(l.items.length, 40);
    assert.ok(l.metadata.shardInfo.selector.includes(' || '));
  });

  it('refuses a malformed selector with a 400 naming the problem', async () => {
    const r = await s.request('GET', `${BASE}/events?shardSelector=${q("shardRange(object.metadata.name, '0x0', '0x1')")}`);
    assert.equal(r.status, 400);
    assert.equal(r.json().reason, 'BadRequest');
    assert.match(r.json().message, /^invalid shard selector: unsupported field path "object.metadata.name"/);
  });

  it('filters watches', async () => {
    const sel = `shardRange(object.metadata.namespace, '0x0', '0x10000000000000000')`;
    const w = s.watch(`${BASE}/namespaces/sh0/events?watch=1&resourceVersion=0&timeoutSeconds=1&shardSelector=${q(sel)}`);
    await w.closed;
    assert.equal(w.frames.length, 8);
  });
});

describe('shardSelector with the gate off', () => {
  const s = new TestServer();
  before(async () => {
    await s.start();
    await s.request('POST', `${BASE}/namespaces/off/events`, sampleEvent('one', 'off'));
  });
  after(() => s.cleanup());

  it('is ignored, as upstream with the gate off', async () => {
    const r = await s.request('GET', `${BASE}/events?shardSelector=${q('garbage(')}`);
    assert.equal(r.status, 200);
    assert.equal(r.json().items.length, 1);
    assert.equal(r.json().metadata.shardInfo, undefined);
  });
});
