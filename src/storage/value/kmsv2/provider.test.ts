import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestKMSPlugin } from '../../../../test/helpers/kms-plugin.ts';
import { KeyContext, isPromise, type FromStorage, type MaybePromise } from '../transformer.ts';
import { KMSv2Provider } from './provider.ts';
import { EncryptedObjectType, decodeMessage, type EncryptedObject } from './proto.ts';
import { SeedTransformer } from './seed.ts';

const dir = mkdtempSync(join(tmpdir(), 'kmsv2-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const ctx = new KeyContext('/events/ns/a');
const plain = Buffer.from('{"note":"kms secret"}');
const read = async (p: KMSv2Provider, v: Buffer, c = ctx): Promise<FromStorage> => {
  const r: MaybePromise<FromStorage> = p.transformFromStorage(v, c);
  return isPromise(r) ? await r : r;
};
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('KMS v2 provider against a plugin on a unix socket', () => {
  it('seeds: a fresh key per value from HKDF-Expand(seed, 32-byte info); layout info ‖ nonce ‖ ct ‖ tag; bound to the storage key', () => {
    const seed = Buffer.alloc(32, 7);
    const t = new SeedTransformer(seed);
    const a = t.transformToStorage(plain, ctx);
    assert.equal(a.length, 32 + 12 + plain.length + 16);
    assert.notDeepEqual(a.subarray(0, 32), t.transformToStorage(plain, ctx).subarray(0, 32));
    assert.deepEqual(new SeedTransformer(seed).transformFromStorage(a, ctx).data, plain);
    assert.throws(() => t.transformFromStorage(a, new KeyContext('/events/ns/b')), /message authentication failed/);
    assert.throws(() => new SeedTransformer(Buffer.alloc(32, 8)).transformFromStorage(a, ctx));
  });

  it('writes EncryptedObject with the status key ID; reads decrypt each seed once; rotation makes old values stale; a gone plugin stops writes after the limit, reads of known seeds go on', async () => {
    const plugin = new TestKMSPlugin(join(dir, 'kms.sock'));
    await plugin.start();
    let now = Date.now();
    const p = new KMSv2Provider({ name: 'p1', endpoint: plugin.endpoint, timeoutMs: 1000, timing: { healthyPollMs: 60_000, unhealthyPollMs: 60_000, healthOkTTLMs: 0, healthFailTTLMs: 0 }, now: () => now });
    try {
      assert.equal(await p.start(), undefined);
      await p.healthCheck();
      const v1 = p.transformToStorage(plain, ctx);
      const o = decodeMessage<EncryptedObject>(EncryptedObjectType, v1);
      assert.equal(o.keyID, 'key-1');
      assert.equal(o.encryptedDEKSourceType, 1);
      assert.deepEqual(o.annotations, { 'kms.example.com': Buffer.from('test-plugin') });
      assert.ok(!v1.includes(Buffer.from('kms secret')));
      assert.equal(plugin.calls.Encrypt, 1, 'one seed for many writes');
      p.transformToStorage(plain, ctx);
      assert.equal(plugin.calls.Encrypt, 1);
      // its own writes read without the plugin
      assert.deepEqual(await read(p, v1), { data: plain, stale: false });
      assert.equal(plugin.calls.Decrypt, 0);

      // another server (no cache) decrypts the seed once, then reads synchronously
      const other = new KMSv2Provider({ name: 'p1', endpoint: plugin.endpoint, timeoutMs: 1000 });
      await other.start();
      const first = other.transformFromStorage(v1, ctx);
      assert.ok(isPromise(first));
      assert.deepEqual((await first).data, plain);
      assert.equal(plugin.calls.Decrypt, 1);
      assert.ok(!isPromise(other.transformFromStorage(v1, ctx)));
      other.stop();

      // key ID rotation, noticed at the next status
      plugin.rotate('key-2');
      await p.healthCheck();
      assert.equal(plugin.calls.Encrypt, 3, 'one more seed (the other server made one too)');
      const v2 = p.transformToStorage(plain, ctx);
      assert.equal(decodeMessage<EncryptedObject>(EncryptedObjectType, v2).keyID, 'key-2');
      assert.deepEqual(await read(p, v1), { data: plain, stale: true }, 'written under the old key ID');
      assert.deepEqual(await read(p, v2), { data: plain, stale: false });

      // the plugin goes away: health fails, writes go on until 3 minutes after the last good status, reads go on
      await plugin.stop();
      await assert.rejects(p.healthCheck(), /failed to perform status section of the healthz check for KMS Provider p1, error: /);
      now += 170_000;
      p.transformToStorage(plain, ctx);
      now += 20_000;
      assert.throws(() => p.transformToStorage(plain, ctx), /^Error: encryptedDEKSource with keyID hash "sha256:[0-9a-f]{64}" expired at \S+Z \(current time is \S+Z\)$/);
      assert.deepEqual((await read(p, v1)).data, plain);
      assert.deepEqual((await read(p, v2)).data, plain);

      // back: the same key ID extends validity, writes work again
      await plugin.start();
      await wait(50);
      await p.healthCheck();
      assert.equal(decodeMessage<EncryptedObject>(EncryptedObjectType, p.transformToStorage(plain, ctx)).keyID, 'key-2');
      assert.equal(plugin.calls.Encrypt, 3, 'no new seed for the same key ID');

      // an unhealthy status is reported with upstream's words
      plugin.healthz = 'degraded';
      await assert.rejects(p.healthCheck(), { message: 'kmsv2 Provider p1 is not healthy, error: got unexpected healthz status: degraded' });
      plugin.healthz = 'ok';
      plugin.keyID = '';
      await assert.rejects(p.healthCheck(), { message: 'kmsv2 Provider p1 is not healthy, error: got invalid KMSv2 KeyID hash "": keyID is empty' });
    } finally {
      p.stop();
      await plugin.stop();
    }
  });

  it('a value it cannot decrypt fails with upstream\'s text; a value of no seed it knows fails without the plugin', async () => {
    const plugin = new TestKMSPlugin(join(dir, 'kms2.sock'));
    await plugin.start();
    const p = new KMSv2Provider({ name: 'p2', endpoint: plugin.endpoint, timeoutMs: 500 });
    try {
      await p.start();
      const v = p.transformToStorage(plain, ctx);
      const other = new TestKMSPlugin(join(dir, 'kms3.sock'));
      await other.start();
      const q = new KMSv2Provider({ name: 'p2', endpoint: other.endpoint, timeoutMs: 500 });
      await q.start();
      await assert.rejects(read(q, v), /^Error: failed to decrypt DEK, error: 3 INVALID_ARGUMENT: ciphertext does not open$/);
      q.stop();
      await other.stop();
      assert.throws(() => p.transformFromStorage(Buffer.from('not a protobuf at all'), ctx));
    } finally {
      p.stop();
      await plugin.stop();
    }
  });
});
