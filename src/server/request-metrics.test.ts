import assert from 'node:assert/strict';
import { it } from 'node:test';
import { reportedDryRun, reportedScope, reportedVerb } from './request-metrics.ts';
import type { RequestInfo } from './request-info.ts';

const info = (o: Partial<RequestInfo>): RequestInfo => ({ isResourceRequest: true, path: '', verb: 'list', apiPrefix: 'apis', apiGroup: 'g', apiVersion: 'v1', namespace: '', resource: 'events', subresource: '', name: '', parts: [], ...o });
const req = (method: string, contentType = '') => ({ method, headers: contentType ? { 'content-type': contentType } : {} }) as never;

it('labels: verb, scope and dry_run as upstream reports them', () => {
  assert.equal(reportedScope(info({ name: 'x', verb: 'get' })), 'resource');
  assert.equal(reportedScope(info({ namespace: 'n', verb: 'create' })), 'resource', 'a create is a resource request');
  assert.equal(reportedScope(info({ namespace: 'n' })), 'namespace');
  assert.equal(reportedScope(info({})), 'cluster');
  assert.equal(reportedScope(info({ isResourceRequest: false, verb: 'get' })), '');
  assert.equal(reportedVerb(req('GET'), info({ name: 'x', verb: 'get' }), 'resource'), 'GET');
  assert.equal(reportedVerb(req('GET'), info({ namespace: 'n' }), 'namespace'), 'LIST');
  assert.equal(reportedVerb(req('GET'), info({ verb: 'watch' }), 'cluster'), 'WATCH');
  assert.equal(reportedVerb(req('PATCH', 'application/apply-patch+yaml; charset=utf-8'), info({ verb: 'patch', name: 'x' }), 'resource'), 'APPLY');
  assert.equal(reportedVerb(req('PATCH', 'application/merge-patch+json'), info({ verb: 'patch', name: 'x' }), 'resource'), 'PATCH');
  assert.equal(reportedVerb(req('DELETE'), info({ verb: 'deletecollection', namespace: 'n' }), 'namespace'), 'DELETE');
  assert.equal(reportedDryRun(new URLSearchParams('')), '');
  assert.equal(reportedDryRun(new URLSearchParams('dryRun=All&dryRun=All')), 'All');
  assert.equal(reportedDryRun(new URLSearchParams('dryRun=Some')), 'invalid');
});
