/**
 * The protobuf exposition (client_model `io.prometheus.client.MetricFamily`, proto2): families as delimited
 * messages (each preceded by its length as a varint), and the protobuf text forms promhttp also answers with.
 * The same families, series order, labels and hidden/disabled rules as the text format; histograms carry their
 * classic buckets (finite bounds only: client_golang writes no +Inf bucket, the count stands for it) and, when the
 * series keeps them, the native buckets, which the text format cannot express.
 *
 * Messages are declared in .proto syntax and compiled by protobufjs at load, which checks the field numbers and
 * wire types against the schema rather than against a hand-written encoder.
 */
import protobuf from 'protobufjs';
import { goFloat } from './go-float.ts';
import { CounterSeries, GaugeSeries, HistogramSeries, SampleSeries, SummarySeries } from './metric.ts';
import { NativeHistogramSeries, spansAndDeltas, type BucketSpan } from './native-histogram.ts';
import type { Family } from './registry.ts';
import { sortedSeries } from './text.ts';

const TIMESTAMP_PROTO = `
syntax = "proto3";
package google.protobuf;
message Timestamp { int64 seconds = 1; int32 nanos = 2; }
`;

// Fields in client_model's declaration order (the text forms print them in that order), numbered as the reference
// §8.4 lists them.
const METRICS_PROTO = `
syntax = "proto2";
package io.prometheus.client;

message LabelPair { optional string name = 1; optional string value = 2; }

enum MetricType { COUNTER = 0; GAUGE = 1; SUMMARY = 2; UNTYPED = 3; HISTOGRAM = 4; GAUGE_HISTOGRAM = 5; }

message Gauge { optional double value = 1; }

message Counter {
  optional double value = 1;
  optional Exemplar exemplar = 2;
  optional google.protobuf.Timestamp created_timestamp = 3;
}

message Quantile { optional double quantile = 1; optional double value = 2; }

message Summary {
  optional uint64 sample_count = 1;
  optional double sample_sum = 2;
  repeated Quantile quantile = 3;
  optional google.protobuf.Timestamp created_timestamp = 4;
}

message Untyped { optional double value = 1; }

message Histogram {
  optional uint64 sample_count = 1;
  optional double sample_count_float = 4;
  optional double sample_sum = 2;
  repeated Bucket bucket = 3;
  optional google.protobuf.Timestamp created_timestamp = 15;
  optional sint32 schema = 5;
  optional double zero_threshold = 6;
  optional uint64 zero_count = 7;
  optional double zero_count_float = 8;
  repeated BucketSpan negative_span = 9;
  repeated sint64 negative_delta = 10;
  repeated double negative_count = 11;
  repeated BucketSpan positive_span = 12;
  repeated sint64 positive_delta = 13;
  repeated double positive_count = 14;
  repeated Exemplar exemplars = 16;
}

message Bucket {
  optional uint64 cumulative_count = 1;
  optional double cumulative_count_float = 4;
  optional double upper_bound = 2;
  optional Exemplar exemplar = 3;
}

message BucketSpan { optional sint32 offset = 1; optional uint32 length = 2; }

message Exemplar {
  repeated LabelPair label = 1;
  optional double value = 2;
  optional google.protobuf.Timestamp timestamp = 3;
}

message Metric {
  repeated LabelPair label = 1;
  optional Gauge gauge = 2;
  optional Counter counter = 3;
  optional Summary summary = 4;
  optional Untyped untyped = 5;
  optional Histogram histogram = 7;
  optional int64 timestamp_ms = 6;
}

message MetricFamily {
  optional string name = 1;
  optional string help = 2;
  optional MetricType type = 3;
  repeated Metric metric = 4;
  optional string unit = 5;
}
`;

function compile(): protobuf.Root {
  const root = new protobuf.Root();
  // keepCase: the messages below are built with the .proto field names, which the text forms print as they are.
  protobuf.parse(TIMESTAMP_PROTO, root, { keepCase: true });
  protobuf.parse(METRICS_PROTO, root, { keepCase: true });
  root.resolveAll();
  return root;
}

export const metricsProtoRoot = compile();
export const MetricFamilyType = metricsProtoRoot.lookupType('io.prometheus.client.MetricFamily');

/** MetricType values. */
const TYPE = { counter: 0, gauge: 1, summary: 2, histogram: 4 } as const;

export interface TimestampMessage {
  seconds: number;
  nanos: number;
}

export interface HistogramMessage {
  sample_count: number;
  sample_sum: number;
  bucket: { cumulative_count: number; upper_bound: number }[];
  created_timestamp: TimestampMessage;
  schema?: number;
  zero_threshold?: number;
  zero_count?: number;
  negative_span?: BucketSpan[];
  negative_delta?: number[];
  positive_span?: BucketSpan[];
  positive_delta?: number[];
}

export interface MetricMessage {
  label: { name: string; value: string }[];
  gauge?: { value: number };
  counter?: { value: number; created_timestamp?: TimestampMessage };
  histogram?: HistogramMessage;
  timestamp_ms?: number;
  summary?: { sample_count: number; sample_sum: number; created_timestamp: TimestampMessage };
}

export interface MetricFamilyMessage {
  name: string;
  help: string;
  type: number;
  metric: MetricMessage[];
}

const timestamp = (ms: number): TimestampMessage => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });

function histogramMessage(s: HistogramSeries): HistogramMessage {
  let cum = 0;
  const m: HistogramMessage = {
    sample_count: s.count,
    sample_sum: s.sum,
    bucket: s.bounds.map((upper_bound, i) => ({ cumulative_count: (cum += s.counts[i]!), upper_bound })),
    created_timestamp: timestamp(s.created),
  };
  if (s instanceof NativeHistogramSeries) {
    const neg = spansAndDeltas(s.negative);
    const pos = spansAndDeltas(s.positive);
    m.schema = s.schema;
    m.zero_threshold = s.zeroThreshold;
    m.zero_count = s.zeroCount;
    m.negative_span = neg.spans;
    m.negative_delta = neg.deltas;
    m.positive_span = pos.spans;
    m.positive_delta = pos.deltas;
    // With a zero threshold of 0 and nothing observed, nothing above would tell a scraper that the histogram is
    // native; client_golang adds an empty span for that.
    if (s.zeroThreshold === 0 && s.zeroCount === 0 && !pos.spans.length && !neg.spans.length) m.positive_span = [{ offset: 0, length: 0 }];
  }
  return m;
}

/** The families as MetricFamily messages (plain objects with the .proto field names). */
export function familyMessages(families: readonly Family[]): MetricFamilyMessage[] {
  const out: MetricFamilyMessage[] = [];
  for (const f of families) {
    const series = sortedSeries(f);
    // Go's registry leaves out a family with no series.
    if (!series.length) continue;
    const metric = series.map(({ ps, s }): MetricMessage => {
      const label = ps.map(([name, value]) => ({ name, value }));
      if (s instanceof HistogramSeries) return { label, histogram: histogramMessage(s) };
      if (s instanceof SampleSeries) {
        const value = { value: s.value };
        const at = s.timestampMs === undefined ? {} : { timestamp_ms: Math.round(s.timestampMs) };
        return f.type === 'counter' ? { label, counter: value, ...at } : { label, gauge: value, ...at };
      }
      if (s instanceof CounterSeries) return { label, counter: { value: s.value, created_timestamp: timestamp(s.created) } };
      if (s instanceof SummarySeries) return { label, summary: { sample_count: s.count, sample_sum: s.sum, created_timestamp: timestamp(s.created) } };
      return { label, gauge: { value: (s as GaugeSeries).value } };
    });
    out.push({ name: f.name, help: f.help, type: TYPE[f.type], metric });
  }
  return out;
}

/** The delimited protobuf exposition: every family as a varint length and the message. */
export function writeProtobuf(families: readonly Family[]): Uint8Array {
  const w = protobuf.Writer.create();
  for (const m of familyMessages(families)) MetricFamilyType.encodeDelimited(m, w);
  return w.finish();
}

/**
 * The protobuf text forms (`encoding=text`: one field a line, nested messages indented; `encoding=compact-text`:
 * one family a line), which promhttp serves when asked. Go randomises their whitespace from build to build, so no
 * reader can depend on more than the grammar, which this follows.
 */
export function writeProtoText(families: readonly Family[], compact: boolean): string {
  let out = '';
  for (const m of familyMessages(families)) out += compact ? `${textMessage(MetricFamilyType, m, '', true)}\n` : `${textMessage(MetricFamilyType, m, '', false)}\n\n`;
  return out;
}

function textMessage(type: protobuf.Type, msg: object, indent: string, compact: boolean): string {
  const parts: string[] = [];
  for (const field of type.fieldsArray) {
    const v = (msg as Record<string, unknown>)[field.name];
    if (v === undefined || v === null) continue;
    for (const item of field.repeated ? (v as unknown[]) : [v]) {
      if (field.resolvedType instanceof protobuf.Type) {
        const inner = textMessage(field.resolvedType, item as object, indent + '  ', compact);
        parts.push(compact ? `${field.name}:{${inner}}` : `${indent}${field.name}: {\n${inner}${indent}}\n`);
      } else {
        const value = textScalar(field, item);
        parts.push(compact ? `${field.name}:${value}` : `${indent}${field.name}: ${value}\n`);
      }
    }
  }
  return compact ? parts.join(' ') : parts.join('');
}

function textScalar(field: protobuf.Field, v: unknown): string {
  if (field.resolvedType instanceof protobuf.Enum) return field.resolvedType.valuesById[v as number] ?? String(v);
  if (field.type === 'string') return quote(v as string);
  if (field.type === 'double' || field.type === 'float') {
    const n = v as number;
    return Number.isNaN(n) ? 'nan' : n === Infinity ? 'inf' : n === -Infinity ? '-inf' : goFloat(n);
  }
  return String(v);
}

function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + '"';
}
