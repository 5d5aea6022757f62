import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { decodeEncryptionConfiguration, loadEncryptionConfiguration, parseEncryptionConfiguration, providersFor } from './encryption.ts';
import { validateEncryptionConfiguration } from './encryption-validation.ts';
import { aggregateText } from '../apimachinery/field.ts';
import { featureGates } from '../features.ts';

const dir = mkdtempSync(join(tmpdir(), 'enc-config-'));
const k32 = randomBytes(32).toString('base64');
const k16 = randomBytes(16).toString('base64');

function file(text: string): string {
  const p = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(p, text);
  return p;
}

/** The start-up error of a file (validation and build), or '' when it loads. */
function loadError(text: string): string {
  try {
    loadEncryptionConfiguration(file(text));
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}

const head = 'apiVersion: apiserver.config.cluster.io/v1\nkind: EncryptionConfiguration\n';

test('both group spellings load; defaults as upstream (KMS: apiVersion v1, timeout 3s)', () => {
  for (const av of ['apiserver.config.cluster.io/v1', 'apiserver.config.k8s.io/v1']) {
    const c = decodeEncryptionConfiguration(`apiVersion: ${av}\nkind: EncryptionConfiguration\nresources:\n- resources: [events]\n  providers:\n  - aesgcm: {keys: [{name: k1, secret: ${k32}}]}\n  - identity: {}\n`);
    assert.deepEqual(c, { resources: [{ resources: ['events'], providers: [{ aesgcm: { keys: [{ name: 'k1', secret: k32 }] } }, { identity: {} }] }] });
  }
  const kms = decodeEncryptionConfiguration(`${head}resources:\n- resources: ['*.*']\n  providers:\n  - kms: {name: p, endpoint: unix:///s.sock}\n`);
  assert.deepEqual(kms.resources[0]!.providers[0], { kms: { apiVersion: 'v1', name: 'p', endpoint: 'unix:///s.sock', timeoutMs: 3000, timeout: '3s', cachesize: 1000 } });
  const v2 = decodeEncryptionConfiguration(`${head}resources:\n- resources: ['*.*']\n  providers:\n  - kms: {apiVersion: v2, name: p, endpoint: unix:///s.sock, timeout: 500ms}\n`);
  assert.deepEqual(v2.resources[0]!.providers[0], { kms: { apiVersion: 'v2', name: 'p', endpoint: 'unix:///s.sock', timeoutMs: 500, timeout: '500ms' } });
});

test('file errors: missing, empty, undecodable, unknown kind and fields (strict)', () => {
  assert.match(loadError(''), /^error while parsing file: encryption provider configuration file ".*" is empty$/);
  assert.throws(() => loadEncryptionConfiguration('/no/such/enc.yaml'), {
    message: 'error while parsing file: error opening encryption provider configuration file "/no/such/enc.yaml": ' + "ENOENT: no such file or directory, open '/no/such/enc.yaml'",
  });
  assert.match(loadError('apiVersion: v1\nkind: Pod\n'), /error decoding encryption provider configuration file ".*": no kind "Pod" is registered for version "v1"/);
  assert.match(loadError(`${head}resources:\n- resources: [events]\n  providers:\n  - aesgcm: {keys: [{name: k, secret: ${k32}, extra: 1}]}\n`), /strict decoding error: unknown field "resources\[0\].providers\[0\].aesgcm.keys\[0\].extra"/);
  assert.match(loadError(`${head}resources: 3\n`), /json: cannot unmarshal number into Go struct field EncryptionConfiguration.resources of type \[\]v1.ResourceConfiguration/);
  assert.match(loadError(`${head}resources:\n- resources: [events]\n  providers:\n  - kms: {apiVersion: v2, name: p, endpoint: unix:///s, timeout: soon}\n`), /time: invalid duration "soon"/);
});

function errs(text: string): string {
  const list = validateEncryptionConfiguration(decodeEncryptionConfiguration(head + text), false);
  return list.length ? aggregateText(list) : '';
}

test('validation: upstream field paths and texts', () => {
  assert.equal(errs('resources: []\n'), 'resources: Required value: at least one resources is required');
  assert.equal(errs('resources:\n- resources: []\n  providers: []\n'), '[resources[0].resources: Required value: at least one resources[0].resources is required, resources[0].providers: Required value: at least one resources[0].providers is required]');
  const id = '  providers: [{identity: {}}]\n';
  assert.equal(errs(`resources:\n- resources: [events, events]\n${id}`), 'resources[0].resources: Invalid value: ["events","events"]: the same resource cannot be specified multiple times');
  assert.equal(errs(`resources:\n- resources: ['*.*', events]\n${id}`), `resources[0].resources: Invalid value: ["*.*","events"]: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`);
  assert.equal(errs(`resources:\n- resources: ['*.events.cluster.io', events.events.cluster.io]\n${id}`), `resources[0].resources: Invalid value: ["*.events.cluster.io","events.events.cluster.io"]: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`);
  assert.equal(errs(`resources:\n- resources: [Events]\n${id}`), 'resources[0].resources[0]: Invalid value: "Events": resource name should not contain capital letters');
  assert.equal(errs(`resources:\n- resources: ['*']\n${id}`), `resources[0].resources[0]: Invalid value: "*": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources`);
  assert.equal(errs(`resources:\n- resources: ['events.*']\n${id}`), 'resources[0].resources[0]: Invalid value: "events.*": encrypting the same resource across groups is not supported');
  assert.equal(errs(`resources:\n- resources: [deployments.extensions]\n${id}`), `resources[0].resources[0]: Invalid value: "deployments.extensions": 'extensions' group has been removed and cannot be used for encryption`);
  assert.equal(errs(`resources:\n- resources: [serviceipallocations]\n${id}`), 'resources[0].resources[0]: Invalid value: "serviceipallocations": resources which do not have REST API/s cannot be encrypted');
  assert.equal(errs(`resources:\n- resources: [events]\n  providers: [{}]\n`), 'resources[0].providers[0]: Invalid value: {}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity');
  assert.equal(
    errs(`resources:\n- resources: [events]\n  providers: [{identity: {}, aesgcm: {keys: [{name: k, secret: ${k32}}]}}]\n`),
    'resources[0].providers[0]: Invalid value: {"aesgcm":{"keys":[{"name":"k","secret":"REDACTED"}]},"identity":{}}: more than one provider specified in a single element, should split into different list elements',
    'the secret is never printed',
  );
});

test('validation: keys', () => {
  const p = (prov: string, keys: string) => errs(`resources:\n- resources: [events]\n  providers:\n  - ${prov}: {keys: ${keys}}\n`);
  assert.equal(p('aesgcm', '[]'), 'resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required');
  assert.equal(p('aesgcm', `[{secret: ${k32}}]`), 'resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory field for a key');
  assert.equal(p('aesgcm', '[{name: k}]'), 'resources[0].providers[0].aesgcm.keys[0].secret: Required value: secret is a mandatory field for a key');
  assert.equal(p('aesgcm', "[{name: k, secret: 'not base64!'}]"), 'resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded');
  const k8 = randomBytes(8).toString('base64');
  assert.equal(p('aesgcm', `[{name: k, secret: ${k8}}]`), 'resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]');
  assert.equal(p('aesgcm', `[{name: k, secret: ${k16}}]`), '', 'AES-GCM takes 16, 24 and 32 bytes');
  assert.equal(p('aescbc', `[{name: k, secret: ${k16}}]`), 'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]');
  assert.equal(p('aescbc', `[{name: k, secret: ${k32}}]`), '');
  assert.equal(p('secretbox', `[{name: k, secret: ${k16}}]`), 'resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]');
  assert.equal(p('secretbox', `[{name: k, secret: ${k32}}, {name: k, secret: ${k32}}]`), 'resources[0].providers[0].secretbox.keys[1].name: Duplicate value: "k"');
});

test('validation: KMS', () => {
  const k = (kms: string, more = '') => errs(`resources:\n- resources: [events]\n  providers:\n  - kms: ${kms}\n${more}`);
  assert.equal(k('{apiVersion: v2, name: a, endpoint: unix:///tmp/s.sock}'), '');
  assert.equal(k('{apiVersion: v2, endpoint: unix:///tmp/s.sock}'), 'resources[0].providers[0].kms.name: Required value: name is a mandatory field for a provider');
  assert.equal(k('{apiVersion: v2, name: "a:b", endpoint: unix:///tmp/s.sock}'), 'resources[0].providers[0].kms.name: Invalid value: "a:b": invalid KMS provider name a:b, must not contain \':\'');
  assert.equal(k('{apiVersion: v2, name: a, endpoint: unix:///s}', '  - kms: {apiVersion: v2, name: a, endpoint: unix:///t}\n'), 'resources[0].providers[1].kms.name: Invalid value: "a": duplicate KMS provider name a, names must be unique');
  assert.equal(k('{apiVersion: v2, name: a}'), 'resources[0].providers[0].kms.endpoint: Invalid value: "": endpoint is a mandatory field for a kms');
  assert.equal(k('{apiVersion: v2, name: a, endpoint: "tcp://localhost:80"}'), 'resources[0].providers[0].kms.endpoint: Invalid value: "tcp://localhost:80": unsupported scheme "tcp" for KMS provider, only unix is supported');
  assert.equal(k('{apiVersion: v2, name: a, endpoint: unix:///s, timeout: -1s}'), 'resources[0].providers[0].kms.timeout: Invalid value: -1s: timeout should be a positive value');
  assert.equal(k('{apiVersion: v2, name: a, endpoint: unix:///s, cachesize: 10}'), 'resources[0].providers[0].kms.cachesize: Invalid value: 10: cachesize is not supported in v2');
  assert.equal(k('{apiVersion: v3, name: a, endpoint: unix:///s}'), 'resources[0].providers[0].kms.apiVersion: Invalid value: "v3": unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported');
  assert.equal(k('{apiVersion: v1, name: a, endpoint: unix:///s, cachesize: 0}'), 'resources[0].providers[0].kms.cachesize: Invalid value: 0: cachesize should be a positive value, or negative to disable');
});

test('masked entries are refused at build time with upstream\'s text; the whole message names the file\'s fields', () => {
  const id = '  providers: [{identity: {}}]\n';
  assert.equal(loadError(`${head}resources:\n- resources: ['*.events.cluster.io']\n${id}- resources: [events.events.cluster.io]\n${id}`), 'error while building transformers: resource "events.events.cluster.io" is masked by earlier rule "*.events.cluster.io"');
  assert.equal(loadError(`${head}resources:\n- resources: ['*.*']\n${id}- resources: [events]\n${id}`), 'error while building transformers: resource "events" is masked by earlier rule "*.*"');
  assert.equal(loadError(`${head}resources:\n- resources: ['*.']\n${id}- resources: [events]\n${id}`), 'error while building transformers: resource "events" is masked by earlier rule "*."');
  assert.equal(loadError(`${head}resources:\n- resources: [events]\n${id}- resources: ['*.*']\n${id}`), '', 'an exact entry before a wildcard exempts it');
  assert.equal(
    loadError(`${head}resources:\n- resources: [events]\n  providers:\n  - aesgcm: {keys: [{name: k, secret: abc}]}\n  - secretbox: {keys: []}\n`),
    'error while parsing file: [resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded, resources[0].providers[1].secretbox.keys: Required value: at least one keys is required]',
  );
});

test('which providers govern a resource: exact names (both spellings of Events), then *.group, then *.*; earlier entries first', () => {
  const conf = (text: string) => parseEncryptionConfiguration(Buffer.from(head + text), 'x').config;
  const g = (n: string) => `  providers: [{aesgcm: {keys: [{name: ${n}, secret: ${k32}}]}}]\n`;
  const names = (c: ReturnType<typeof conf>, ns: string[]) => providersFor(c, ns)?.map((p) => p.aesgcm?.keys[0]!.name ?? 'identity');
  const EVENTS = ['events.events.cluster.io', 'events'];
  const ROLES = ['roles.rbac.authorization.k8s.io'];
  assert.deepEqual(names(conf(`resources:\n- resources: [events]\n${g('a')}`), EVENTS), ['a'], 'core spelling names the stored Events');
  assert.deepEqual(names(conf(`resources:\n- resources: [events.events.cluster.io]\n${g('a')}`), EVENTS), ['a']);
  assert.deepEqual(names(conf(`resources:\n- resources: ['*.events.cluster.io']\n${g('a')}`), EVENTS), ['a']);
  assert.deepEqual(names(conf(`resources:\n- resources: ['*.']\n${g('a')}`), EVENTS), ['a']);
  assert.equal(names(conf(`resources:\n- resources: ['*.events.cluster.io']\n${g('a')}`), ROLES), undefined);
  assert.deepEqual(names(conf(`resources:\n- resources: ['*.rbac.authorization.k8s.io']\n${g('r')}- resources: ['*.*']\n${g('all')}`), ROLES), ['r']);
  assert.deepEqual(names(conf(`resources:\n- resources: ['*.rbac.authorization.k8s.io']\n${g('r')}- resources: ['*.*']\n${g('all')}`), EVENTS), ['all']);
  assert.deepEqual(names(conf(`resources:\n- resources: [events]\n  providers: [{identity: {}}]\n- resources: ['*.*']\n${g('all')}`), EVENTS), ['identity'], 'identity exempts from a later *.*');
  assert.deepEqual(names(conf(`resources:\n- resources: [events]\n${g('a')}- resources: [events.events.cluster.io]\n${g('b')}`), EVENTS), ['a', 'b']);
});

test("KMS v1 (the default apiVersion) is refused with upstream's deprecation text; with the KMSv1 gate on, refused too: this server serves KMS v2 only", () => {
  const v1 = `${head}resources:\n- resources: [events]\n  providers:\n  - kms: {name: old, endpoint: unix:///tmp/k.sock}\n`;
  assert.equal(
    loadError(v1),
    'error while building transformers: KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.',
  );
  featureGates.set({ KMSv1: true });
  try {
    assert.equal(loadError(v1), 'error while building transformers: could not configure KMS plugin "old": KMS v1 providers are not supported by this server, use apiVersion: v2');
  } finally {
    featureGates.set({});
  }
  assert.equal(loadError(v1.replace('{name: old', '{apiVersion: v2, name: old')), '');
});
