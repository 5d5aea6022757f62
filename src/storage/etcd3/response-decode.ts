/**
 * Decoders of the answers on the hot paths: TxnResponse (every write), WatchResponse (every change the watch cache
 * follows) and RangeResponse (reads from etcd). protobufjs' generic reader makes two objects per int64 (its LongBits,
 * then a Long, as long.js is installed for lease IDs): ~10 per create, with the message objects its codegen builds.
 * These read the same wire format into plain objects, in the shapes of responses.ts:
 *  - an int64 is a number when it is a safe non-negative integer, else a Long as protobufjs gives it (signed);
 *  - an absent field has proto3's default (0, false, '', empty bytes, [] for a repeated field), an absent message
 *    null, as protobufjs reads them; bytes are views of the message (protobufjs' `slice`, which shares memory);
 *  - a ResponseHeader keeps only `revision`: no caller reads the cluster, member or term (two of them need a Long);
 *  - unknown fields (newer etcd versions add some, e.g. ResponseOp's nested Txn) are skipped by wire type, groups
 *    included, as protobufjs skips them; a field with the wrong wire type is skipped too (protobufjs would misread
 *    it); a truncated or malformed message throws a RangeError.
 * response-decode.test.ts compares every field with protobufjs' decoding of the same bytes.
 */
import protobuf from 'protobufjs';
import type { Int64, KeyValue, RangeResponse, ResponseHeader, ResponseOp, TxnResponse, WatchEvent, WatchResponse } from './responses.ts';

type LongCtor = { fromBits(low: number, high: number, unsigned?: boolean): { toNumber(): number; toString(): string } };
const Long = protobuf.util.Long as unknown as LongCtor | null;

const EMPTY = Buffer.alloc(0);

/** A cursor over one message. Field tags and lengths are varints of at most 32 bits, as protobufjs reads them. */
class Reader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    pos: number,
    readonly end: number,
  ) {
    this.pos = pos;
  }

  #outOfRange(n: number): RangeError {
    return new RangeError(`index out of range: ${this.pos} + ${n} > ${this.end}`);
  }

  /** A varint's low 32 bits, unsigned (protobufjs' uint32: up to 10 bytes, the rest dropped). */
  uint32(): number {
    const b = this.buf;
    let p = this.pos;
    let v = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (p >= this.end) throw this.#outOfRange(1);
      const c = b[p++]!;
      if (shift < 32) v |= (c & 0x7f) << shift;
      if (c < 0x80) {
        this.pos = p;
        return v >>> 0;
      }
    }
    throw new RangeError('invalid varint encoding');
  }

  /** An int64 (or a uint64 with `unsigned`): a number when it is safe and not negative, else a Long. */
  int64(unsigned = false): Int64 {
    const b = this.buf;
    let p = this.pos;
    let lo = 0;
    let hi = 0;
    for (let i = 0; ; i++) {
      if (p >= this.end) throw this.#outOfRange(1);
      if (i >= 10) throw new RangeError('invalid varint encoding');
      const c = b[p++]!;
      if (i < 4) lo |= (c & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (c & 0x0f) << 28;
        hi |= (c & 0x7f) >> 4;
      } else hi |= (c & 0x7f) << (7 * i - 32);
      if (c < 0x80) break;
    }
    this.pos = p;
    lo >>>= 0;
    hi >>>= 0;
    if (hi === 0) return lo;
    if (hi < 0x200000) return hi * 4294967296 + lo;
    if (!Long) return unsigned || hi < 0x80000000 ? hi * 4294967296 + lo : (hi - 4294967296) * 4294967296 + lo;
    return Long.fromBits(lo | 0, hi | 0, unsigned);
  }

  /** The end of a length-delimited field that starts here, its length read. */
  delimited(): number {
    const n = this.uint32();
    if (n > this.end - this.pos) throw this.#outOfRange(n);
    return this.pos + n;
  }

  bytes(): Buffer {
    const e = this.delimited();
    const v = this.buf.subarray(this.pos, e);
    this.pos = e;
    return v;
  }

  string(): string {
    const e = this.delimited();
    const v = this.buf.toString('utf8', this.pos, e);
    this.pos = e;
    return v;
  }

  /** Skips a field of wire type `wt` whose tag was read (protobufjs' skipType). */
  skip(wt: number): void {
    switch (wt) {
      case 0:
        this.uint32();
        return;
      case 1:
        this.#advance(8);
        return;
      case 2:
        this.pos = this.delimited();
        return;
      case 3:
        for (;;) {
          const t = this.uint32();
          if ((t & 7) === 4) return;
          this.skip(t & 7);
        }
      case 5:
        this.#advance(4);
        return;
      default:
        throw new Error(`invalid wire type ${wt} at offset ${this.pos}`);
    }
  }

  #advance(n: number): void {
    if (n > this.end - this.pos) throw this.#outOfRange(n);
    this.pos += n;
  }
}

/** Reads the embedded message that starts at the cursor with `read`, leaving the cursor after it. */
function embedded<T>(r: Reader, read: (r: Reader, end: number) => T): T {
  const end = r.delimited();
  const v = read(r, end);
  if (r.pos !== end) throw new RangeError(`index out of range: a field ends at ${r.pos}, past its message's end ${end}`);
  return v;
}

function header(r: Reader, end: number): ResponseHeader {
  let revision: Int64 = 0;
  while (r.pos < end) {
    const t = r.uint32();
    if (t === 0x18) revision = r.int64();
    else r.skip(t & 7);
  }
  return { revision };
}

function keyValue(r: Reader, end: number): KeyValue {
  const kv: KeyValue = { key: EMPTY, create_revision: 0, mod_revision: 0, version: 0, value: EMPTY, lease: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 0x0a:
        kv.key = r.bytes();
        break;
      case 0x10:
        kv.create_revision = r.int64();
        break;
      case 0x18:
        kv.mod_revision = r.int64();
        break;
      case 0x20:
        kv.version = r.int64();
        break;
      case 0x2a:
        kv.value = r.bytes();
        break;
      case 0x30:
        kv.lease = r.int64();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return kv;
}

function rangeResponse(r: Reader, end: number): RangeResponse {
  const m: RangeResponse = { header: null as unknown as ResponseHeader, kvs: [], more: false, count: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 0x0a:
        m.header = embedded(r, header);
        break;
      case 0x12:
        m.kvs.push(embedded(r, keyValue));
        break;
      case 0x18:
        m.more = r.uint32() !== 0;
        break;
      case 0x20:
        m.count = r.int64();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

function putResponse(r: Reader, end: number): NonNullable<ResponseOp['response_put']> {
  const m: NonNullable<ResponseOp['response_put']> = { header: null as unknown as ResponseHeader, prev_kv: null as unknown as KeyValue };
  while (r.pos < end) {
    const t = r.uint32();
    if (t === 0x0a) m.header = embedded(r, header);
    else if (t === 0x12) m.prev_kv = embedded(r, keyValue);
    else r.skip(t & 7);
  }
  return m;
}

function deleteRangeResponse(r: Reader, end: number): NonNullable<ResponseOp['response_delete_range']> {
  const m: NonNullable<ResponseOp['response_delete_range']> = { header: null as unknown as ResponseHeader, deleted: 0, prev_kvs: [] };
  while (r.pos < end) {
    const t = r.uint32();
    if (t === 0x0a) m.header = embedded(r, header);
    else if (t === 0x10) m.deleted = r.int64();
    else if (t === 0x1a) m.prev_kvs.push(embedded(r, keyValue));
    else r.skip(t & 7);
  }
  return m;
}

/** A ResponseOp: the one member of its oneof that is present (the last one read, as protobufjs keeps it). */
function responseOp(r: Reader, end: number): ResponseOp {
  let m: ResponseOp = {};
  while (r.pos < end) {
    const t = r.uint32();
    if (t === 0x0a) m = { response_range: embedded(r, rangeResponse) };
    else if (t === 0x12) m = { response_put: embedded(r, putResponse) };
    else if (t === 0x1a) m = { response_delete_range: embedded(r, deleteRangeResponse) };
    else r.skip(t & 7);
  }
  return m;
}

function event(r: Reader, end: number): WatchEvent {
  const m: WatchEvent = { type: 0, kv: null as unknown as KeyValue, prev_kv: null };
  while (r.pos < end) {
    const t = r.uint32();
    if (t === 0x08) m.type = r.uint32() | 0;
    else if (t === 0x12) m.kv = embedded(r, keyValue);
    else if (t === 0x1a) m.prev_kv = embedded(r, keyValue);
    else r.skip(t & 7);
  }
  return m;
}

export function decodeTxnResponse(buf: Buffer): TxnResponse {
  const r = new Reader(buf, 0, buf.length);
  const m: TxnResponse = { header: null as unknown as ResponseHeader, succeeded: false, responses: [] };
  while (r.pos < r.end) {
    const t = r.uint32();
    if (t === 0x0a) m.header = embedded(r, header);
    else if (t === 0x10) m.succeeded = r.uint32() !== 0;
    else if (t === 0x1a) m.responses.push(embedded(r, responseOp));
    else r.skip(t & 7);
  }
  return m;
}

export function decodeRangeResponse(buf: Buffer): RangeResponse {
  return rangeResponse(new Reader(buf, 0, buf.length), buf.length);
}

export function decodeWatchResponse(buf: Buffer): WatchResponse {
  const r = new Reader(buf, 0, buf.length);
  const m: WatchResponse = { header: null as unknown as ResponseHeader, watch_id: 0, created: false, canceled: false, compact_revision: 0, cancel_reason: '', fragment: false, events: [] };
  while (r.pos < r.end) {
    const t = r.uint32();
    switch (t) {
      case 0x0a:
        m.header = embedded(r, header);
        break;
      case 0x10:
        m.watch_id = r.int64();
        break;
      case 0x18:
        m.created = r.uint32() !== 0;
        break;
      case 0x20:
        m.canceled = r.uint32() !== 0;
        break;
      case 0x28:
        m.compact_revision = r.int64();
        break;
      case 0x32:
        m.cancel_reason = r.string();
        break;
      case 0x38:
        m.fragment = r.uint32() !== 0;
        break;
      case 0x5a:
        m.events.push(embedded(r, event));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
