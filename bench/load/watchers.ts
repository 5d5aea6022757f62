/**
 * Watch client process (child): opens W watches (HTTP/2 streams multiplexed over a few sessions, or one HTTP/1.1
 * connection each), announces @@ready once every watch has its 200, then records each delivery's receipt time
 * and the event's sequence number, found by the `#seq=N#` marker in the note (no JSON parsing: at 1,000 watchers
 * × 1,000 events/s the client must stay cheap). On the stdin line `finish <respTimesFile> <first> <count>` it
 * waits until every watcher has every event (or a timeout), then matches receipts with the creator's response
 * times and reports delivery latency percentiles, deliveries per second and dropped watchers.
 */
import { readFileSync } from 'node:fs';
import { childArgs, emit, nowMs, onStdinCommand, runMain } from '../lib/child.ts';
import type { ClientCreds } from '../lib/certs.ts';
import { Samples, type LatencySummary } from '../lib/stats.ts';
import { Client, type Transport } from '../lib/transport.ts';

interface Args {
  origin: string;
  creds: ClientCreds;
  transport: Transport;
  watchers: number;
  /** HTTP/2 sessions the watch streams share. */
  sessions: number;
  path: string;
  /** How long to wait for stragglers after the creator finished. */
  drainMs: number;
}

export interface WatchResult {
  watchers: number;
  ready: number;
  /** Watches the server ended before the run finished. */
  ended: number;
  /** Watchers that did not receive every event. */
  incomplete: number;
  expected: number;
  delivered: number;
  missing: number;
  deliveredPerS: number;
  latency: LatencySummary;
  /** From the create's send instead of its response: an upper bound that a slow creator cannot make negative. */
  fromSend: LatencySummary;
  /** Per event: when the last watcher got it. */
  allDelivered: LatencySummary;
}

const MARK = Buffer.from('#seq=');
const HASH = 0x23;

async function main(): Promise<WatchResult> {
  const a = childArgs<Args>();
  const client = new Client(a.origin, a.creds, a.transport, { sessions: a.sessions });
  let seqs = new Int32Array(1 << 20);
  let times = new Float64Array(1 << 20);
  let n = 0;
  const perWatcher = new Int32Array(a.watchers);
  let ready = 0;
  let dropped = 0;
  let finishing = false;
  let onProgress: () => void = () => {};

  const record = (w: number, seq: number, t: number) => {
    if (n === seqs.length) {
      const s2 = new Int32Array(n * 2);
      s2.set(seqs);
      seqs = s2;
      const t2 = new Float64Array(n * 2);
      t2.set(times);
      times = t2;
    }
    seqs[n] = seq;
    times[n++] = t;
    perWatcher[w]!++;
  };

  let allReady: () => void = () => {};
  const readyP = new Promise<void>((r) => (allReady = r));
  for (let w = 0; w < a.watchers; w++) {
    let carry: Buffer | undefined;
    const onData = (chunk: Buffer) => {
      const t = nowMs();
      const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
      carry = undefined;
      let pos = 0;
      for (;;) {
        const i = buf.indexOf(MARK, pos);
        if (i < 0) {
          // A marker may straddle two chunks: keep the bytes that could be its beginning.
          const keep = Math.max(pos, buf.length - (MARK.length - 1));
          if (keep < buf.length) carry = Buffer.from(buf.subarray(keep));
          break;
        }
        let j = i + MARK.length;
        let seq = 0;
        while (j < buf.length && buf[j] !== HASH) seq = seq * 10 + (buf[j++]! - 48);
        if (j >= buf.length) {
          carry = Buffer.from(buf.subarray(i));
          break;
        }
        record(w, seq, t);
        pos = j + 1;
      }
      if (finishing) onProgress();
    };
    client
      .request({
        method: 'GET',
        path: a.path,
        onResponse: (r) => {
          if (r.status === 200 && ++ready === a.watchers) allReady();
        },
        onData,
      })
      .then(
        () => dropped++,
        () => dropped++,
      );
  }
  await readyP;
  emit('ready', { watchers: ready });

  const [file, firstS, countS] = (await onStdinCommand('finish')).split(' ');
  const first = Number(firstS);
  const count = Number(countS);
  const expected = count * a.watchers;
  finishing = true;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, a.drainMs);
    onProgress = () => {
      if (n >= expected) {
        clearTimeout(timer);
        resolve();
      }
    };
    onProgress();
  });
  const times0 = JSON.parse(readFileSync(file!, 'utf8')) as { sent: (number | null)[]; resp: (number | null)[] };
  const resp = times0.resp;
  const sent = times0.sent;
  const lat = new Samples(n + 1);
  const fromSend = new Samples(n + 1);
  const lastPerEvent = new Float64Array(count).fill(-Infinity);
  let tFirst = Infinity;
  let tLast = -Infinity;
  let delivered = 0;
  for (let i = 0; i < n; i++) {
    const k = seqs[i]! - first;
    const r = resp[k];
    if (k < 0 || k >= count || r === null || r === undefined) continue;
    delivered++;
    const t = times[i]!;
    lat.push(t - r);
    fromSend.push(t - (sent[k] ?? r));
    if (t > lastPerEvent[k]!) lastPerEvent[k] = t;
    if (t > tLast) tLast = t;
  }
  const all = new Samples(count);
  for (let k = 0; k < count; k++) {
    const r = resp[k];
    if (typeof r === 'number') {
      if (r < tFirst) tFirst = r;
      if (lastPerEvent[k]! > -Infinity) all.push(lastPerEvent[k]! - r);
    }
  }
  let short = 0;
  for (let w = 0; w < a.watchers; w++) if (perWatcher[w]! < count) short++;
  client.close();
  return {
    watchers: a.watchers,
    ready,
    ended: dropped,
    incomplete: short,
    expected,
    delivered,
    missing: expected - delivered,
    deliveredPerS: delivered / Math.max(1e-3, (tLast - tFirst) / 1000),
    latency: lat.summary(),
    fromSend: fromSend.summary(),
    allDelivered: all.summary(),
  };
}

runMain(main);
