import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exporterURL, newInstanceID, rootSamplingRatio } from './provider.ts';

test('the exporter dials the configured gRPC target in plaintext; localhost:4317 by default', () => {
  assert.equal(exporterURL(undefined), 'http://localhost:4317');
  assert.equal(exporterURL(''), 'http://localhost:4317');
  assert.equal(exporterURL('collector.monitoring:4317'), 'http://collector.monitoring:4317');
  assert.equal(exporterURL('dns:///collector:4317'), 'http://collector:4317');
  assert.equal(exporterURL('dns://8.8.8.8/collector:4317'), 'http://collector:4317');
  assert.equal(exporterURL('unix:///run/otel.sock'), 'unix:///run/otel.sock');
});

test('root sampling: the rate per million as a ratio; 0 or unset never samples a root', () => {
  assert.equal(rootSamplingRatio(undefined), undefined);
  assert.equal(rootSamplingRatio(0), undefined);
  assert.equal(rootSamplingRatio(1), 1e-6);
  assert.equal(rootSamplingRatio(250_000), 0.25);
  assert.equal(rootSamplingRatio(1_000_000), 1);
});

test('instance IDs are upstream-shaped and distinct per process start', () => {
  const a = newInstanceID();
  assert.match(a, /^apiserver-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.notEqual(a, newInstanceID());
});
