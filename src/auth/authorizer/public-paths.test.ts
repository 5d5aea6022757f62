import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPublicPath } from './public-paths.ts';

test('isPublicPath: what system:public-info-viewer grants', () => {
  for (const p of ['/healthz', '/livez', '/readyz', '/version', '/version/']) assert.equal(isPublicPath(p), true, p);
  for (const p of ['/readyz/sqlite', '/healthz/ping', '/livez/', '/metrics', '/', '/api', '/apis', '/openapi/v3', '/versionz']) {
    assert.equal(isPublicPath(p), false, p);
  }
  assert.equal(isPublicPath('/healthz', 'HEAD'), false);
  assert.equal(isPublicPath('/healthz', 'POST'), false);
});
