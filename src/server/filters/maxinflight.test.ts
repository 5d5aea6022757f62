import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MaxInflight, isMutatingVerb } from './maxinflight.ts';

describe('isMutatingVerb', () => {
  it('treats every verb but get, list and watch as mutating, as upstream does', () => {
    for (const v of ['get', 'list', 'watch']) assert.equal(isMutatingVerb(v), false, v);
    for (const v of ['create', 'update', 'patch', 'delete', 'deletecollection', 'post', 'put', 'head', 'options']) assert.equal(isMutatingVerb(v), true, v);
  });
});

describe('MaxInflight', () => {
  it('admits up to the limit, refuses beyond it and admits again after a release', () => {
    const m = new MaxInflight(2, 1);
    assert.equal(m.saturated, false);
    const w = m.acquire('create');
    assert.ok(w);
    assert.equal(m.full('patch'), true);
    assert.equal(m.saturated, true);
    assert.equal(m.acquire('delete'), undefined);
    assert.equal(m.full('get'), false, 'the read-only limit is separate');
    const r1 = m.acquire('get');
    const r2 = m.acquire('list');
    assert.ok(r1 && r2);
    assert.equal(m.acquire('get'), undefined);
    assert.deepEqual(m.counts, { readonly: 2, mutating: 1 });
    w();
    r1();
    assert.equal(m.full('create'), false);
    assert.equal(m.full('get'), false);
    assert.ok(m.acquire('update'));
    assert.deepEqual(m.counts, { readonly: 1, mutating: 1 });
  });

  it('treats 0 as no limit and never counts', () => {
    const m = new MaxInflight(0, 0);
    for (let i = 0; i < 1000; i++) {
      assert.ok(m.acquire('create'));
      assert.ok(m.acquire('get'));
    }
    assert.equal(m.saturated, false);
    assert.deepEqual(m.counts, { readonly: 0, mutating: 0 });
  });

  it('is saturated when either limit alone is reached', () => {
    const m = new MaxInflight(1, 0);
    m.acquire('get');
    assert.equal(m.saturated, true);
    assert.equal(m.full('create'), false);
  });
});
