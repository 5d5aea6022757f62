import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { genericDecode, genericEncode } from './proto.ts';
import { decodeRangeResponse, decodeTxnResponse, decodeWatchResponse } from './response-decode.ts';

/**
 * The hand-written decoders against protobufjs' generic one on the same bytes: every field equal, an int64 compared
 * by its decimal value (protobufjs gives a Long, the decoders a number when it is safe), a header by its revision
 * (the only field the decoders keep).
 */

type Any = Record<string, unknown> | null | undefined;

const int = (v: unknown): string => (v === null || v === undefined ? '0' : String(v));
const hex = (v: unknown): string => (v ? Buffer.from(v as Uint8Array).toString('hex') : '');
const header = (h: Any) => (h ? { revision: int(h.revision) } : null);
const kv = (k: Any) => (k ? { key: hex(k.key), create_revision: int(k.create_revision), mod_revision: int(k.mod_revision), version: int(k.version), value: hex(k.value), lease: int(k.lease) } : null);
const kvs = (l: unknown) => ((l as Any[] | undefined) ?? []).map(kv);
const range = (m: Any) => (m ? { header: header(m.header as Any), kvs: kvs(m.kvs), more: Boolean(m.more), count: int(m.count) } : null);
const op = (o: Any) => {
  if (!o) return null;
  if (o.response_range) return { range: range(o.response_range as Any) };
  if (o.response_put) {
    const p = o.response_put as Record<string, unknown>;
    return { put: { header: header(p.header as Any), prev_kv: kv(p.prev_kv as Any) } };
  }
  if (o.response_delete_range) {
    const d = o.response_delete_range as Record<string, unknown>;
    return { del: { header: header(d.header as Any), deleted: int(d.deleted), prev_kvs: kvs(d.prev_kvs) } };
  }
  return {};
};
const txn = (m: Any) => ({ header: header(m!.header as Any), succeeded: Boolean(m!.succeeded), responses: ((m!.responses as Any[] | undefined) ?? []).map(op) });
const watch = (m: Any) => ({
  header: header(m!.header as Any),
  watch_id: int(m!.watch_id),
  created: Boolean(m!.created),
  canceled: Boolean(m!.canceled),
  compact_revision: int(m!.compact_revision),
  cancel_reason: String(m!.cancel_reason ?? ''),
  fragment: Boolean(m!.fragment),
  events: ((m!.events as Any[] | undefined) ?? []).map((e) => ({ type: Number(e!.type ?? 0), kv: kv(e!.kv as Any), prev_kv: kv(e!.prev_kv as Any) })),
});

const shapes = {
  TxnResponse: { ours: decodeTxnResponse, norm: txn },
  WatchResponse: { ours: decodeWatchResponse, norm: watch },
  RangeResponse: { ours: decodeRangeResponse, norm: range },
} as const;
type Shape = keyof typeof shapes;

function same(name: Shape, bytes: Uint8Array): void {
  const s = shapes[name];
  const buf = Buffer.from(bytes);
  assert.deepEqual(s.norm(s.ours(buf) as unknown as Any), s.norm(genericDecode(name, buf) as Any));
}
const roundTrip = (name: Shape, message: object) => same(name, genericEncode(name, message));

// Deterministic pseudo-random choices, so a failure repeats.
let seed = 12345;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const maybe = <T>(v: T): T | undefined => (rand() < 0.5 ? v : undefined);

const INT64S = ['0', '1', '127', '128', '300', '2147483647', '2147483648', '4294967295', '4294967296', '9007199254740991', '9007199254740992', '9223372036854775807', '-1', '-300', '-9223372036854775808', '7587888457427591234', '-7587888457427591234'];
const UINT64S = ['0', '1', '14841639068965178418', '18446744073709551615', '10276657743932975437'];
const bytes = () => pick([Buffer.alloc(0), Buffer.from('/registry/events/ns/n'), Buffer.alloc(200, 0x61), Buffer.alloc(20_000, 0x7b), Buffer.from([0, 0xff, 0x80])]);
const hdr = () => ({ cluster_id: pick(UINT64S), member_id: pick(UINT64S), revision: pick(INT64S), raft_term: pick(UINT64S) });
const randKv = () => ({ key: maybe(bytes()), create_revision: maybe(pick(INT64S)), mod_revision: maybe(pick(INT64S)), version: maybe(pick(INT64S)), value: maybe(bytes()), lease: maybe(pick(INT64S)) });
const list = <T>(make: () => T, max: number): T[] => Array.from({ length: Math.floor(rand() * (max + 1)) }, make);
const randRange = () => ({ header: maybe(hdr()), kvs: list(randKv, 3), more: maybe(rand() < 0.5), count: maybe(pick(INT64S)) });
const randOp = () =>
  pick([
    () => ({ response_range: randRange() }),
    () => ({ response_put: { header: maybe(hdr()), prev_kv: maybe(randKv()) } }),
    () => ({ response_delete_range: { header: maybe(hdr()), deleted: maybe(pick(INT64S)), prev_kvs: list(randKv, 2) } }),
    () => ({}),
  ])();
const randTxn = () => ({ header: maybe(hdr()), succeeded: maybe(rand() < 0.5), responses: list(randOp, 3) });
const randWatch = () => ({
  header: maybe(hdr()),
  watch_id: maybe(pick(INT64S)),
  created: maybe(rand() < 0.5),
  canceled: maybe(rand() < 0.5),
  compact_revision: maybe(pick(INT64S)),
  cancel_reason: maybe(pick(['', 'mvcc: required revision has been compacted', 'ünïcode ✓'])),
  fragment: maybe(rand() < 0.5),
  events: list(() => ({ type: maybe(pick([0, 1])), kv: maybe(randKv()), prev_kv: maybe(randKv()) }), 3),
});

/** A field this schema does not know, of each wire type (as newer etcd versions add), at number `n`. */
function unknownFields(n: number): Buffer {
  const tag = (wt: number) => Buffer.from([(n << 3) | wt]);
  return Buffer.concat([
    tag(0), Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
    tag(1), Buffer.alloc(8, 7),
    tag(2), Buffer.from([3, 1, 2, 3]),
    tag(5), Buffer.alloc(4, 9),
    // A group holding a varint and a nested group.
    tag(3), Buffer.from([0x08, 0x05]), Buffer.from([(1 << 3) | 3, (1 << 3) | 4]), tag(4),
  ]);
}

describe('etcd response decoders', () => {
  it('read what etcd sends for a create, an update, a delete and a watch event as protobufjs does', () => {
    const h = { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: 123456, raft_term: 2 };
    const value = Buffer.alloc(1000, 0x61);
    const key = Buffer.from('/registry/events/default/e-h0-abcde');
    const stored = { key, create_revision: 123000, mod_revision: 123456, version: 3, value, lease: '7587869046493591555' };
    roundTrip('TxnResponse', { header: h, succeeded: true, responses: [{ response_put: { header: h } }] });
    roundTrip('TxnResponse', { header: h, succeeded: false, responses: [{ response_range: { header: h, kvs: [stored], count: 1 } }] });
    roundTrip('TxnResponse', { header: h, succeeded: true, responses: [{ response_delete_range: { header: h, deleted: 1, prev_kvs: [stored] } }] });
    roundTrip('WatchResponse', { header: h, watch_id: 3, events: [{ kv: { ...stored, version: 1, create_revision: 123456 } }] });
    roundTrip('WatchResponse', { header: h, watch_id: 3, events: [{ type: 1, kv: { key, mod_revision: 123457 }, prev_kv: stored }] });
    roundTrip('WatchResponse', { header: h, watch_id: 0, created: true });
    roundTrip('WatchResponse', { header: h, watch_id: 7, canceled: true, compact_revision: 99, cancel_reason: 'mvcc: required revision has been compacted' });
    roundTrip('RangeResponse', { header: h, kvs: [stored, stored], more: true, count: 5 });
    roundTrip('RangeResponse', {});
  });

  it('keeps revisions as numbers and the int64s beyond 2^53 or below 0 as protobufjs does', () => {
    const w = decodeWatchResponse(Buffer.from(genericEncode('WatchResponse', { header: { revision: 9_007_199_254_740_991 }, events: [{ kv: { key: Buffer.from('k'), mod_revision: 4_294_967_296, lease: '-7587888457427591234' } }] })));
    assert.equal(w.header.revision, 9_007_199_254_740_991);
    assert.equal(w.events[0]!.kv.mod_revision, 4_294_967_296);
    assert.equal(w.events[0]!.kv.lease.toString(), '-7587888457427591234');
    const big = decodeRangeResponse(Buffer.from(genericEncode('RangeResponse', { count: '9007199254740993' })));
    assert.equal(big.count.toString(), '9007199254740993');
  });

  it('reads 600 random messages of each type as protobufjs does', () => {
    for (let i = 0; i < 600; i++) {
      roundTrip('TxnResponse', randTxn());
      roundTrip('WatchResponse', randWatch());
      roundTrip('RangeResponse', randRange());
    }
  });

  it('skips unknown fields of every wire type, at the top and inside nested messages, as protobufjs does', () => {
    const kvBytes = Buffer.concat([Buffer.from(genericEncode('KeyValue', { key: Buffer.from('k'), mod_revision: 5 })), unknownFields(15)]);
    const ev = Buffer.concat([Buffer.from([0x12, kvBytes.length]), kvBytes, unknownFields(9)]);
    const msg = Buffer.concat([unknownFields(12), Buffer.from(genericEncode('WatchResponse', { watch_id: 2 })), Buffer.from([0x5a, ev.length]), ev, unknownFields(99)]);
    same('WatchResponse', msg);
    assert.equal(decodeWatchResponse(msg).events[0]!.kv.mod_revision, 5);
    // A nested Txn answer (ResponseOp field 4, etcd 3.3+): unknown to this schema, skipped by both.
    const op = Buffer.concat([Buffer.from([0x22, 2, 0x10, 1])]);
    same('TxnResponse', Buffer.concat([Buffer.from(genericEncode('TxnResponse', { succeeded: true })), Buffer.from([0x1a, op.length]), op]));
  });

  it('throws on a truncated message wherever protobufjs throws, and otherwise reads the same', () => {
    const whole = Buffer.from(genericEncode('WatchResponse', randWatch()));
    const full = Buffer.from(genericEncode('TxnResponse', { header: hdr(), succeeded: true, responses: [{ response_range: { kvs: [randKv(), randKv()], count: 2 } }] }));
    for (const [name, b] of [['WatchResponse', whole], ['TxnResponse', full]] as const) {
      for (let n = 0; n < b.length; n += Math.max(1, Math.floor(b.length / 300))) {
        const part = b.subarray(0, n);
        let theirs: unknown;
        try {
          theirs = genericDecode(name, part);
        } catch {
          assert.throws(() => shapes[name].ours(Buffer.from(part)), RangeError, `${name} cut at ${n} of ${b.length}`);
          continue;
        }
        let ours: unknown;
        try {
          ours = shapes[name].ours(Buffer.from(part));
        } catch (e) {
          // Stricter than protobufjs only where a nested message overruns its own length.
          assert.match((e as Error).message, /past its message's end|index out of range/);
          continue;
        }
        assert.deepEqual(shapes[name].norm(ours as Any), shapes[name].norm(theirs as Any), `${name} cut at ${n}`);
      }
    }
  });

  it('refuses an over-long varint and an invalid wire type', () => {
    assert.throws(() => decodeTxnResponse(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])), /invalid varint/);
    assert.throws(() => decodeTxnResponse(Buffer.from([(2 << 3) | 7])), /invalid wire type 7/);
  });
});
