/**
 * etcd load process (child): closed-loop puts of ~700 B event JSON at a concurrency, through the etcd3 npm client
 * (loaded from the directory lib/tools.ts installed it in), keys `/registry/events/<ns>/<name>` as an etcd-backed
 * API server would write them. `txn` writes each key as an etcd-backed API server creates it instead: a transaction
 * "put if create_revision == 0"; `lease` attaches the put to a lease granted up front and shared by all (the reuse an
 * API server does for Events' TTL). Both together are what etcd itself must do per create, without the API server.
 *
 * With `rounds`, the process stays up after its warm-up (`@@ready`) and measures one window per `run <ms> <lead ms>`
 * line on stdin (`@@round` each; the lead is unrecorded load before the window), until `end`: the parent interleaves
 * these windows with another load's, so that both see the same machine (its speed drifts by bursts of seconds), and
 * this client's JIT stays warm between them.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { childArgs, emit, runMain, stdinLines } from '../lib/child.ts';
import { eventBody } from '../lib/event.ts';
import { Samples, type LatencySummary } from '../lib/stats.ts';

interface Args {
  endpoint: string;
  etcd3Dir: string;
  concurrency: number;
  durationMs: number;
  warmupMs: number;
  run: string;
  rounds?: boolean;
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

/** One measured window of a `rounds` process. */
export interface EtcdRound {
  puts: number;
  secs: number;
  errors: number;
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
  // Puts until `until`; each one that starts at or after `from` and ends by `recordUntil` is recorded.
  const loop = async (until: number, from: number, recordUntil: number) => {
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
        const t1 = performance.now();
        if (t0 >= from && t1 <= recordUntil) lat.push(t1 - t0);
      } catch {
        errors++;
      }
    }
  };
  const warmEnd = performance.now() + a.warmupMs;
  await Promise.all(Array.from({ length: a.concurrency }, () => loop(warmEnd, Infinity, 0)));
  let secs = 0;
  let cpuUs = 0;
  if (a.rounds) {
    emit('ready', {});
    for await (const line of stdinLines()) {
      if (line === 'end') break;
      const m = /^run (\d+) (\d+)$/.exec(line);
      if (!m) throw new Error(`etcd-put: unknown command ${JSON.stringify(line)}`);
      // As h2load counts a window after its warm-up: the puts that start and end inside it, over its length.
      const ms = Number(m[1]);
      const lead = Number(m[2]);
      const n0 = lat.length;
      const e0 = errors;
      const from = performance.now() + lead;
      const cpu0 = process.cpuUsage();
      await Promise.all(Array.from({ length: a.concurrency }, () => loop(from + ms, from, from + ms)));
      const cpu = process.cpuUsage(cpu0);
      secs += ms / 1000;
      cpuUs += ((cpu.user + cpu.system) * ms) / (ms + lead);
      emit('round', { puts: lat.length - n0, secs: ms / 1000, errors: errors - e0 } satisfies EtcdRound);
    }
  } else {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await Promise.all(Array.from({ length: a.concurrency }, () => loop(t0 + a.durationMs, t0, Infinity)));
    secs = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    cpuUs = cpu.user + cpu.system;
  }
  await c.delete().prefix(prefix).catch(() => {});
  await lease?.revoke().catch(() => {});
  // etcd 3.4 keeps a bucket's write buffer at the size its largest batch grew it to (the delete above: ~10,000 keys)
  // while every 100 ms commit writes that bucket, and hands it to the read buffer, which every read transaction (a
  // create's compare is one) copies whole: ~3 ms of etcd CPU per create through the next runs. A commit that writes
  // only the lease bucket drops it from the write buffer, and the next commit from the read buffer. The grant must
  // not share the delete's commit (it did when sent right after it), hence the pause; the caller's wait for a quiet
  // etcd does the rest.
  await new Promise((r) => setTimeout(r, 250));
  await c.lease(60, { autoKeepAlive: false }).grant().catch(() => {});
  c.close();
  return { puts: lat.length, putsPerS: lat.length / secs, errors, latency: lat.summary(), clientCpuUs: lat.length ? cpuUs / lat.length : NaN };
}

runMain(main);
