import { test } from 'node:test';
import assert from 'node:assert/strict';
import { featureGates, formatGates } from './features.ts';

test('known gates: every gate of the spec at its 1.36 stage and default, with the AllAlpha/AllBeta meta-gates', () => {
  assert.deepEqual(featureGates.known(), [
    { name: 'AllAlpha', default: false, stage: 'ALPHA' },
    { name: 'AllBeta', default: false, stage: 'BETA' },
    { name: 'AllowUnsafeMalformedObjectDeletion', default: false, stage: 'ALPHA' },
    { name: 'ComponentFlagz', default: true, stage: 'BETA' },
    { name: 'ComponentSLIs', default: true, stage: '', lockToDefault: true },
    { name: 'ComponentStatusz', default: true, stage: 'BETA' },
    { name: 'CoreletPSI', default: true, stage: '', lockToDefault: true },
    { name: 'KMSv1', default: false, stage: 'DEPRECATED' },
    { name: 'NativeHistograms', default: false, stage: 'ALPHA' },
    { name: 'PodAndContainerStatsFromCRI', default: false, stage: 'ALPHA' },
    { name: 'ShardedListAndWatch', default: false, stage: 'ALPHA' },
    { name: 'StructuredAuthenticationConfigurationJWKSMetrics', default: true, stage: 'BETA' },
    { name: 'UnauthenticatedHTTP2DOSMitigation', default: true, stage: 'BETA' },
  ]);
  assert.equal(featureGates.enabled('ShardedListAndWatch'), false);
  assert.equal(featureGates.enabled('NativeHistograms'), false);
  assert.equal(featureGates.enabled('ComponentStatusz'), true);
});

test('list: name, stage and current state of every gate, as cluster_feature_enabled reports them', () => {
  try {
    featureGates.set({ NativeHistograms: true, ComponentFlagz: false });
    const byName = new Map(featureGates.list().map((f) => [f.name, f]));
    assert.equal(byName.size, featureGates.known().length);
    assert.deepEqual(byName.get('NativeHistograms'), { name: 'NativeHistograms', stage: 'ALPHA', enabled: true });
    assert.deepEqual(byName.get('ComponentFlagz'), { name: 'ComponentFlagz', stage: 'BETA', enabled: false });
    assert.deepEqual(byName.get('ComponentStatusz'), { name: 'ComponentStatusz', stage: 'BETA', enabled: true });
    assert.deepEqual(byName.get('CoreletPSI'), { name: 'CoreletPSI', stage: '', enabled: true });
    assert.deepEqual(byName.get('AllAlpha'), { name: 'AllAlpha', stage: 'ALPHA', enabled: false });
  } finally {
    featureGates.set({});
  }
});

test('locked gates: restating the default is accepted, a change is refused with upstream\'s message', () => {
  try {
    featureGates.set({ ComponentSLIs: true, CoreletPSI: true });
    assert.equal(featureGates.enabled('ComponentSLIs'), true);
    assert.throws(() => featureGates.set({ ComponentSLIs: false }), { message: 'cannot set feature gate ComponentSLIs to false, feature is locked to true' });
    assert.throws(() => featureGates.set({ CoreletPSI: false }), { message: 'cannot set feature gate CoreletPSI to false, feature is locked to true' });
    assert.equal(featureGates.toString(), 'ComponentSLIs=true,CoreletPSI=true', 'a refused set changes nothing');
  } finally {
    featureGates.set({});
  }
});

test('AllBeta=false turns off the beta gates not set by name, as upstream; a gate set by name wins', () => {
  try {
    featureGates.set({ AllBeta: false, ComponentFlagz: true });
    assert.equal(featureGates.enabled('ComponentStatusz'), false);
    assert.equal(featureGates.enabled('ComponentFlagz'), true);
    assert.equal(featureGates.enabled('ComponentSLIs'), true, 'GA gates are not beta');
  } finally {
    featureGates.set({});
  }
});

test('set replaces the overrides; gates left out return to their defaults', () => {
  try {
    featureGates.set({ ShardedListAndWatch: true });
    assert.equal(featureGates.enabled('ShardedListAndWatch'), true);
    assert.equal(featureGates.toString(), 'ShardedListAndWatch=true');
    featureGates.set({});
    assert.equal(featureGates.enabled('ShardedListAndWatch'), false);
    assert.equal(featureGates.toString(), '');
  } finally {
    featureGates.set({});
  }
});

test('AllAlpha switches alpha gates not set by name; AllBeta leaves alpha gates alone', () => {
  try {
    featureGates.set({ AllAlpha: true });
    assert.equal(featureGates.enabled('ShardedListAndWatch'), true);
    assert.equal(featureGates.enabled('AllAlpha'), true);
    assert.equal(featureGates.enabled('AllBeta'), false);
    featureGates.set({ AllAlpha: true, ShardedListAndWatch: false });
    assert.equal(featureGates.enabled('ShardedListAndWatch'), false);
    featureGates.set({ AllBeta: true });
    assert.equal(featureGates.enabled('ShardedListAndWatch'), false);
  } finally {
    featureGates.set({});
  }
});

test('an unknown gate: set throws upstream\'s message and changes nothing; enabled is a programming error', () => {
  try {
    featureGates.set({ ShardedListAndWatch: true });
    assert.throws(() => featureGates.set({ ShardedListAndWatch: false, NoSuchGate: true }), { message: 'unrecognized feature gate: NoSuchGate' });
    assert.equal(featureGates.enabled('ShardedListAndWatch'), true);
    assert.throws(() => featureGates.enabled('NoSuchGate'), { message: 'feature "NoSuchGate" is not registered in FeatureGate' });
  } finally {
    featureGates.set({});
  }
});

test('formatGates sorts the pairs as featureGate.String() does', () => {
  assert.equal(formatGates({ b: true, a: false, A: true }), 'A=true,a=false,b=true');
  assert.equal(formatGates({}), '');
});
