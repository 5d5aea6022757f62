import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CacheEvent, Entry, type ObjectAttrs } from './types.ts';

const attrs: ObjectAttrs = { namespace: 'ns', name: 'a', labels: undefined, uid: 'u', field: () => '' };

describe('CacheEvent frames', () => {
  it('builds each type once, shared by every caller, and rebuilds the same bytes after dropFrame', () => {
    const ev = new CacheEvent('MODIFIED', 7, new Entry('/o/ns/a', 7, Buffer.from('{"a":1}'), attrs), undefined);
    const m = ev.frame('MODIFIED');
    assert.equal(m.toString(), '{"type":"MODIFIED","object":{"a":1}}\n');
    assert.equal(ev.frame('MODIFIED'), m);
    const d = ev.frame('DELETED');
    assert.equal(d.toString(), '{"type":"DELETED","object":{"a":1}}\n');
    assert.equal(ev.frame('DELETED'), d);
    assert.equal(ev.frame('MODIFIED'), m);
    ev.dropFrame();
    const again = ev.frame('MODIFIED');
    assert.notEqual(again, m);
    assert.deepEqual(again, m);
  });
});
