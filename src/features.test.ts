import { test } from 'node:test';
import assert from 'node:assert/strict';
import { featureGates, formatGates } from './features.ts';

test('known gates: ShardedListAndWatch is alpha and off by default, with the AllAlpha/AllBeta meta-gates', () => {
  assert.deepEqual(featureGates.known(), [
    { name: 'AllAlpha', default: false, stage: 'ALPHA' },
    { name: 'AllBeta', default: false, stage: 'BETA' },
    { name: 'ShardedListAndWatch', default: false, stage: 'ALPHA' },
  ]);
  assert.equal(featureGates.enabled('ShardedListAndWatch'), false);
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
