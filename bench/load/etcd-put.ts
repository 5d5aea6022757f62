/**
 * etcd load process (child): closed-loop puts of ~700 B event JSON at a concurrency, through the etcd3 npm client
 * (loaded from the directory lib/tools.ts installed it in), keys `/registry/events/<ns>/<name>` as an etcd-backed
 * API server would write them.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { childArgs, runMain } from '../lib/child.ts';
import { eventBody } from '../lib/event.ts';
import { Samples, type LatencySummary } from '../lib/stats.ts';

interface Args {
  endpoint: string;
  etcd3Dir: string;
  concurrency: number;
  durationMs: number;
  warmupMs: number;
  run: string;
}

interface Etcd3Client {
  put(key: string): { value(v: string): Promise<unknown> };
  delete(): { prefix(p: string): Promise<unknown> };
  close(): void;
}

export interface EtcdResult {
  puts: number;
  putsPerS: number;
  errors: number;
  latency: LatencySummary;
}

async function main(): Promise<EtcdResult> {
  const a = childArgs<Args>();
  const { Etcd3 } = createRequire(join(a.etcd3Dir, 'noop.js'))('etcd3') as { Etcd3: new (o: { hosts: string[] }) => Etcd3Client };
  const c = new Etcd3({ hosts: [a.endpoint] });
  const prefix = `/registry/events/${a.run}/`;
  let i = 0;
  let errors = 0;
  const lat = new Samples();
  const loop = async (until: number, rec: boolean) => {
    while (performance.now() < until) {
      const k = i++;
      const t0 = performance.now();
      try {
        await c.put(`${prefix}ns-${k % 50}/ev-${k}`).value(eventBody({ namespace: `ns-${k % 50}`, namePrefix: 'ev-' }, k));
        if (rec) lat.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  const warmEnd = performance.now() + a.warmupMs;
  await Promise.all(Array.from({ length: a.concurrency }, () => loop(warmEnd, false)));
  const t0 = performance.now();
  const end = t0 + a.durationMs;
  await Promise.all(Array.from({ length: a.concurrency }, () => loop(end, true)));
  const secs = (performance.now() - t0) / 1000;
  await c.delete().prefix(prefix).catch(() => {});
  c.close();
  return { puts: lat.length, putsPerS: lat.length / secs, errors, latency: lat.summary() };
}

runMain(main);
