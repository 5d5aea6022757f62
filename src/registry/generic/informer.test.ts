import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { Storage, Watch, WatchHandler } from '../../storage/interface.ts';
import { MemoryStorage } from '../../storage/memory/storage.ts';
import { jsonCodec } from '../../storage/testing/json-codec.ts';
import { Informer } from './informer.ts';

const obj = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Thing', metadata: { name } });
const tick = () => new Promise((r) => setTimeout(r, 10));

test('informer: lists, follows the watch, and on a relist reports what was deleted meanwhile', async () => {
  const backend = new MemoryStorage({ codec: jsonCodec });
  // A storage whose watches the test can break, as a compaction would.
  const handlers: WatchHandler[] = [];
  const storage = {
    list: (prefix: string) => backend.list(prefix),
    watch(prefix: string, rv: number, h: WatchHandler): Watch {
      handlers.push(h);
      return backend.watch(prefix, rv, h);
    },
  } as unknown as Storage;
  await backend.create('/things/a', obj('a'));
  await backend.create('/things/b', obj('b'));
  const inf = new Informer<KubeObject>(storage, '/things/', (v) => jsonCodec.decode(v));
  const seen: string[] = [];
  inf.onChange((o, deleted) => seen.push(`${deleted ? '-' : '+'}${o.metadata.name}`));
  await inf.start();
  assert.deepEqual([...inf.values()].map((o) => o.metadata.name).sort(), ['a', 'b']);
  await backend.create('/things/c', obj('c'));
  await tick();
  assert.equal(inf.get('/things/c')?.metadata.name, 'c');
  assert.deepEqual(seen.sort(), ['+a', '+b', '+c']);
  seen.length = 0;
  handlers.at(-1)!.onError(new Error('compacted'));
  await backend.delete('/things/a');
  await tick();
  assert.equal(inf.get('/things/a'), undefined);
  assert.ok(seen.includes('-a'), seen.join(','));
  inf.stop();
  await backend.close();
});
