/**
 * Encryption at rest (issue 13), end to end on the real server: no plaintext reaches any file of the data
 * directory with each provider, key rotation with kubectl as upstream documents it, and a stored object whose key
 * is gone is a 500 naming it that the unsafe delete removes. With CORE_APISERVER_TEST_STORAGE=etcd3 the same on
 * etcd: the files looked at are the data directory's and etcd's (its WAL and database), the stored values are read
 * from etcd.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { TestServer, sampleEvent, stopEtcd, testEtcd } from './helpers/server.ts';
import { EtcdClient } from '../src/storage/etcd3/client.ts';
import { prefixEnd } from '../src/storage/etcd3/storage.ts';
import { TestKMSPlugin } from './helpers/kms-plugin.ts';
import { EncryptedObjectType, decodeMessage, type EncryptedObject } from '../src/storage/value/kmsv2/proto.ts';

const KUBECTL = '1.33';
const EVENTS = (ns: string) => `/apis/events.cluster.io/v1/namespaces/${ns}/events`;
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) {
    await stopEtcd(d);
    rmSync(d, { recursive: true, force: true });
  }
});

/** The etcd prefix the test servers use (the default --etcd-prefix). */
const ETCD_PREFIX = '/registry';

/** Where a server on `dataDir` keeps its data: the data directory, and on etcd also etcd's data directory. */
async function storeDirs(dataDir: string): Promise<string[]> {
  const etcd = await testEtcd(dataDir);
  return etcd ? [dataDir, etcd.dataDir] : [dataDir];
}

/** Files holding the objects of a server on `dataDir`: SQLite's named `file` (`events.db`, …), or etcd's. */
async function isStoreFile(dataDir: string, file: RegExp): Promise<(path: string) => boolean> {
  const etcd = await testEtcd(dataDir);
  return etcd ? (p) => p.startsWith(etcd.dataDir) : (p) => file.test(p);
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'core-apiserver-enc-'));
  dirs.push(d);
  return d;
}

const key = () => randomBytes(32).toString('base64');

/** An EncryptionConfiguration file for Events (both names) and RBAC, providers as given (YAML flow list items). */
function writeConfig(path: string, providers: string[], resources = ['events', 'roles.rbac.authorization.k8s.io']): string {
  // Written aside and renamed into place, as editors and ConfigMap volumes replace files: a reloading server never
  // reads half a file.
  writeAtomically(
    path,
    [
      'apiVersion: apiserver.config.cluster.io/v1',
      'kind: EncryptionConfiguration',
      'resources:',
      `- resources: [${resources.join(', ')}]`,
      '  providers:',
      ...providers.map((p) => `  - ${p}`),
      '',
    ].join('\n'),
  );
  return path;
}

function writeAtomically(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

/** Every file under `dir` (database, WAL, shared memory, certificates, anything), as bytes. */
function everyFile(dir: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...everyFile(p));
    else if (st.isFile()) out.push({ path: p, bytes: readFileSync(p) });
  }
  return out;
}

/** The files under the data directory of a server on `dataDir` (and etcd's, on etcd) that hold `needle`. */
async function filesHolding(dataDir: string, needle: string): Promise<string[]> {
  const b = Buffer.from(needle);
  return (await storeDirs(dataDir))
    .flatMap((d) => everyFile(d))
    .filter((f) => f.bytes.includes(b))
    .map((f) => f.path);
}

async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('no plaintext on disk', () => {
  for (const [provider, spec] of [
    ['aesgcm', () => `aesgcm: {keys: [{name: key1, secret: ${key()}}]}`],
    ['aescbc', () => `aescbc: {keys: [{name: key1, secret: ${key()}}]}`],
    ['secretbox', () => `secretbox: {keys: [{name: key1, secret: ${key()}}]}`],
  ] as const) {
    it(`${provider}: a note written through the API is in no file under the data dir, and reads back through get, list and watch`, async () => {
      const dataDir = tempDir();
      const config = writeConfig(join(tempDir(), 'enc.yaml'), [spec()]);
      const s = new TestServer(dataDir);
      await s.start([`--encryption-provider-config=${config}`]);
      try {
        const secret = `the-${provider}-secret-${randomBytes(8).toString('hex')}`;
        const w = s.watch(`${EVENTS('enc')}?watch=true`);
        assert.equal(await w.status, 200);
        const created = await s.request('POST', EVENTS('enc'), sampleEvent('e1', 'enc', { note: secret }));
        assert.equal(created.status, 201, created.body);
        const core = await s.request('POST', '/api/v1/namespaces/enc/events', {
          apiVersion: 'v1', kind: 'Event', metadata: { name: 'e2', namespace: 'enc' },
          involvedObject: { kind: 'Pod', namespace: 'enc', name: 'p' }, reason: 'R', message: `${secret}-core`, type: 'Normal', source: { component: 'c' },
        });
        assert.equal(core.status, 201, core.body);
        const role = await s.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/enc/roles', {
          apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'enc', annotations: { why: `${secret}-role` } }, rules: [],
        });
        assert.equal(role.status, 201, role.body);
        // Updates and a deletion go through the same path, and the history rows keep their bytes.
        const patched = await s.request('PATCH', `${EVENTS('enc')}/e1`, { metadata: { annotations: { later: `${secret}-patched` } } }, { 'content-type': 'application/merge-patch+json' });
        assert.equal(patched.status, 200, patched.body);
        assert.equal((await s.request('POST', EVENTS('enc'), sampleEvent('gone', 'enc', { note: `${secret}-deleted` }))).status, 201);
        assert.equal((await s.request('DELETE', `${EVENTS('enc')}/gone`)).status, 200);

        assert.equal((await s.request('GET', `${EVENTS('enc')}/e1`)).json().metadata.annotations.later, `${secret}-patched`);
        assert.equal((await s.request('GET', `${EVENTS('enc')}/e1?resourceVersion=0`)).json().note, secret);
        const list = (await s.request('GET', EVENTS('enc'))).json();
        assert.deepEqual(list.items.map((e: { note: string }) => e.note).sort(), [secret, `${secret}-core`]);
        await waitFor('watch events', () => w.frames.length >= 5);
        assert.equal(w.frames[0].object.note, secret);
        w.stop();

        // Stopped cleanly (WAL checkpointed) and also while running (WAL present): neither holds the note.
        assert.deepEqual(await filesHolding(dataDir, secret), [], 'while running');
        await s.stop();
        assert.deepEqual(await filesHolding(dataDir, secret), [], 'after shutdown');
        const prefix = `cluster:enc:${provider}:v1:key1:`;
        assert.ok((await filesHolding(dataDir, prefix)).some(await isStoreFile(dataDir, /events\.db$/)), 'stored with the prefix');
        assert.ok((await filesHolding(dataDir, prefix)).some(await isStoreFile(dataDir, /rbac\.authorization\.k8s\.io\.db$/)));
        const stored = await storedObjects(dataDir);
        for (const k of ['/events/enc/e1', '/events/enc/e2', '/roles/enc/r']) assert.ok(stored.get(k)?.toString('latin1').startsWith(prefix), k);

        // Restarted: the watch cache loads decrypted objects.
        await s.start([`--encryption-provider-config=${config}`]);
        assert.equal((await s.request('GET', `${EVENTS('enc')}/e1?resourceVersion=0`)).json().metadata.annotations.later, `${secret}-patched`);
        assert.equal((await s.request('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/enc/roles/r')).json().metadata.annotations.why, `${secret}-role`);
      } finally {
        await s.stop();
      }
    });
  }
});

describe('an object that cannot be decrypted', () => {
  it('is a 500 naming it on get and list while the rest is served; the unsafe delete (gate, verb check) removes it', async () => {
    const dataDir = tempDir();
    const confDir = tempDir();
    const k1 = key();
    const config = writeConfig(join(confDir, 'enc.yaml'), [`aesgcm: {keys: [{name: key1, secret: ${k1}}]}`]);
    // bob may delete Events in ns `bad`, but not do the unsafe delete.
    const tokens = join(confDir, 'tokens.csv');
    writeFileSync(tokens, 'bob-token,bob,uid-bob,""\n');
    const s = new TestServer(dataDir);
    const args = [`--encryption-provider-config=${config}`, `--token-auth-file=${tokens}`];
    await s.start(args);
    try {
      for (const n of ['a', 'b']) assert.equal((await s.request('POST', EVENTS('bad'), sampleEvent(n, 'bad'))).status, 201);
      assert.equal((await s.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/bad/roles', {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'deleter', namespace: 'bad' },
        rules: [{ apiGroups: ['events.cluster.io'], resources: ['events'], verbs: ['get', 'list', 'delete'] }],
      })).status, 201);
      assert.equal((await s.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/bad/rolebindings', {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'bob', namespace: 'bad' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deleter' }, subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }],
      })).status, 201);
      await s.stop();

      // Event "a" is rewritten by hand under a key the server does not have (the lost key of a botched rotation):
      // a second server with only key2 writes "a" again, so its stored value carries key2's prefix.
      const lost = writeConfig(join(confDir, 'lost.yaml'), [`aesgcm: {keys: [{name: key2, secret: ${key()}}]}`, `aesgcm: {keys: [{name: key1, secret: ${k1}}]}`]);
      await s.start([`--encryption-provider-config=${lost}`, `--token-auth-file=${tokens}`]);
      const a = (await s.request('GET', `${EVENTS('bad')}/a`)).json();
      assert.equal((await s.request('PUT', `${EVENTS('bad')}/a`, { ...a, metadata: { ...a.metadata, labels: { rewritten: 'yes' } } })).status, 200);
      await s.stop();

      // Back to key1 only: "a" cannot be decrypted; the server starts and serves everything else.
      await s.start(args);
      const get = await s.request('GET', `${EVENTS('bad')}/a`);
      assert.equal(get.status, 500, get.body);
      assert.deepEqual(get.json(), {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500,
        message: 'StorageError: corrupt object, Code: 7, Key: /events/bad/a, ResourceVersion: 0, AdditionalErrorMsg: data from the storage is not transformable revision=0: no matching key was found for the provided AES transformer',
      });
      assert.equal((await s.request('GET', `${EVENTS('bad')}/a?resourceVersion=0`)).status, 500, 'from the watch cache too');
      assert.equal((await s.request('GET', `${EVENTS('bad')}/b`)).status, 200);
      const list = await s.request('GET', EVENTS('bad'));
      assert.equal(list.status, 500, list.body);
      const st = list.json();
      assert.equal(st.reason, 'StoreReadError');
      assert.equal(st.message, 'failed to read one or more events.events.cluster.io from the storage');
      assert.deepEqual(st.details, {
        group: 'events.cluster.io', kind: 'events', name: 'list',
        causes: [{ reason: 'UnexpectedServerResponse', field: '/events/bad/a', message: 'StorageError: corrupt object, Code: 7, Key: /events/bad/a, ResourceVersion: 0, AdditionalErrorMsg: data from the storage is not transformable revision=0: no matching key was found for the provided AES transformer' }],
      });
      const coreList = (await s.request('GET', '/api/v1/namespaces/bad/events')).json();
      assert.equal(coreList.message, 'failed to read one or more events from the storage', 'the core view names its own resource');
      assert.equal((await s.request('GET', EVENTS('other'))).status, 200, 'other namespaces list');
      const kubectl = await s.kubectl(['get', 'events.v1.events.cluster.io', '-n', 'bad'], { version: KUBECTL });
      assert.notEqual(kubectl.code, 0);
      assert.match(kubectl.stderr, /failed to read one or more events\.events\.cluster\.io from the storage/);

      // A plain delete fails the same way; with the gate off the option is dropped (upstream), so it fails too.
      assert.equal((await s.request('DELETE', `${EVENTS('bad')}/a`)).status, 500);
      assert.equal((await s.request('DELETE', `${EVENTS('bad')}/a?ignoreStoreReadErrorWithClusterBreakingPotential=true`)).status, 500);
      await s.stop();

      await s.start([...args, '--feature-gates=AllowUnsafeMalformedObjectDeletion=true']);
      const bob = { authorization: 'Bearer bob-token' };
      const refused = await s.request('DELETE', `${EVENTS('bad')}/a?ignoreStoreReadErrorWithClusterBreakingPotential=true`, undefined, bob, false);
      assert.equal(refused.status, 403, refused.body);
      assert.match(refused.json().message, /^events\.events\.cluster\.io "a" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: /);
      const healthy = await s.request('DELETE', `${EVENTS('bad')}/b`, { ignoreStoreReadErrorWithClusterBreakingPotential: true });
      assert.equal(healthy.status, 422, healthy.body);
      assert.equal(healthy.json().message, 'events.events.cluster.io "b" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option');
      const withDryRun = await s.request('DELETE', `${EVENTS('bad')}/a?ignoreStoreReadErrorWithClusterBreakingPotential=true&dryRun=All`);
      assert.equal(withDryRun.status, 422, withDryRun.body);
      assert.match(withDryRun.json().message, /dryRun: Invalid value: "": can not be set together with ignoreStoreReadErrorWithClusterBreakingPotential/);
      const collection = await s.request('DELETE', `${EVENTS('bad')}?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
      assert.equal(collection.status, 422, collection.body);

      const w = s.watch(`${EVENTS('bad')}?watch=true&resourceVersion=0`);
      assert.equal(await w.status, 200);
      // As the README shows it: kubectl delete --raw with the option.
      const gone = await s.kubectl(['delete', '--raw', `${EVENTS('bad')}/a?ignoreStoreReadErrorWithClusterBreakingPotential=true`], { version: KUBECTL });
      assert.equal(gone.code, 0, gone.stderr);
      assert.deepEqual(JSON.parse(gone.stdout), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'a', kind: 'Event' } });
      assert.equal((await s.request('GET', `${EVENTS('bad')}/a`)).status, 404);
      const after = await s.request('GET', EVENTS('bad'));
      assert.equal(after.status, 200, after.body);
      assert.deepEqual(after.json().items.map((e: { metadata: { name: string } }) => e.metadata.name), ['b']);
      // The name can be used again, and watchers see that as usual (they never saw the unreadable object).
      assert.equal((await s.request('POST', EVENTS('bad'), sampleEvent('a', 'bad'))).status, 201);
      await waitFor('watch', () => w.frames.find((f) => f.type === 'ADDED' && f.object.metadata.name === 'a'));
      assert.ok(!w.frames.some((f) => f.type === 'DELETED'), JSON.stringify(w.frames.map((f) => f.type)));
      w.stop();
    } finally {
      await s.stop();
    }
  });
});

/** The stored bytes of every current Event, by key: from events.db (read with the server stopped), or from etcd. */
async function storedEvents(dataDir: string): Promise<Map<string, Buffer>> {
  const all = await storedObjects(dataDir, ['events.db']);
  return new Map([...all].filter(([k]) => k.startsWith('/events/')));
}

/** The stored bytes of every current object, by key: from the SQLite files named, or from etcd (keys without its prefix). */
async function storedObjects(dataDir: string, files = ['events.db', 'rbac.authorization.k8s.io.db']): Promise<Map<string, Buffer>> {
  const etcd = await testEtcd(dataDir);
  const out = new Map<string, Buffer>();
  if (etcd) {
    const c = new EtcdClient({ endpoints: [etcd.endpoint] });
    try {
      const key = Buffer.from(`${ETCD_PREFIX}/`);
      const res = await c.call('range', { key, range_end: prefixEnd(key) });
      for (const kv of res.kvs) out.set(Buffer.from(kv.key).toString().slice(ETCD_PREFIX.length), Buffer.from(kv.value));
    } finally {
      c.close();
    }
    return out;
  }
  for (const f of files) {
    const db = new Database(join(dataDir, f), { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT c.key AS key, l.value AS value FROM current c JOIN log l ON l.rv = c.rv').all() as { key: string; value: Buffer }[];
      for (const r of rows) out.set(r.key, r.value);
    } finally {
      db.close();
    }
  }
  return out;
}

function prefixes(stored: Map<string, Buffer>): Set<string> {
  return new Set([...stored.values()].map((v) => v.subarray(0, v.indexOf(':', 'cluster:enc:aesgcm:v1:'.length) + 1).toString('latin1')));
}

describe('key rotation as upstream documents it, with kubectl', () => {
  it('add the new key second, restart, move it first, restart, replace everything, remove the old key: all readable, all under the new key', async () => {
    const dataDir = tempDir();
    const conf = join(tempDir(), 'enc.yaml');
    const k1 = `{name: key1, secret: ${key()}}`;
    const k2 = `{name: key2, secret: ${key()}}`;
    const s = new TestServer(dataDir);
    const start = async (keys: string) => {
      writeConfig(conf, [`aesgcm: {keys: [${keys}]}`], ['events']);
      await s.start([`--encryption-provider-config=${conf}`]);
    };
    try {
      await start(k1);
      for (let i = 0; i < 5; i++) assert.equal((await s.request('POST', EVENTS(`ns${i % 2}`), sampleEvent(`e${i}`, `ns${i % 2}`, { note: `note ${i}` }))).status, 201);
      await s.stop();
      assert.deepEqual(prefixes(await storedEvents(dataDir)), new Set(['cluster:enc:aesgcm:v1:key1:']));

      // 1. the new key second: everything reads, writes still use key1
      await start(`${k1}, ${k2}`);
      assert.equal((await s.request('POST', EVENTS('ns0'), sampleEvent('e5', 'ns0'))).status, 201);
      await s.stop();
      assert.deepEqual(prefixes(await storedEvents(dataDir)), new Set(['cluster:enc:aesgcm:v1:key1:']));

      // 2. the new key first: new writes use key2, old objects still read (stale)
      await start(`${k2}, ${k1}`);
      assert.equal((await s.request('POST', EVENTS('ns1'), sampleEvent('e6', 'ns1'))).status, 201);
      // 3. rewrite everything: unchanged objects are written again because they were read with an older key
      const got = await s.kubectl(['get', 'events', '-A', '-o', 'json'], { version: KUBECTL });
      assert.equal(got.code, 0, got.stderr);
      assert.equal(JSON.parse(got.stdout).items.length, 7);
      const replaced = await s.kubectl(['replace', '-f', '-'], { version: KUBECTL, input: got.stdout });
      assert.equal(replaced.code, 0, replaced.stderr);
      assert.equal(replaced.stdout.trim().split('\n').length, 7, replaced.stdout);
      await s.stop();
      assert.deepEqual(prefixes(await storedEvents(dataDir)), new Set(['cluster:enc:aesgcm:v1:key2:']));

      // 4. the old key removed: everything still reads
      await start(k2);
      const all = await s.kubectl(['get', 'events.v1.events.cluster.io', '-A', '-o', 'json'], { version: KUBECTL });
      assert.equal(all.code, 0, all.stderr);
      const items = JSON.parse(all.stdout).items as { metadata: { name: string }; note?: string }[];
      assert.deepEqual(items.map((e) => e.metadata.name).sort(), ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6']);
      assert.equal(items.find((e) => e.metadata.name === 'e3')?.note, 'note 3');
      assert.equal((await s.request('GET', `${EVENTS('ns1')}/e1`)).json().note, 'note 1');
    } finally {
      await s.stop();
    }
  });
});

/** The stored bytes of `key` in the running server's events.db (WAL: a reader sees committed state), or in etcd. */
async function storedNow(dataDir: string, key: string): Promise<Buffer | undefined> {
  return (await storedEvents(dataDir)).get(key);
}

function metricLines(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

describe('automatic reload and metrics', () => {
  it('a changed file takes effect for the next writes; an invalid one keeps the configuration in force and is counted', async () => {
    const dataDir = tempDir();
    const conf = join(tempDir(), 'enc.yaml');
    const k1 = `aesgcm: {keys: [{name: key1, secret: ${key()}}]}`;
    writeConfig(conf, [k1], ['events']);
    const s = new TestServer(dataDir);
    await s.start([`--encryption-provider-config=${conf}`, '--encryption-provider-config-automatic-reload']);
    try {
      assert.equal((await s.request('POST', EVENTS('r'), sampleEvent('before', 'r'))).status, 201);
      assert.ok((await storedNow(dataDir, '/events/r/before'))!.toString('latin1').startsWith('cluster:enc:aesgcm:v1:key1:'));
      const health = await s.request('GET', '/healthz/kms-providers');
      assert.equal(health.status, 200, health.body);

      writeConfig(conf, [`secretbox: {keys: [{name: sb1, secret: ${key()}}]}`, k1], ['events']);
      const hash = `sha256:${createHash('sha256').update(readFileSync(conf)).digest('hex')}`;
      let n = 0;
      await waitFor('the new configuration', async () => {
        const name = `after-${n++}`;
        assert.equal((await s.request('POST', EVENTS('r'), sampleEvent(name, 'r'))).status, 201);
        return (await storedNow(dataDir, `/events/r/${name}`))!.toString('latin1').startsWith('cluster:enc:secretbox:v1:sb1:');
      });
      assert.equal((await s.request('GET', `${EVENTS('r')}/before`)).status, 200, 'older values still read');

      writeAtomically(conf, 'apiVersion: apiserver.config.cluster.io/v1\nkind: EncryptionConfiguration\nresources: [{resources: [events], providers: [{aesgcm: {keys: [{name: k, secret: short}]}}]}]\n');
      await waitFor('the failure to be counted', async () => {
        const m = (await s.request('GET', '/metrics')).body;
        return metricLines(m, 'apiserver_encryption_config_controller_automatic_reloads_total').some((l) => l.includes('status="failure"') && Number(l.split(' ').pop()) >= 1);
      });
      assert.equal((await s.request('POST', EVENTS('r'), sampleEvent('still', 'r'))).status, 201);
      assert.ok((await storedNow(dataDir, '/events/r/still'))!.toString('latin1').startsWith('cluster:enc:secretbox:v1:sb1:'), 'the last good configuration stays');
      assert.match(s.stderr, /failed to load the new encryption provider configuration; keeping the configuration in force/);

      const m = (await s.request('GET', '/metrics')).body;
      const reloads = metricLines(m, 'apiserver_encryption_config_controller_automatic_reloads_total');
      assert.ok(reloads.some((l) => /^apiserver_encryption_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="success"\} 1$/.test(l)), reloads.join('\n'));
      assert.equal(metricLines(m, 'apiserver_encryption_config_controller_automatic_reload_last_timestamp_seconds').length, 2);
      const info = metricLines(m, 'apiserver_encryption_config_controller_last_config_info');
      assert.equal(info.length, 1, info.join('\n'));
      assert.ok(info[0]!.includes(`hash="${hash}"`), info[0]);
      const ops = metricLines(m, 'apiserver_storage_transformation_operations_total');
      for (const want of [
        'resource="events.events.cluster.io",status="OK",transformation_type="to_storage",transformer_prefix="cluster:enc:aesgcm:v1:"',
        'resource="events.events.cluster.io",status="OK",transformation_type="to_storage",transformer_prefix="cluster:enc:secretbox:v1:"',
      ]) assert.ok(ops.some((l) => l.includes(want)), `${want}\n${ops.join('\n')}`);
      assert.ok(metricLines(m, 'apiserver_storage_transformation_duration_seconds_count').some((l) => l.includes('transformer_prefix="cluster:enc:secretbox:v1:"')));
    } finally {
      await s.stop();
    }
  });
});

describe('KMS v2 with a plugin on a unix socket', () => {
  it('no plaintext on disk; reads with the plugin gone; a key ID rotation picked up at restart and completed with kubectl replace', async () => {
    const dataDir = tempDir();
    const sockDir = tempDir();
    const plugin = new TestKMSPlugin(join(sockDir, 'kms.sock'));
    await plugin.start();
    const config = writeConfig(join(sockDir, 'enc.yaml'), [`kms: {apiVersion: v2, name: p1, endpoint: "${plugin.endpoint}", timeout: 3s}`]);
    const s = new TestServer(dataDir);
    try {
      await s.start([`--encryption-provider-config=${config}`]);
      const health = await s.request('GET', '/readyz/kms-providers');
      assert.equal(health.status, 200, health.body);
      const secret = `the-kms-secret-${randomBytes(8).toString('hex')}`;
      const w = s.watch(`${EVENTS('kms')}?watch=true`);
      assert.equal(await w.status, 200);
      for (const n of ['k1', 'k2']) assert.equal((await s.request('POST', EVENTS('kms'), sampleEvent(n, 'kms', { note: `${secret}-${n}` }))).status, 201);
      assert.equal((await s.request('GET', `${EVENTS('kms')}/k1`)).json().note, `${secret}-k1`);
      assert.equal((await s.request('GET', EVENTS('kms'))).json().items.length, 2);
      await waitFor('watch', () => w.frames.length >= 2);
      assert.equal(w.frames[1].object.note, `${secret}-k2`);
      w.stop();
      assert.equal(plugin.calls.Encrypt, 1, 'one seed for every write');
      assert.deepEqual(await filesHolding(dataDir, secret), [], 'no file holds the note');
      assert.ok((await filesHolding(dataDir, 'cluster:enc:kms:v2:p1:')).some(await isStoreFile(dataDir, /events\.db(-wal)?$/)));

      // The plugin goes away: reads of values whose seed the server has go on without it; health says so.
      await plugin.stop();
      assert.equal((await s.request('GET', `${EVENTS('kms')}/k2`)).json().note, `${secret}-k2`);
      assert.equal((await s.request('GET', EVENTS('kms'))).status, 200);
      await new Promise((r) => setTimeout(r, 3_100)); // past the 3 s reuse of a failing probe... and of the last good one
      await waitFor('the health check to fail', async () => (await s.request('GET', '/healthz/kms-providers')).status === 500, 30_000);
      const down = await s.request('GET', '/healthz/kms-providers');
      assert.match(down.body, /kms-provider-0: failed to perform status section of the healthz check for KMS Provider p1, error: 14 UNAVAILABLE/);
      assert.equal((await s.request('POST', EVENTS('kms'), sampleEvent('during', 'kms'))).status, 201, 'writes go on within the 3-minute limit');
      await plugin.start();
      await waitFor('the health check to pass', async () => (await s.request('GET', '/healthz/kms-providers')).status === 200, 30_000);
      await s.stop();

      // Rotation: the plugin's key ID changes; the restarted server reads old values (one Decrypt per seed), writes
      // under the new key ID, and kubectl replace rewrites the stale ones.
      plugin.rotate('key-2');
      await s.start([`--encryption-provider-config=${config}`]);
      const before = plugin.calls.Decrypt;
      const got = await s.kubectl(['get', 'events', '-n', 'kms', '-o', 'json'], { version: KUBECTL });
      assert.equal(got.code, 0, got.stderr);
      assert.equal(JSON.parse(got.stdout).items.length, 3);
      assert.equal(plugin.calls.Decrypt, before, 'the watch cache decrypted the seed at load; reads need no call');
      const replaced = await s.kubectl(['replace', '-f', '-'], { version: KUBECTL, input: got.stdout });
      assert.equal(replaced.code, 0, replaced.stderr);
      await s.stop();
      const keyIDs = new Set([...(await storedEvents(dataDir)).values()].map((v) => decodeMessage<EncryptedObject>(EncryptedObjectType, v.subarray('cluster:enc:kms:v2:p1:'.length)).keyID));
      assert.deepEqual(keyIDs, new Set(['key-2']));
      assert.deepEqual(await filesHolding(dataDir, secret), []);
    } finally {
      await s.stop();
      await plugin.stop();
    }
  });
});

describe('an RBAC object that cannot be decrypted', () => {
  it('does not stop the start (the authorizer leaves it out) and is a 500 naming it', async () => {
    const dataDir = tempDir();
    const confDir = tempDir();
    const k1 = key();
    const role = (name: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: 'rb' }, rules: [] });
    const ROLES = '/apis/rbac.authorization.k8s.io/v1/namespaces/rb/roles';
    const only1 = writeConfig(join(confDir, 'k1.yaml'), [`secretbox: {keys: [{name: key1, secret: ${k1}}]}`], ['roles.rbac.authorization.k8s.io']);
    const lost = writeConfig(join(confDir, 'lost.yaml'), [`secretbox: {keys: [{name: key2, secret: ${key()}}]}`, `secretbox: {keys: [{name: key1, secret: ${k1}}]}`], ['roles.rbac.authorization.k8s.io']);
    const s = new TestServer(dataDir);
    try {
      await s.start([`--encryption-provider-config=${only1}`]);
      for (const n of ['r1', 'r2']) assert.equal((await s.request('POST', ROLES, role(n))).status, 201);
      await s.stop();
      await s.start([`--encryption-provider-config=${lost}`]);
      const r1 = (await s.request('GET', `${ROLES}/r1`)).json();
      assert.equal((await s.request('PUT', `${ROLES}/r1`, { ...r1, metadata: { ...r1.metadata, labels: { x: 'y' } } })).status, 200);
      await s.stop();
      await s.start([`--encryption-provider-config=${only1}`]);
      assert.match(s.stderr, /Leaving out a stored object that cannot be read/);
      const get = await s.request('GET', `${ROLES}/r1`);
      assert.equal(get.status, 500, get.body);
      assert.match(get.json().message, /^StorageError: corrupt object, Code: 7, Key: \/roles\/rb\/r1, /);
      assert.equal((await s.request('GET', `${ROLES}/r2`)).status, 200);
      const list = (await s.request('GET', ROLES)).json();
      assert.equal(list.message, 'failed to read one or more roles.rbac.authorization.k8s.io from the storage');
      assert.equal((await s.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin')).status, 200);
    } finally {
      await s.stop();
    }
  });
});

describe('a configuration that does not load', () => {
  it('stops the start with exit code 1 and one error naming the fields', async () => {
    const conf = writeConfig(join(tempDir(), 'bad.yaml'), ['aesgcm: {keys: [{name: k, secret: c2hvcnQ=}, {name: k, secret: c2hvcnQ=}]}', 'kms: {apiVersion: v2, name: "a:b", endpoint: "tcp://x:1"}']);
    const s = new TestServer(tempDir());
    await assert.rejects(s.start([`--encryption-provider-config=${conf}`]), (e: Error) => {
      assert.match(e.message, /^server exited with 1: /);
      assert.ok(
        e.message.includes(
          'Error: error while parsing file: [resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 5, expected one of [16 24 32], resources[0].providers[0].aesgcm.keys[1].name: Duplicate value: "k", resources[0].providers[0].aesgcm.keys[1].secret: Invalid value: "REDACTED": secret is not of the expected length, got 5, expected one of [16 24 32], resources[0].providers[1].kms.name: Invalid value: "a:b": invalid KMS provider name a:b, must not contain \':\', resources[0].providers[1].kms.endpoint: Invalid value: "tcp://x:1": unsupported scheme "tcp" for KMS provider, only unix is supported]',
        ),
        e.message,
      );
      assert.ok(!e.message.includes('c2hvcnQ='), 'no secret in the error');
      return true;
    });
    await assert.rejects(new TestServer(tempDir()).start(['--encryption-provider-config-automatic-reload']), /--encryption-provider-config-automatic-reload must be set with --encryption-provider-config/);
  });
});
