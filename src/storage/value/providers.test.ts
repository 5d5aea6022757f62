import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import { AesCbcTransformer, AesGcmTransformer } from './aes.ts';
import { SecretboxTransformer } from './secretbox.ts';
import { resourceTransformer } from './providers.ts';
import { ResourceTransformers } from './by-resource.ts';
import { PrefixTransformers } from './prefix.ts';
import { KeyContext, isPromise, type FromStorage, type MaybePromise } from './transformer.ts';

const ctx = new KeyContext('/events/ns/a');
const plain = Buffer.from('{"metadata":{"name":"a"},"note":"attack at dawn"}');
const b64 = (n: number) => randomBytes(n).toString('base64');
function sync<T>(v: MaybePromise<T>): T {
  assert.ok(!isPromise(v), 'answered synchronously');
  return v as T;
}

for (const [name, make] of [
  ['aesgcm-128', () => new AesGcmTransformer(randomBytes(16))],
  ['aesgcm-192', () => new AesGcmTransformer(randomBytes(24))],
  ['aesgcm-256', () => new AesGcmTransformer(randomBytes(32))],
  ['aescbc', () => new AesCbcTransformer(randomBytes(32))],
  ['secretbox', () => new SecretboxTransformer(randomBytes(32))],
] as const) {
  test(`${name}: round trip, fresh randomness per write, plaintext nowhere in the output`, () => {
    const t = make();
    const a = sync(t.transformToStorage(plain, ctx));
    const b = sync(t.transformToStorage(plain, ctx));
    assert.notDeepEqual(a, b, 'a random nonce/IV per write');
    assert.ok(!a.includes(Buffer.from('attack at dawn')));
    assert.deepEqual(sync(t.transformFromStorage(a, ctx)), { data: plain, stale: false });
    assert.deepEqual(sync(t.transformFromStorage(sync(t.transformToStorage(Buffer.alloc(0), ctx)), ctx)).data, Buffer.alloc(0));
  });

  test(`${name}: another key does not read it`, () => {
    const a = sync(make().transformToStorage(plain, ctx));
    assert.throws(() => make().transformFromStorage(a, ctx));
  });
}

test('layouts: aesgcm nonce(12) ‖ ct ‖ tag(16); aescbc IV(16) ‖ padded blocks; secretbox nonce(24) ‖ tag(16) ‖ ct, as NaCl', () => {
  assert.equal(sync(new AesGcmTransformer(randomBytes(32)).transformToStorage(plain, ctx)).length, 12 + plain.length + 16);
  assert.equal(sync(new AesCbcTransformer(randomBytes(32)).transformToStorage(plain, ctx)).length, 16 + (Math.floor(plain.length / 16) + 1) * 16);
  const key = randomBytes(32);
  const boxed = sync(new SecretboxTransformer(key).transformToStorage(plain, ctx));
  assert.equal(boxed.length, 24 + 16 + plain.length);
  // What Go's secretbox.Open (same construction as NaCl's) reads.
  assert.deepEqual(Buffer.from(nacl.secretbox.open(boxed.subarray(24), boxed.subarray(0, 24), key)!), plain);
});

test('aesgcm binds the value to its storage key (AAD); aescbc and secretbox do not, as upstream', () => {
  const gcm = new AesGcmTransformer(randomBytes(32));
  const v = sync(gcm.transformToStorage(plain, ctx));
  assert.throws(() => gcm.transformFromStorage(v, new KeyContext('/events/ns/b')), /cipher: message authentication failed/);
  const tampered = Buffer.from(v);
  tampered[20]! ^= 1;
  assert.throws(() => gcm.transformFromStorage(tampered, ctx), /message authentication failed/);
  const sb = new SecretboxTransformer(randomBytes(32));
  assert.deepEqual(sync(sb.transformFromStorage(sync(sb.transformToStorage(plain, ctx)), new KeyContext('/x'))).data, plain);
});

test('short and malformed values get upstream\'s texts', () => {
  assert.throws(() => new AesGcmTransformer(randomBytes(32)).transformFromStorage(Buffer.alloc(5), ctx), { message: 'the stored data was shorter than the required size' });
  const cbc = new AesCbcTransformer(randomBytes(32));
  assert.throws(() => cbc.transformFromStorage(Buffer.alloc(5), ctx), { message: 'the stored data was shorter than the required size' });
  assert.throws(() => cbc.transformFromStorage(Buffer.alloc(20), ctx), { message: 'the stored data is not a multiple of the block size' });
  assert.throws(() => cbc.transformFromStorage(Buffer.alloc(16), ctx), { message: 'invalid PKCS7 data (empty or not padded)' });
  // A block that decrypts to a last byte of 0 (never a valid pad), made with the key: random bytes would decrypt
  // to a valid pad (…01) once in 256 runs.
  const cbcKey = randomBytes(32);
  const iv = randomBytes(16);
  const zeros = createCipheriv('aes-256-cbc', cbcKey, iv).setAutoPadding(false).update(Buffer.alloc(32));
  assert.throws(() => new AesCbcTransformer(cbcKey).transformFromStorage(Buffer.concat([iv, zeros]), ctx), { message: 'invalid padding on input' });
  assert.throws(() => new SecretboxTransformer(randomBytes(32)).transformFromStorage(Buffer.alloc(30), ctx), { message: 'the stored data was shorter than the required size' });
  assert.throws(() => new SecretboxTransformer(randomBytes(32)).transformFromStorage(Buffer.alloc(60), ctx), { message: 'output array was not large enough for encryption' });
});

test('resource transformer: prefix cluster:enc:<provider>:v1:<key>:, first provider and key write, others read and are stale', () => {
  const k1 = b64(32);
  const k2 = b64(32);
  const t1 = resourceTransformer([{ aesgcm: { keys: [{ name: 'k1', secret: k1 }] } }, { identity: {} }]);
  const v1 = sync(t1.transformToStorage(plain, ctx));
  assert.equal(v1.subarray(0, 'cluster:enc:aesgcm:v1:k1:'.length).toString(), 'cluster:enc:aesgcm:v1:k1:');
  assert.deepEqual(sync(t1.transformFromStorage(v1, ctx)), { data: plain, stale: false });
  // identity data (written before encryption) reads, stale
  assert.deepEqual(sync(t1.transformFromStorage(plain, ctx)), { data: plain, stale: true });

  // k2 added second: still writes with k1; then moved first: k1 data is stale
  const t2 = resourceTransformer([{ aesgcm: { keys: [{ name: 'k2', secret: k2 }, { name: 'k1', secret: k1 }] } }]);
  assert.deepEqual(sync(t2.transformFromStorage(v1, ctx)), { data: plain, stale: true });
  const v2 = sync(t2.transformToStorage(plain, ctx));
  assert.ok(v2.toString('latin1').startsWith('cluster:enc:aesgcm:v1:k2:'));
  assert.deepEqual(sync(t2.transformFromStorage(v2, ctx)), { data: plain, stale: false });
  // without identity, unencrypted data is refused
  assert.throws(() => t2.transformFromStorage(plain, ctx), { message: 'no matching prefix found' });
  // k1 removed: its data no longer reads
  const t3 = resourceTransformer([{ aesgcm: { keys: [{ name: 'k2', secret: k2 }] } }]);
  assert.throws(() => t3.transformFromStorage(v1, ctx), { message: 'no matching key was found for the provided AES transformer' });
  // another provider second: secretbox data reads through aesgcm-first config, stale
  const sb = resourceTransformer([{ secretbox: { keys: [{ name: 's', secret: k1 }] } }]);
  const vs = sync(sb.transformToStorage(plain, ctx));
  assert.ok(vs.toString('latin1').startsWith('cluster:enc:secretbox:v1:s:'));
  const both = resourceTransformer([{ aescbc: { keys: [{ name: 'c', secret: k2 }] } }, { secretbox: { keys: [{ name: 's', secret: k1 }] } }]);
  assert.deepEqual(sync(both.transformFromStorage(vs, ctx)), { data: plain, stale: true });
  assert.ok(sync(both.transformToStorage(plain, ctx)).toString('latin1').startsWith('cluster:enc:aescbc:v1:c:'));
});

test('a wrong key under the right name fails with the cipher error, and identity first then the old provider reads encrypted data (migrating away)', () => {
  const t = resourceTransformer([{ aesgcm: { keys: [{ name: 'k', secret: b64(32) }] } }]);
  const v = sync(t.transformToStorage(plain, ctx));
  const wrong = resourceTransformer([{ aesgcm: { keys: [{ name: 'k', secret: b64(32) }] } }]);
  assert.throws(() => wrong.transformFromStorage(v, ctx), { message: 'cipher: message authentication failed' });
  // Migrating away from encryption: identity first, the old provider after it.
  const k = b64(32);
  const old = resourceTransformer([{ aesgcm: { keys: [{ name: 'k', secret: k }] } }]);
  const stored = sync(old.transformToStorage(plain, ctx));
  const away = resourceTransformer([{ identity: {} }, { aesgcm: { keys: [{ name: 'k', secret: k }] } }]);
  assert.deepEqual(sync(away.transformFromStorage(stored, ctx)), { data: plain, stale: true });
  assert.deepEqual(sync(away.transformToStorage(plain, ctx)), plain, 'identity first: written as it is');
});

test('the recorder sees each transformation with its provider prefix, identity, or unknown', () => {
  const seen: string[] = [];
  const rec = { record: (type: string, prefix: string, _s: number, err: unknown) => seen.push(`${type} ${prefix} ${err ? 'err' : 'ok'}`) };
  const t = resourceTransformer([{ secretbox: { keys: [{ name: 's', secret: b64(32) }] } }, { identity: {} }], rec);
  const v = sync(t.transformToStorage(plain, ctx));
  sync(t.transformFromStorage(v, ctx));
  sync(t.transformFromStorage(plain, ctx));
  const noId = resourceTransformer([{ secretbox: { keys: [{ name: 's', secret: b64(32) }] } }], rec);
  assert.throws(() => noId.transformFromStorage(plain, ctx));
  assert.throws(() => noId.transformFromStorage(v, ctx));
  assert.deepEqual(seen, [
    'to_storage cluster:enc:secretbox:v1: ok',
    'from_storage cluster:enc:secretbox:v1: ok',
    'from_storage identity ok',
    'from_storage unknown err',
    'from_storage cluster:enc:secretbox:v1: err',
  ]);
});

test('by resource: each key root gets its resource\'s transformer; other keys are identity', () => {
  const enc = resourceTransformer([{ aesgcm: { keys: [{ name: 'k', secret: b64(32) }] } }]);
  const t = new ResourceTransformers(new Map([['/roles/', enc]]));
  const role = sync(t.transformToStorage(plain, new KeyContext('/roles/ns/r')));
  assert.ok(role.toString('latin1').startsWith('cluster:enc:aesgcm:v1:k:'));
  assert.deepEqual(sync(t.transformToStorage(plain, new KeyContext('/rolebindings/ns/r'))), plain);
  assert.throws(() => t.transformFromStorage(role, new KeyContext('/rolebindings/ns/r')), /identity transformer tried to read encrypted data/);
  t.replace(new Map([['/roles/', enc], ['/rolebindings/', enc]]));
  assert.ok(sync(t.transformToStorage(plain, new KeyContext('/rolebindings/ns/r'))).toString('latin1').startsWith('cluster:enc:'));
  const r: FromStorage = sync(t.transformFromStorage(role, new KeyContext('/roles/ns/r')));
  assert.deepEqual(r.data, plain);
});

test('aesgcm writes behind given prefix bytes in one buffer: the rest reads back, bound to its key, a fresh nonce every time', () => {
  const gcm = new AesGcmTransformer(randomBytes(32));
  const prefix = Buffer.from('cluster:enc:aesgcm:v1:k:');
  const nonces = new Set<string>();
  // More writes than one refill of the shared nonce pool holds.
  for (let i = 0; i < 1000; i++) {
    const v = gcm.transformToStorageAfter(prefix, plain, ctx);
    assert.equal(v.length, prefix.length + 12 + plain.length + 16);
    assert.deepEqual(v.subarray(0, prefix.length), prefix);
    const nonce = v.subarray(prefix.length, prefix.length + 12).toString('hex');
    assert.ok(!nonces.has(nonce), `nonce ${nonce} reused`);
    nonces.add(nonce);
    if (i % 100 === 0) {
      assert.deepEqual(sync(gcm.transformFromStorage(v.subarray(prefix.length), ctx)), { data: plain, stale: false });
      assert.throws(() => gcm.transformFromStorage(v.subarray(prefix.length), new KeyContext('/events/ns/b')), /cipher: message authentication failed/);
    }
  }
  assert.deepEqual(sync(gcm.transformFromStorage(gcm.transformToStorageAfter(Buffer.alloc(0), plain, ctx), ctx)).data, plain);
});

test('resource transformer: the provider and key prefixes are written with the value in one go, byte for byte as nested prefixes', () => {
  const key = randomBytes(32);
  const t = resourceTransformer([{ aesgcm: { keys: [{ name: 'k1', secret: key.toString('base64') }, { name: 'k0', secret: b64(32) }] } }, { identity: {} }]);
  const v = sync(t.transformToStorage(plain, ctx));
  const head = 'cluster:enc:aesgcm:v1:k1:';
  assert.equal(v.subarray(0, head.length).toString('latin1'), head);
  assert.equal(v.length, head.length + 12 + plain.length + 16);
  // What the key's AES-GCM transformer alone reads below both prefixes (nonce ‖ ciphertext ‖ tag).
  assert.deepEqual(sync(new AesGcmTransformer(key).transformFromStorage(v.subarray(head.length), ctx)).data, plain);
  assert.deepEqual(sync(t.transformFromStorage(v, ctx)), { data: plain, stale: false });
});

test('an inner level with a recorder of its own still records its writes (its write path is not folded into the outer one)', () => {
  const seen: string[] = [];
  const inner = new PrefixTransformers([{ prefix: Buffer.from('k:'), transformer: new AesGcmTransformer(randomBytes(32)) }], 'none', {
    record: (type, prefix, _s, err) => seen.push(`inner ${type} ${prefix} ${err ? 'err' : 'ok'}`),
  });
  const outer = new PrefixTransformers([{ prefix: Buffer.from('p:'), transformer: inner }], 'none', {
    record: (type, prefix, _s, err) => seen.push(`outer ${type} ${prefix} ${err ? 'err' : 'ok'}`),
  });
  const v = sync(outer.transformToStorage(plain, ctx));
  assert.equal(v.subarray(0, 4).toString(), 'p:k:');
  assert.deepEqual(sync(outer.transformFromStorage(v, ctx)).data, plain);
  assert.deepEqual(seen, ['inner to_storage k: ok', 'outer to_storage p: ok', 'inner from_storage k: ok', 'outer from_storage p: ok']);
});
