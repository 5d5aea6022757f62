import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../apimachinery/errors.ts';
import { parseWriteOptions, writeManager } from './options.ts';

describe('parseWriteOptions', () => {
  it('gives the defaults for an empty query', () => {
    assert.deepEqual(parseWriteOptions('CreateOptions', new URLSearchParams('')), { dryRun: false, fieldValidation: 'Warn', fieldManager: '' });
    assert.deepEqual(parseWriteOptions('PatchOptions', new URLSearchParams(''), { apply: false }), { dryRun: false, fieldValidation: 'Warn', fieldManager: '' });
  });
  it('still requires a fieldManager for apply with an empty query', () => {
    assert.throws(
      () => parseWriteOptions('PatchOptions', new URLSearchParams(''), { apply: true }),
      (e: unknown) => e instanceof StatusError && e.code === 422 && e.message === 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  });
  it('reads the query when there is one', () => {
    assert.deepEqual(parseWriteOptions('CreateOptions', new URLSearchParams('dryRun=All&fieldValidation=Strict&fieldManager=me')), {
      dryRun: true,
      fieldValidation: 'Strict',
      fieldManager: 'me',
    });
  });
});

describe('writeManager', () => {
  it('prefers ?fieldManager, else derives the manager from each User-Agent', () => {
    assert.equal(writeManager({ dryRun: false, fieldValidation: 'Warn', fieldManager: 'mine' }, 'kubectl/v1.30.0'), 'mine');
    const none = { dryRun: false, fieldValidation: 'Warn' as const, fieldManager: '' };
    assert.equal(writeManager(none, 'kubectl/v1.30.0 (linux/amd64)'), 'kubectl');
    assert.equal(writeManager(none, 'kubectl/v1.30.0 (linux/amd64)'), 'kubectl');
    assert.equal(writeManager(none, 'h2load nghttp2/1.52.0'), 'h2load nghttp2');
    assert.equal(writeManager(none, undefined), 'unknown');
    assert.equal(writeManager(none, ''), 'unknown');
    assert.equal(writeManager(none, 'kubectl-create/v1'), 'kubectl-create');
  });
});
