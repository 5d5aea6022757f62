import { test } from 'node:test';
import assert from 'node:assert/strict';
import { identityTransformer } from './identity.ts';
import { KeyContext } from './transformer.ts';

test('identity stores and reads values as they are, synchronously, never stale', () => {
  const ctx = new KeyContext('/events/ns/a');
  const value = Buffer.from('{"metadata":{}}');
  assert.equal(identityTransformer.transformToStorage(value, ctx), value);
  assert.deepEqual(identityTransformer.transformFromStorage(value, ctx), { data: value, stale: false });
  const empty = Buffer.alloc(0);
  assert.deepEqual(identityTransformer.transformFromStorage(empty, ctx), { data: empty, stale: false });
});

test('identity refuses to read what an encryption provider wrote', () => {
  const ctx = new KeyContext('/events/ns/a');
  assert.throws(() => identityTransformer.transformFromStorage(Buffer.from('cluster:enc:aesgcm:v1:key1:\x00\x01'), ctx), /identity transformer tried to read encrypted data/);
  // Only the whole prefix counts.
  const near = Buffer.from('cluster:encrypted');
  assert.equal((identityTransformer.transformFromStorage(near, ctx) as { data: Buffer }).data, near);
});

test('the authenticated data of a stored value is its key', () => {
  const ctx = new KeyContext('/events/ns/é');
  assert.deepEqual(ctx.authenticatedData(), Buffer.from('/events/ns/é'));
  assert.equal(ctx.authenticatedData(), ctx.authenticatedData(), 'made once');
});
