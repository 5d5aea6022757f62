import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aggregateText } from '../apimachinery/field.ts';
import { pluginConfiguration, readAdmissionConfiguration, validatePluginNames } from './admission.ts';
import { newEventRateLimit } from '../admission/plugin/eventratelimit/admission.ts';

describe('AdmissionConfiguration', () => {
  let dir: string;
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'admission-config-'));
    mkdirSync(join(dir, 'sub'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const apiVersion of ['apiserver.config.cluster.io/v1', 'apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1']) {
    it(`reads ${apiVersion}; a relative path is taken from the file's directory`, () => {
      const f = write('a.yaml', `apiVersion: ${apiVersion}\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: sub/erl.yaml\n`);
      assert.deepEqual(readAdmissionConfiguration(f), { plugins: [{ name: 'EventRateLimit', path: join(dir, 'sub/erl.yaml') }] });
    });
  }

  it('refuses apiserver.config.k8s.io/v1alpha1, which upstream does not register for this kind', () => {
    const f = write('b.yaml', 'apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AdmissionConfiguration\n');
    assert.throws(() => readAdmissionConfiguration(f), {
      message: 'no kind "AdmissionConfiguration" is registered for version "apiserver.config.k8s.io/v1alpha1" in scheme "pkg/server/options/admission.go:51"',
    });
  });

  it('an unreadable file: upstream\'s text', () => {
    const missing = join(dir, 'nope.yaml');
    assert.throws(() => readAdmissionConfiguration(missing), { message: `unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]` });
  });

  it('decodes strictly: unknown and repeated fields, wrong types', () => {
    const f = write('c.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  pth: x\n  configuration: {anything: [1, 2]}\n');
    assert.throws(() => readAdmissionConfiguration(f), { message: 'strict decoding error: unknown field "plugins[0].pth"' });
    const g = write('d.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: 5\n');
    assert.throws(() => readAdmissionConfiguration(g), { message: 'json: cannot unmarshal number into Go struct field AdmissionPluginConfiguration.plugins.name of type string' });
  });

  it('configuration wins over path; the inline value reaches the plugin as JSON', () => {
    const f = write('e.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: /does/not/exist\n  configuration:\n    kind: Configuration\n    apiVersion: eventratelimit.admission.k8s.io/v1alpha1\n    limits: [{type: Server, qps: 1, burst: 2}]\n');
    const c = readAdmissionConfiguration(f);
    assert.equal(pluginConfiguration(c, 'EventRateLimit'), '{"apiVersion":"eventratelimit.admission.k8s.io/v1alpha1","kind":"Configuration","limits":[{"burst":2,"qps":1,"type":"Server"}]}');
    assert.equal(pluginConfiguration(c, 'Other'), undefined);
  });

  it('a path is read when there is no inline configuration; an unreadable one is upstream\'s fatal text', () => {
    write('sub/erl.yaml', 'limits: []\n');
    const ok = readAdmissionConfiguration(write('f.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: sub/erl.yaml\n'));
    assert.equal(pluginConfiguration(ok, 'EventRateLimit'), 'limits: []\n');
    const missing = readAdmissionConfiguration(write('g.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: sub/none.yaml\n'));
    const p = join(dir, 'sub/none.yaml');
    assert.throws(() => pluginConfiguration(missing, 'EventRateLimit'), { message: `Couldn't open admission plugin configuration ${p}: &fs.PathError{Op:"open", Path:"${p}", Err:0x2}` });
    const isDir = readAdmissionConfiguration(write('h.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: sub\n'));
    assert.throws(() => pluginConfiguration(isDir, 'EventRateLimit'), { message: `Couldn't open admission plugin configuration ${join(dir, 'sub')}: &fs.PathError{Op:"read", Path:"${join(dir, 'sub')}", Err:0x15}` });
    if (process.getuid?.() !== 0) {
      const locked = write('sub/locked.yaml', 'x');
      chmodSync(locked, 0);
      const c = readAdmissionConfiguration(write('i.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: sub/locked.yaml\n'));
      assert.throws(() => pluginConfiguration(c, 'EventRateLimit'), /Err:0xd\}$/);
    }
  });

  it('every entry names a registered plugin', () => {
    const c = readAdmissionConfiguration(write('j.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n- name: PodSecurity\n- path: x\n'));
    assert.equal(aggregateText(validatePluginNames(c, ['EventRateLimit'])), '[plugins[1].name: Unsupported value: "PodSecurity": supported values: "EventRateLimit", plugins[2].name: Required value]');
  });

  it('the README\'s example (examples/admission-config.yaml and its eventratelimit.yaml) loads', () => {
    const c = readAdmissionConfiguration(join(import.meta.dirname, '../../examples/admission-config.yaml'));
    assert.deepEqual(validatePluginNames(c, ['EventRateLimit']), []);
    assert.ok(newEventRateLimit(pluginConfiguration(c, 'EventRateLimit')));
  });
});
