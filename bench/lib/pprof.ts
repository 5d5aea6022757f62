/**
 * Reads a Go pprof profile (etcd's /debug/pprof/profile: gzipped profile.proto) and gives its top functions by
 * flat and cumulative time. etcd from Debian is stripped, and Go's own `pprof` tool is not installed here; the
 * profile carries its own symbols, so decoding it is all that is needed.
 *
 *   node --import tsx bench/lib/pprof.ts FILE.pb.gz [--top=25] [--focus=REGEX]
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

const SCHEMA = `syntax = "proto3";
message Profile { repeated ValueType sample_type = 1; repeated Sample sample = 2; repeated Location location = 4;
  repeated Function function = 5; repeated string string_table = 6; int64 duration_nanos = 10; }
message ValueType { int64 type = 1; int64 unit = 2; }
message Sample { repeated uint64 location_id = 1; repeated int64 value = 2; }
message Location { uint64 id = 1; repeated Line line = 4; }
message Line { uint64 function_id = 1; int64 line = 2; }
message Function { uint64 id = 1; int64 name = 2; }`;

export interface PprofTop {
  seconds: number;
  totalMs: number;
  flat: Array<[string, number]>;
  cum: Array<[string, number]>;
}

export function topOf(gz: Buffer, top = 25, focus?: RegExp): PprofTop {
  const Profile = protobuf.parse(SCHEMA).root.lookupType('Profile');
  const p = Profile.toObject(Profile.decode(gunzipSync(gz)), { longs: Number, defaults: true }) as {
    sampleType: Array<{ type: number }>;
    sample: Array<{ locationId: number[]; value: number[] }>;
    location: Array<{ id: number; line: Array<{ functionId: number }> }>;
    function: Array<{ id: number; name: number }>;
    stringTable: string[];
    durationNanos: number;
  };
  const fn = new Map(p.function.map((f) => [f.id, p.stringTable[f.name]!]));
  // A location with inlined calls holds several lines, innermost first.
  const loc = new Map(p.location.map((l) => [l.id, l.line.map((x) => fn.get(x.functionId) ?? '?')]));
  const vi = p.sampleType.findIndex((t) => p.stringTable[t.type] === 'cpu');
  const flat = new Map<string, number>();
  const cum = new Map<string, number>();
  let total = 0;
  for (const s of p.sample) {
    const v = s.value[vi < 0 ? s.value.length - 1 : vi]! / 1e6;
    const stack = s.locationId.flatMap((id) => loc.get(id) ?? ['?']);
    if (focus && !stack.some((f) => focus.test(f))) continue;
    total += v;
    flat.set(stack[0]!, (flat.get(stack[0]!) ?? 0) + v);
    for (const f of new Set(stack)) cum.set(f, (cum.get(f) ?? 0) + v);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  return { seconds: p.durationNanos / 1e9, totalMs: total, flat: sorted(flat), cum: sorted(cum) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (n: string) => process.argv.find((a) => a.startsWith(`--${n}=`))?.slice(n.length + 3);
  const t = topOf(readFileSync(process.argv[2]!), Number(arg('top') ?? 25), arg('focus') ? new RegExp(arg('focus')!) : undefined);
  const pct = (v: number) => `${v.toFixed(0).padStart(7)} ms ${((100 * v) / t.totalMs).toFixed(1).padStart(5)} %`;
  console.log(`${t.totalMs.toFixed(0)} ms of CPU in ${t.seconds.toFixed(1)} s`);
  console.log('flat:');
  for (const [f, v] of t.flat) console.log(`${pct(v)}  ${f}`);
  console.log('cumulative:');
  for (const [f, v] of t.cum) console.log(`${pct(v)}  ${f}`);
}
