import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { NativeHistogramSeries } from './native-histogram.ts';
import { MetricFamilyType, familyMessages, writeProtoText, writeProtobuf } from './protobuf.ts';
import { Registry, type Family } from './registry.ts';
import { writeText } from './text.ts';

const DURATION_HELP = 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.';

/** Splits the delimited stream by hand (varint length, message) and decodes each message with protobufjs. */
function decodeDelimited(buf: Uint8Array): Record<string, any>[] {
  const out: Record<string, any>[] = [];
  let pos = 0;
  while (pos < buf.length) {
    let len = 0;
    let shift = 0;
    let b: number;
    do {
      b = buf[pos++]!;
      len += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    const msg = MetricFamilyType.decode(buf.subarray(pos, pos + len));
    out.push(MetricFamilyType.toObject(msg, { longs: Number, enums: String }));
    pos += len;
  }
  return out;
}

function registry(nativeHistograms: boolean, extra: { disabledMetrics?: string[]; version?: string } = {}) {
  const r = new Registry({ version: '1.36.0', nativeHistograms, ...extra });
  const total = r.counter('apiserver_request_total', 'Counter of apiserver requests.');
  total.with('200', 'apiserver', '', 'events.cluster.io', 'events', 'namespace', '', 'LIST', 'v1').inc(3);
  total.with('201', 'apiserver', 'All', 'events.cluster.io', 'events', 'resource', '', 'POST', 'v1').inc();
  const d = r.histogram('apiserver_request_duration_seconds', DURATION_HELP, [0.005, 0.1, 1]).with('apiserver', '', 'events.cluster.io', 'events', 'resource', '', 'GET', 'v1');
  for (const v of [0.001, 0.1, 0.1, 0.5, 3]) d.observe(v);
  r.gauge('apiserver_longrunning_requests', 'Gauge of long-running requests.').with('apiserver', 'events.cluster.io', 'events', 'namespace', '', 'WATCH', 'v1').set(2);
  r.gauge('apiserver_storage_objects', 'Deprecated in 1.34.0, hidden from 1.37.').with('events').set(1);
  return r;
}

describe('protobuf exposition', () => {
  it('a collected sample keeps the time of its reading (timestamp_ms) and, being a const metric, has no created timestamp', () => {
    const r = new Registry({ version: '1.36.0', path: '/metrics/resource' });
    r.collected('node_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the node in core-seconds', 'counter').with().set(12.5, 1772694489250);
    r.collected('resource_scrape_error', '1 if there was an error while getting container metrics, 0 otherwise', 'gauge').with().set(0);
    const [node, err] = decodeDelimited(writeProtobuf(r.collect()));
    assert.deepEqual(node, { name: 'node_cpu_usage_seconds_total', help: '[STABLE] Cumulative cpu time consumed by the node in core-seconds', type: 'COUNTER', metric: [{ counter: { value: 12.5 }, timestamp_ms: 1772694489250 }] });
    assert.deepEqual(err!.metric, [{ gauge: { value: 0 } }]);
    assert.equal(writeText(r.collect()), '# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds\n# TYPE node_cpu_usage_seconds_total counter\nnode_cpu_usage_seconds_total 12.5 1772694489250\n# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE resource_scrape_error gauge\nresource_scrape_error 0\n');
  });

  it('a summary is a SUMMARY family with sample count, sum and created timestamp, no quantiles', () => {
    const r = new Registry({ version: '1.36.0' });
    r.summary('apiserver_admission_step_admission_duration_seconds_summary', 'x').with('UPDATE', 'true', 'admit').observe(0.5);
    const [fam] = decodeDelimited(writeProtobuf(r.collect())).filter((f) => f.name === 'apiserver_admission_step_admission_duration_seconds_summary');
    assert.equal(fam!.type, 'SUMMARY');
    const m = fam!.metric[0];
    assert.equal(Number(m.summary.sample_count), 1);
    assert.equal(m.summary.sample_sum, 0.5);
    assert.ok(m.summary.created_timestamp);
    assert.ok(!m.summary.quantile?.length);
  });

  it('delimited MetricFamily messages that decode to the registry\'s families, in the text format\'s order', () => {
    const r = registry(false);
    const decoded = decodeDelimited(writeProtobuf(r.collect()));
    const names = decoded.map((f) => f.name);
    const textNames = [...writeText(r.collect()).matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
    assert.deepEqual(names, textNames);
    const byName = new Map(decoded.map((f) => [f.name, f]));

    const total = byName.get('apiserver_request_total')!;
    assert.equal(total.type, 'COUNTER');
    assert.equal(total.help, '[STABLE] Counter of apiserver requests.');
    assert.equal(total.metric.length, 2);
    const [m200, m201] = total.metric;
    assert.deepEqual(m200.label, [
      { name: 'code', value: '200' },
      { name: 'component', value: 'apiserver' },
      { name: 'dry_run', value: '' },
      { name: 'group', value: 'events.cluster.io' },
      { name: 'resource', value: 'events' },
      { name: 'scope', value: 'namespace' },
      { name: 'subresource', value: '' },
      { name: 'verb', value: 'LIST' },
      { name: 'version', value: 'v1' },
    ]);
    assert.equal(m200.counter.value, 3);
    assert.equal(m201.counter.value, 1);
    assert.ok(Math.abs(m200.counter.created_timestamp.seconds - Date.now() / 1000) < 60, 'created_timestamp: when the series was made');

    const gauge = byName.get('apiserver_longrunning_requests')!;
    assert.equal(gauge.type, 'GAUGE');
    assert.deepEqual(gauge.metric[0].gauge, { value: 2 });

    const hist = byName.get('apiserver_request_duration_seconds')!;
    assert.equal(hist.type, 'HISTOGRAM');
    const h = hist.metric[0].histogram;
    assert.equal(h.sample_count, 5);
    assert.equal(h.sample_sum, 0.001 + 0.1 + 0.1 + 0.5 + 3);
    // Finite bounds only: the count is the +Inf bucket.
    assert.deepEqual(h.bucket, [
      { cumulative_count: 1, upper_bound: 0.005 },
      { cumulative_count: 3, upper_bound: 0.1 },
      { cumulative_count: 4, upper_bound: 1 },
    ]);
    for (const field of ['schema', 'zero_threshold', 'zero_count', 'positive_span', 'positive_delta', 'negative_span', 'negative_delta']) {
      assert.equal(h[field], undefined, `gate off: no ${field}`);
    }
  });

  it('the classic buckets are the text format\'s, number for number', () => {
    const r = registry(true);
    const text = writeText(r.collect());
    const h = decodeDelimited(writeProtobuf(r.collect())).find((f) => f.name === 'apiserver_request_duration_seconds')!.metric[0].histogram;
    for (const b of h.bucket) {
      const le = String(b.upper_bound);
      assert.match(text, new RegExp(`^apiserver_request_duration_seconds_bucket\\{.*le="${le.replace('.', '\\.')}"\\} ${b.cumulative_count}$`, 'm'));
    }
    assert.match(text, new RegExp(`^apiserver_request_duration_seconds_count\\{.*\\} ${h.sample_count}$`, 'm'));
    assert.doesNotMatch(text, /schema|zero_threshold|span/, 'the text format never carries native data');
  });

  it('gate on: classic buckets plus schema, zero bucket, spans and deltas', () => {
    const r = registry(true);
    const h = decodeDelimited(writeProtobuf(r.collect())).find((f) => f.name === 'apiserver_request_duration_seconds')!.metric[0].histogram;
    assert.equal(h.bucket.length, 3);
    assert.equal(h.schema, 3);
    assert.equal(h.zero_threshold, 2 ** -128);
    assert.equal(h.zero_count, 0);
    // 0.001 → −79, 0.1 (twice) → −26, 0.5 → −8, 3 → 13
    assert.deepEqual(h.positive_span, [{ offset: -79, length: 1 }, { offset: 52, length: 1 }, { offset: 17, length: 1 }, { offset: 20, length: 1 }]);
    assert.deepEqual(h.positive_delta, [1, 1, -1, 0]);
    assert.equal(h.negative_span, undefined, 'no negative buckets: the fields are absent');
    assert.equal(h.negative_delta, undefined);
  });

  it('negative spans and deltas, and the zero bucket', () => {
    const r = new Registry({ version: '1.36.0', nativeHistograms: true });
    const s = r.histogram('apiserver_request_duration_seconds', DURATION_HELP, [1]).with('apiserver', '', '', '', '', '', 'GET', '');
    // −1 → 0 (twice), −2 → 8, and 0 and 1e-40 are within the zero threshold.
    for (const v of [-1, -1, -2, 0, 1e-40]) s.observe(v);
    const h = decodeDelimited(writeProtobuf(r.collect()))[0]!.metric[0].histogram;
    assert.deepEqual(h.negative_span, [{ offset: 0, length: 1 }, { offset: 7, length: 1 }]);
    assert.deepEqual(h.negative_delta, [2, -1]);
    assert.equal(h.zero_count, 2);
    assert.equal(h.positive_span, undefined);
  });

  it('a native histogram with zero threshold 0 and no observations gets the empty span {offset 0, length 0}', () => {
    const s = new NativeHistogramSeries([1], { zeroThreshold: 0 });
    const h = decodeDelimited(encodeOne(s))[0]!.metric[0].histogram;
    assert.deepEqual(h.positive_span, [{ offset: 0, length: 0 }]);
    assert.equal(h.zero_threshold, 0);
    assert.equal(h.schema, 3);
    s.observe(0);
    assert.equal(decodeDelimited(encodeOne(s))[0]!.metric[0].histogram.positive_span, undefined, 'a zero-bucket count is enough to tell');
    // The component-base threshold (2^-128) marks the histogram native by itself.
    assert.equal(decodeDelimited(encodeOne(new NativeHistogramSeries([1])))[0]!.metric[0].histogram.positive_span, undefined);
  });

  it('families with no series, hidden and disabled metrics are left out as in the text format', () => {
    const r = registry(true, { disabledMetrics: ['apiserver_longrunning_requests'], version: '1.37.0' });
    const names = decodeDelimited(writeProtobuf(r.collect())).map((f) => f.name);
    assert.ok(!names.includes('apiserver_longrunning_requests'), 'disabled');
    assert.ok(!names.includes('apiserver_storage_objects'), 'hidden: STABLE deprecated in 1.34.0 is shown through 1.36');
    assert.ok(decodeDelimited(writeProtobuf(registry(true).collect())).some((f) => f.name === 'apiserver_storage_objects'), 'in 1.36 it is there');
    assert.deepEqual(names, [...writeText(r.collect()).matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
    assert.equal(writeProtobuf(new Registry({ version: '1.36.0', path: '/metrics/slis' }).collect()).length, 0);
  });

  it('the protobuf text forms name every field in declaration order', () => {
    const r = registry(true);
    const compact = writeProtoText(r.collect(), true).split('\n');
    assert.equal(compact.length, familyMessages(r.collect()).length + 1, 'one family a line');
    assert.match(compact.find((l) => l.startsWith('name:"apiserver_request_duration_seconds"'))!, /^name:"apiserver_request_duration_seconds" help:"\[STABLE\] Response latency.*" type:HISTOGRAM metric:\{label:\{name:"component" value:"apiserver"\} .* histogram:\{sample_count:5 sample_sum:3\.701 bucket:\{cumulative_count:1 upper_bound:0\.005\} .* schema:3 zero_threshold:2\.938735877055719e-39 zero_count:0 positive_span:\{offset:-79 length:1\}/);
    const multi = writeProtoText(r.collect(), false);
    assert.ok(multi.startsWith('name: "apiserver_longrunning_requests"\nhelp: "[STABLE] Gauge of long-running requests."\ntype: GAUGE\n'));
    assert.ok(multi.includes('\nmetric: {\n  label: {\n    name: "component"\n    value: "apiserver"\n  }\n'));
    assert.ok(multi.includes('\ntype: COUNTER\n'));
  });
});

/** One histogram family holding just `s`, encoded. */
function encodeOne(s: NativeHistogramSeries): Uint8Array {
  const family: Family = {
    name: 'apiserver_request_duration_seconds',
    help: DURATION_HELP,
    type: 'histogram',
    labelNames: ['verb'],
    constLabels: {},
    vec: { series: () => [{ values: ['GET'], series: s }] } as unknown as Family['vec'],
  };
  const w = protobuf.Writer.create();
  for (const m of familyMessages([family])) MetricFamilyType.encodeDelimited(m, w);
  return w.finish();
}
