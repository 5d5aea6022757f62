/**
 * etcd load process (child): closed-loop puts of ~700 B event JSON at a concurrency, through the etcd3 npm client
 * (loaded from the directory lib/tools.ts installed it in), keys `/registry/events/<ns>/<name>` as an etcd-backed
 * API server would write them. `txn` writes each key as an etcd-backed API server creates it instead: a transaction
 * "put if create_revision == 0"; `lease` attaches the put to a lease granted up front and shared by all (the reuse an
 * API server does for Events' TTL). Both together are what etcd itself must do per create, without the API server.
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
  txn?: boolean;
  lease?: boolean;
}

interface PutBuilder extends PromiseLike<unknown> {
  value(v: string): PutBuilder;
  lease(id: string): PutBuilder;
}

interface Etcd3Client {
  put(key: string): PutBuilder;
  if(key: string, column: 'Create', cmp: '==', value: number): { then(op: PutBuilder): { commit(): Promise<{ succeeded: boolean }> } };
  lease(ttl: number, o: { autoKeepAlive: boolean }): { grant(): Promise<string>; revoke(): Promise<unknown> };
  delete(): { prefix(p: string): Promise<unknown> };
  close(): void;
}

export interface EtcdResult {
  puts: number;
  putsPerS: number;
  errors: number;
  latency: LatencySummary;
  /** This load process's own CPU (user + system) per put over the measured window, µs. */
  clientCpuUs: number;
}

async function main(): Promise<EtcdResult> {
  const a = childArgs<Args>();
  const { Etcd3 } = createRequire(join(a.etcd3Dir, 'noop.js'))('etcd3') as { Etcd3: new (o: { hosts: string[] }) => Etcd3Client };
  const c = new Etcd3({ hosts: [a.endpoint] });
  const prefix = `/registry/events/${a.run}/`;
  const lease = a.lease ? c.lease(3600, { autoKeepAlive: false }) : undefined;
  const leaseId = lease ? await lease.grant() : '';
  let i = 0;
  let errors = 0;
  const lat = new Samples();
  const loop = async (until: number, rec: boolean) => {
    while (performance.now() < until) {
      const k = i++;
      const t0 = performance.now();
      try {
        const key = `${prefix}ns-${k % 50}/ev-${k}`;
        const value = eventBody({ namespace: `ns-${k % 50}`, namePrefix: 'ev-' }, k);
        const put = lease ? c.put(key).value(value).lease(leaseId) : c.put(key).value(value);
        if (a.txn) {
          const r = await c.if(key, 'Create', '==', 0).then(put).commit();
          if (!r.succeeded) throw new Error(`${key} exists`);
        } else {
          await put;
        }
        if (rec) lat.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  const warmEnd = performance.now() + a.warmupMs;
  await Promise.all(Array.from({ length: a.concurrency }, () => loop(warmEnd, false)));
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const end = t0 + a.durationMs;
  await Promise.all(Array.from({ length: a.concurrency }, () => loop(end, true)));
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await c.delete().prefix(prefix).catch(() => {});
  await lease?.revoke().catch(() => {});
  // etcd 3.4 keeps a bucket's write buffer at the size its largest transaction grew it to (the delete above: ~10,000
  // keys in one revision) until a write transaction leaves that bucket alone, and then hands it to the read buffer,
  // which keeps it while every 100 ms commit has writes. Every read transaction copies the read buffer whole (a
  // create's compare is one): ~3 ms of etcd CPU per create through the whole next run. A write to the lease bucket
  // alone drops it; the caller's wait for a quiet etcd (≥ 2 commits) does the rest.
  await c.lease(60, { autoKeepAlive: false }).grant().catch(() => {});
  c.close();
  return { puts: lat.length, putsPerS: lat.length / secs, errors, latency: lat.summary(), clientCpuUs: lat.length ? (cpu.user + cpu.system) / lat.length : NaN };
}

runMain(main);
