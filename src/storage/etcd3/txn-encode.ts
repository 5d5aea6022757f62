/**
 * The TxnRequest encoder: every create, update and delete is one Txn, and protobufjs' generic writer (an op list,
 * a fork per nested message, then a copy into the result) cost ~4.4 µs per create-sized Txn in a loop and about
 * three times that under load. This one measures the message first, then writes it into one buffer. Its bytes are
 * the protobufjs encoder's, field for field (txn-encode.test.ts compares them), in declaration order: a scalar is
 * written unless it is proto3's default (0, false, empty bytes), a oneof member (Compare's target value, the
 * request of a RequestOp) whenever it is present, defaults included.
 */
import type { Compare, DeleteRangeRequest, LeaseId, PutRequest, RangeRequest, RequestOp, TxnRequest } from './requests.ts';

type Int64In = number | string | LeaseId;

const bytesSet = (b: Uint8Array | undefined | null): b is Uint8Array => b !== undefined && b !== null && b.length > 0;
const int64Set = (v: Int64In | undefined | null): v is Int64In => {
  if (v === undefined || v === null) return false;
  const [lo, hi] = halves(v);
  return lo !== 0 || hi !== 0;
};
const on = (v: boolean | undefined | null): boolean => v === true;

/** An int64 as low and high 32-bit halves (two's complement, as protobuf writes negative values). */
function halves(v: Int64In): [number, number] {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v) && v >= 0) return [v >>> 0, Math.floor(v / 4294967296) >>> 0];
    return bigHalves(BigInt(Math.trunc(v)));
  }
  if (typeof v === 'string') return bigHalves(BigInt(v));
  return [v.low >>> 0, v.high >>> 0];
}

function bigHalves(b: bigint): [number, number] {
  const u = BigInt.asUintN(64, b);
  return [Number(u & 0xffffffffn), Number(u >> 32n)];
}

function varint64Size(lo: number, hi: number): number {
  if (hi === 0) return varint32Size(lo);
  // Bits above the low 32: 4 full groups of 7 hold 28 bits, the fifth byte holds bits 28..34.
  const bits = 32 + (32 - Math.clz32(hi));
  return Math.ceil(bits / 7);
}

function varint32Size(v: number): number {
  v >>>= 0;
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

const bytesSize = (tag: number, len: number) => varint32Size(tag) + varint32Size(len) + len;
const int64Size = (tag: number, v: Int64In) => {
  const [lo, hi] = halves(v);
  return varint32Size(tag) + varint64Size(lo, hi);
};

function compareSize(c: Compare): number {
  let n = 0;
  if (c.result) n += 1 + varint32Size(c.result);
  if (c.target) n += 1 + varint32Size(c.target);
  if (bytesSet(c.key)) n += bytesSize(0x1a, c.key.length);
  if (c.version != null) n += int64Size(0x20, c.version);
  if (c.create_revision != null) n += int64Size(0x28, c.create_revision);
  if (c.mod_revision != null) n += int64Size(0x30, c.mod_revision);
  return n;
}

function rangeSize(r: RangeRequest): number {
  let n = 0;
  if (bytesSet(r.key)) n += bytesSize(0x0a, r.key.length);
  if (bytesSet(r.range_end)) n += bytesSize(0x12, r.range_end.length);
  if (int64Set(r.limit)) n += int64Size(0x18, r.limit);
  if (int64Set(r.revision)) n += int64Size(0x20, r.revision);
  if (on(r.serializable)) n += 2;
  if (on(r.keys_only)) n += 2;
  if (on(r.count_only)) n += 2;
  return n;
}

function putSize(p: PutRequest): number {
  let n = 0;
  if (bytesSet(p.key)) n += bytesSize(0x0a, p.key.length);
  if (bytesSet(p.value)) n += bytesSize(0x12, p.value.length);
  if (int64Set(p.lease)) n += int64Size(0x18, p.lease);
  if (on(p.prev_kv)) n += 2;
  return n;
}

function deleteSize(d: DeleteRangeRequest): number {
  let n = 0;
  if (bytesSet(d.key)) n += bytesSize(0x0a, d.key.length);
  if (bytesSet(d.range_end)) n += bytesSize(0x12, d.range_end.length);
  if (on(d.prev_kv)) n += 2;
  return n;
}

function opSize(o: RequestOp): number {
  let n = 0;
  if (o.request_range != null) n += bytesSize(0x0a, rangeSize(o.request_range));
  if (o.request_put != null) n += bytesSize(0x12, putSize(o.request_put));
  if (o.request_delete_range != null) n += bytesSize(0x1a, deleteSize(o.request_delete_range));
  return n;
}

class Out {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  varint32(v: number): void {
    v >>>= 0;
    while (v > 127) {
      this.buf[this.pos++] = (v & 127) | 128;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
  }
  int64(tag: number, v: Int64In): void {
    this.buf[this.pos++] = tag;
    let [lo, hi] = halves(v);
    while (hi !== 0 || lo > 127) {
      this.buf[this.pos++] = (lo & 127) | 128;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    this.buf[this.pos++] = lo;
  }
  bytes(tag: number, b: Uint8Array): void {
    this.buf[this.pos++] = tag;
    this.varint32(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  /** A bool field that is true (false is the default, never written). */
  one(tag: number): void {
    this.buf[this.pos++] = tag;
    this.buf[this.pos++] = 1;
  }
  head(tag: number, len: number): void {
    this.buf[this.pos++] = tag;
    this.varint32(len);
  }
}

function writeCompare(w: Out, c: Compare): void {
  if (c.result) {
    w.buf[w.pos++] = 0x08;
    w.varint32(c.result);
  }
  if (c.target) {
    w.buf[w.pos++] = 0x10;
    w.varint32(c.target);
  }
  if (bytesSet(c.key)) w.bytes(0x1a, c.key);
  if (c.version != null) w.int64(0x20, c.version);
  if (c.create_revision != null) w.int64(0x28, c.create_revision);
  if (c.mod_revision != null) w.int64(0x30, c.mod_revision);
}

function writeOp(w: Out, o: RequestOp): void {
  if (o.request_range != null) {
    const r = o.request_range;
    w.head(0x0a, rangeSize(r));
    if (bytesSet(r.key)) w.bytes(0x0a, r.key);
    if (bytesSet(r.range_end)) w.bytes(0x12, r.range_end);
    if (int64Set(r.limit)) w.int64(0x18, r.limit);
    if (int64Set(r.revision)) w.int64(0x20, r.revision);
    if (on(r.serializable)) w.one(0x38);
    if (on(r.keys_only)) w.one(0x40);
    if (on(r.count_only)) w.one(0x48);
  }
  if (o.request_put != null) {
    const p = o.request_put;
    w.head(0x12, putSize(p));
    if (bytesSet(p.key)) w.bytes(0x0a, p.key);
    if (bytesSet(p.value)) w.bytes(0x12, p.value);
    if (int64Set(p.lease)) w.int64(0x18, p.lease);
    if (on(p.prev_kv)) w.one(0x20);
  }
  if (o.request_delete_range != null) {
    const d = o.request_delete_range;
    w.head(0x1a, deleteSize(d));
    if (bytesSet(d.key)) w.bytes(0x0a, d.key);
    if (bytesSet(d.range_end)) w.bytes(0x12, d.range_end);
    if (on(d.prev_kv)) w.one(0x18);
  }
}

/** The protobuf encoding of `req`, in a buffer of its own. */
export function encodeTxnRequest(req: TxnRequest): Buffer {
  const compare = req.compare ?? [];
  const success = req.success ?? [];
  const failure = req.failure ?? [];
  let size = 0;
  for (const c of compare) size += bytesSize(0x0a, compareSize(c));
  for (const o of success) size += bytesSize(0x12, opSize(o));
  for (const o of failure) size += bytesSize(0x1a, opSize(o));
  const w = new Out(Buffer.allocUnsafe(size));
  for (const c of compare) {
    w.head(0x0a, compareSize(c));
    writeCompare(w, c);
  }
  for (const o of success) {
    w.head(0x12, opSize(o));
    writeOp(w, o);
  }
  for (const o of failure) {
    w.head(0x1a, opSize(o));
    writeOp(w, o);
  }
  if (w.pos !== size) throw new Error(`TxnRequest encoder wrote ${w.pos} bytes of ${size}`);
  return w.buf;
}
