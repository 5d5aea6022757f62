import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { featureGates } from '../features.ts';
import { coreletZpages } from './zpages.ts';

const opts = { startTime: new Date(), flags: () => [], paths: () => [] };

describe('corelet zpages', () => {
  afterEach(() => featureGates.set({ ComponentStatusz: true, ComponentFlagz: true }));

  it('each page exists only with its gate (upstream installs none without it: 404)', () => {
    assert.deepEqual([...coreletZpages(opts).keys()].sort(), ['/flagz', '/statusz']);
    featureGates.set({ ComponentStatusz: false });
    assert.deepEqual([...coreletZpages(opts).keys()], ['/flagz']);
    featureGates.set({ ComponentStatusz: true, ComponentFlagz: false });
    assert.deepEqual([...coreletZpages(opts).keys()], ['/statusz']);
  });
});
