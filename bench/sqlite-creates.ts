/**
 * Quick create-throughput check of the SQLite backend: N creates of ~700 B events with C in flight.
 * Usage: node --import tsx bench/sqlite-creates.ts [NORMAL|FULL] [N=20000] [C=64]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonCodec } from '../src/storage/testing/json-codec.ts';
import { openSqliteStorage } from '../src/storage/sqlite/storage.ts';

const sync = (process.argv[2] ?? 'NORMAL') as 'NORMAL' | 'FULL';
const total = Number(process.argv[3] ?? 20000);
const conc = Number(process.argv[4] ?? 64);
const dir = mkdtempSync(join(tmpdir(), 'bench-sqlite-'));
const s = openSqliteStorage({ path: join(dir, 'db.sqlite'), codec: jsonCodec, synchronous: sync });

const event = (i: number) => ({
  apiVersion: 'events.cluster.io/v1',
  kind: 'Event',
  metadata: { name: `nginx-7c5ddbdf54-x2x7q.17a1b2c3${(0xd4e5f000 + i).toString(16)}`, namespace: `ns-${i % 50}`, uid: `3f1c2a4e-9b7d-4c1e-8f2a-${String(i).padStart(12, '0')}`, creationTimestamp: '2024-05-01T12:00:00Z' },
  eventTime: '2024-05-01T12:00:00.123456Z', reportingController: 'kubelet', reportingInstance: 'kubelet-node-17', action: 'Pulling', reason: 'Pulling', type: 'Normal',
  regarding: { kind: 'Pod', namespace: `ns-${i % 50}`, name: 'nginx-7c5ddbdf54-x2x7q', uid: '8a7b6c5d-1e2f-4a3b-9c8d-7e6f5a4b3c2d', apiVersion: 'v1', fieldPath: 'spec.containers{nginx}' },
  note: 'Pulling image "registry.example.com/library/nginx:1.25.3" ' + 'x'.repeat(180),
});

let next = 0;
const lat: number[] = [];
const t0 = performance.now();
await Promise.all(
  Array.from({ length: conc }, async () => {
    while (next < total) {
      const i = next++;
      const o = event(i);
      const start = performance.now();
      await s.create(`/events/${o.metadata.namespace}/${o.metadata.name}`, o, 3600);
      lat.push(performance.now() - start);
    }
  }),
);
const secs = (performance.now() - t0) / 1000;
lat.sort((a, b) => a - b);
const { transactions } = s.stats();
await s.close();
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ sync, total, conc, creates_per_s: Math.round(total / secs), p50_ms: +lat[lat.length >> 1]!.toFixed(3), p99_ms: +lat[Math.floor(lat.length * 0.99)]!.toFixed(3), transactions, avg_group: +(total / transactions).toFixed(1) }));
