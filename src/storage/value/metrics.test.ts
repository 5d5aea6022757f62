import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../../metrics/registry.ts';
import { writeText } from '../../metrics/text.ts';
import { TransformationMetrics } from './metrics.ts';

const lines = (r: Registry, name: string) =>
  writeText(r.collect())
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`));

test('successes count and observe per prefix; failures count with their status and observe nothing, as upstream', () => {
  const registry = new Registry({ version: '1.36.0' });
  const m = new TransformationMetrics(registry);
  const events = m.forResource('events.events.cluster.io');
  const roles = m.forResource('roles.rbac.authorization.cluster.io');
  events.record('to_storage', 'cluster:enc:aesgcm:v1:', 0.00001, undefined);
  events.record('to_storage', 'cluster:enc:aesgcm:v1:', 0.00002, undefined);
  events.record('from_storage', 'cluster:enc:aesgcm:v1:', 0.00001, undefined);
  roles.record('to_storage', 'cluster:enc:aesgcm:v1:', 0.00001, undefined);
  events.record('from_storage', 'unknown', 0.00001, new Error('no matching prefix found'));
  events.record('from_storage', 'unknown', 0.00001, new Error('no matching prefix found'));
  events.record('to_storage', 'cluster:enc:kms:v2:p:', 0.1, Object.assign(new Error('down'), { code: 14 }));
  assert.deepEqual(lines(registry, 'apiserver_storage_transformation_operations_total'), [
    'apiserver_storage_transformation_operations_total{resource="events.events.cluster.io",status="OK",transformation_type="from_storage",transformer_prefix="cluster:enc:aesgcm:v1:"} 1',
    'apiserver_storage_transformation_operations_total{resource="events.events.cluster.io",status="OK",transformation_type="to_storage",transformer_prefix="cluster:enc:aesgcm:v1:"} 2',
    'apiserver_storage_transformation_operations_total{resource="events.events.cluster.io",status="Unavailable",transformation_type="to_storage",transformer_prefix="cluster:enc:kms:v2:p:"} 1',
    'apiserver_storage_transformation_operations_total{resource="events.events.cluster.io",status="unknown-non-grpc",transformation_type="from_storage",transformer_prefix="unknown"} 2',
    'apiserver_storage_transformation_operations_total{resource="roles.rbac.authorization.cluster.io",status="OK",transformation_type="to_storage",transformer_prefix="cluster:enc:aesgcm:v1:"} 1',
  ]);
  assert.deepEqual(lines(registry, 'apiserver_storage_transformation_duration_seconds_count'), [
    'apiserver_storage_transformation_duration_seconds_count{transformation_type="from_storage",transformer_prefix="cluster:enc:aesgcm:v1:"} 1',
    'apiserver_storage_transformation_duration_seconds_count{transformation_type="to_storage",transformer_prefix="cluster:enc:aesgcm:v1:"} 3',
  ]);
});
