/**
 * Histogram observe and /metrics rendering micro-benchmark (not a test):
 * `node --import tsx bench/observe-micro.ts [--variant=classic|native] [--from=FILE]`.
 *
 * observe: 23 request-duration buckets, values log-uniform over 0.5 ms–2 s (where request durations fall), best of 7
 * rounds of 5M calls, ns per call. One variant per process, so that the JIT sees one histogram class as the server
 * does with the gate off. `--from=FILE` takes HistogramSeries from another copy of metric.ts (e.g. the one before
 * native histograms: `git show REV:src/metrics/metric.ts > /tmp/old-metric.ts`) to compare builds.
 * render: 200 histogram series with 50 observations each, text vs delimited protobuf, µs per scrape.
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { NativeHistogramSeries } from '../src/metrics/native-histogram.ts';
import { writeProtobuf } from '../src/metrics/protobuf.ts';
import { Registry } from '../src/metrics/registry.ts';
import { writeText } from '../src/metrics/text.ts';

const BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const variant = arg('variant') ?? 'classic';
const from = arg('from');

const values = new Float64Array(4096);
let seed = 42;
for (let i = 0; i < values.length; i++) {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  values[i] = 0.0005 * 4000 ** (seed / 2 ** 31);
}

interface Observer {
  observe(v: number): void;
  count: number;
}

const { HistogramSeries } = (from ? await import(pathToFileURL(resolve(from)).href) : await import('../src/metrics/metric.ts')) as { HistogramSeries: new (b: readonly number[]) => Observer };
const make = (): Observer => (variant === 'native' ? new NativeHistogramSeries(BUCKETS) : new HistogramSeries(BUCKETS));

function observeNs(): number {
  const n = 5_000_000;
  let best = Infinity;
  for (let round = 0; round < 7; round++) {
    const h = make();
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) h.observe(values[i & 4095]!);
    best = Math.min(best, Number(process.hrtime.bigint() - t) / n);
    if (h.count !== n) throw new Error('lost observations');
  }
  return best;
}

function renderUs(): { text: number; protobuf: number; textBytes: number; protobufBytes: number } {
  const r = new Registry({ version: '1.36.0', nativeHistograms: variant === 'native' });
  const vec = r.histogram('apiserver_request_duration_seconds', 'Response latency distribution in seconds.', BUCKETS);
  for (let s = 0; s < 200; s++) {
    const h = vec.with('apiserver', '', 'events.cluster.io', `r${s}`, 'namespace', '', 'GET', 'v1');
    for (let i = 0; i < 50; i++) h.observe(values[(s * 50 + i) & 4095]!);
  }
  const time = (fn: () => unknown) => {
    let best = Infinity;
    for (let round = 0; round < 7; round++) {
      const t = process.hrtime.bigint();
      for (let i = 0; i < 20; i++) fn();
      best = Math.min(best, Number(process.hrtime.bigint() - t) / 20 / 1000);
    }
    return best;
  };
  return {
    text: time(() => writeText(r.collect())),
    protobuf: time(() => writeProtobuf(r.collect())),
    textBytes: Buffer.byteLength(writeText(r.collect())),
    protobufBytes: writeProtobuf(r.collect()).length,
  };
}

const label = from ? `${variant} (HistogramSeries from ${from})` : variant;
console.log(`observe ${label}: ${observeNs().toFixed(2)} ns`);
if (!from && process.argv.includes('--render')) {
  const r = renderUs();
  console.log(`render ${variant}, 200 histogram series: text ${r.text.toFixed(0)} µs (${r.textBytes} B), protobuf ${r.protobuf.toFixed(0)} µs (${r.protobufBytes} B)`);
}
