import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseFieldSelector } from '../../apimachinery/fields/selector.ts';
import { parseLabelSelector } from '../../apimachinery/labels/selector.ts';
import type { ObjectAttrs } from '../../storage/cacher/types.ts';
import { buildPredicate } from './predicate.ts';

function attrs(fields: Record<string, string>, labels?: Record<string, string>): ObjectAttrs {
  return { namespace: 'ns', name: 'n', labels, uid: 'u', field: (l) => (Object.hasOwn(fields, l) ? fields[l]! : '') };
}

describe('buildPredicate', () => {
  it('matches field selector terms through attrs.field, a missing field reading as the empty string', () => {
    const a = attrs({ type: 'Warning', reason: 'BackOff' });
    const sel = (s: string) => buildPredicate({ fieldSelector: parseFieldSelector(s) });
    assert.equal(sel('type=Warning').matches(a), true);
    assert.equal(sel('type==Warning,reason=BackOff').matches(a), true);
    assert.equal(sel('type=Warning,reason!=BackOff').matches(a), false);
    assert.equal(sel('type!=Normal').matches(a), true);
    assert.equal(sel('source=').matches(a), true);
    assert.equal(sel('source!=').matches(a), false);
    assert.deepEqual(sel('type=Warning,reason!=X').exact, [{ field: 'type', value: 'Warning' }]);
  });

  it('needs labels and fields to match together', () => {
    const p = buildPredicate({ fieldSelector: parseFieldSelector('type=Warning'), labelSelector: parseLabelSelector('app=web') });
    assert.equal(p.matches(attrs({ type: 'Warning' }, { app: 'web' })), true);
    assert.equal(p.matches(attrs({ type: 'Warning' }, { app: 'db' })), false);
    assert.equal(p.matches(attrs({ type: 'Normal' }, { app: 'web' })), false);
    assert.equal(buildPredicate({}).everything, true);
  });
});
