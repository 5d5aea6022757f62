/**
 * The part of etcd's v3 gRPC API (`etcdserverpb` and `mvccpb`, etcd's api/etcdserverpb/rpc.proto and
 * api/mvccpb/kv.proto) this backend calls: KV (Range, Put, DeleteRange, Txn, Compact), Watch, Lease (Grant,
 * Revoke) and Maintenance (Status). Only the messages and fields used are declared; their names and numbers are
 * etcd's, so the wire format is etcd's (protobuf ignores the fields a side does not declare). Compiled by protobufjs
 * at load, as src/metrics/protobuf.ts does for client_model; the messages of every write and watch event are written
 * and read by hand (txn-encode.ts, response-decode.ts), checked against protobufjs by their tests.
 *
 * Why not the `etcd3` npm client: its last release (1.1.2, 2023) pins @grpc/proto-loader 0.7 beside the 0.8 we
 * have, and it hides what this backend needs from a watch response (watch progress responses, compact_revision,
 * the header revision of each response). The calls themselves are gRPC's wire format on our own HTTP/2 framing (h2.ts, unary.ts, bidi.ts).
 */
import protobuf from 'protobufjs';
import { CompareResult, CompareTarget, type Compare, type DeleteRangeRequest, type LeaseId, type PutRequest, type RangeRequest, type RequestOp, type TxnRequest } from './requests.ts';
import type { Int64, RangeResponse, ResponseHeader, TxnResponse, WatchResponse } from './responses.ts';
import { decodeRangeResponse, decodeTxnResponse, decodeWatchResponse } from './response-decode.ts';
import { encodeTxnRequest } from './txn-encode.ts';

export { CompareResult, CompareTarget, type Compare, type DeleteRangeRequest, type LeaseId, type PutRequest, type RangeRequest, type RequestOp, type TxnRequest };
export { EVENT_DELETE, EVENT_PUT, int64String, num, type Int64, type KeyValue, type RangeResponse, type ResponseHeader, type ResponseOp, type TxnResponse, type WatchEvent, type WatchResponse } from './responses.ts';

const ETCD_PROTO = `
syntax = "proto3";
package etcdserverpb;

message KeyValue {
  bytes key = 1;
  int64 create_revision = 2;
  int64 mod_revision = 3;
  int64 version = 4;
  bytes value = 5;
  int64 lease = 6;
}

message Event {
  enum EventType { PUT = 0; DELETE = 1; }
  EventType type = 1;
  KeyValue kv = 2;
  KeyValue prev_kv = 3;
}

message ResponseHeader {
  uint64 cluster_id = 1;
  uint64 member_id = 2;
  int64 revision = 3;
  uint64 raft_term = 4;
}

message RangeRequest {
  bytes key = 1;
  bytes range_end = 2;
  int64 limit = 3;
  int64 revision = 4;
  bool serializable = 7;
  bool keys_only = 8;
  bool count_only = 9;
}

message RangeResponse {
  ResponseHeader header = 1;
  repeated KeyValue kvs = 2;
  bool more = 3;
  int64 count = 4;
}

message PutRequest {
  bytes key = 1;
  bytes value = 2;
  int64 lease = 3;
  bool prev_kv = 4;
}

message PutResponse {
  ResponseHeader header = 1;
  KeyValue prev_kv = 2;
}

message DeleteRangeRequest {
  bytes key = 1;
  bytes range_end = 2;
  bool prev_kv = 3;
}

message DeleteRangeResponse {
  ResponseHeader header = 1;
  int64 deleted = 2;
  repeated KeyValue prev_kvs = 3;
}

message RequestOp {
  oneof request {
    RangeRequest request_range = 1;
    PutRequest request_put = 2;
    DeleteRangeRequest request_delete_range = 3;
  }
}

message ResponseOp {
  oneof response {
    RangeResponse response_range = 1;
    PutResponse response_put = 2;
    DeleteRangeResponse response_delete_range = 3;
  }
}

message Compare {
  enum CompareResult { EQUAL = 0; GREATER = 1; LESS = 2; NOT_EQUAL = 3; }
  enum CompareTarget { VERSION = 0; CREATE = 1; MOD = 2; VALUE = 3; LEASE = 4; }
  CompareResult result = 1;
  CompareTarget target = 2;
  bytes key = 3;
  oneof target_union {
    int64 version = 4;
    int64 create_revision = 5;
    int64 mod_revision = 6;
    bytes value = 7;
    int64 lease = 8;
  }
}

message TxnRequest {
  repeated Compare compare = 1;
  repeated RequestOp success = 2;
  repeated RequestOp failure = 3;
}

message TxnResponse {
  ResponseHeader header = 1;
  bool succeeded = 2;
  repeated ResponseOp responses = 3;
}

message CompactionRequest {
  int64 revision = 1;
  bool physical = 2;
}

message CompactionResponse {
  ResponseHeader header = 1;
}

message WatchRequest {
  oneof request_union {
    WatchCreateRequest create_request = 1;
    WatchCancelRequest cancel_request = 2;
    WatchProgressRequest progress_request = 3;
  }
}

message WatchCreateRequest {
  bytes key = 1;
  bytes range_end = 2;
  int64 start_revision = 3;
  bool progress_notify = 4;
  bool prev_kv = 6;
  int64 watch_id = 7;
}

message WatchCancelRequest {
  int64 watch_id = 1;
}

message WatchProgressRequest {}

message WatchResponse {
  ResponseHeader header = 1;
  int64 watch_id = 2;
  bool created = 3;
  bool canceled = 4;
  int64 compact_revision = 5;
  string cancel_reason = 6;
  bool fragment = 7;
  repeated Event events = 11;
}

message LeaseGrantRequest {
  int64 TTL = 1;
  int64 ID = 2;
}

message LeaseGrantResponse {
  ResponseHeader header = 1;
  int64 ID = 2;
  int64 TTL = 3;
  string error = 4;
}

message LeaseRevokeRequest {
  int64 ID = 1;
}

message LeaseRevokeResponse {
  ResponseHeader header = 1;
}

message StatusRequest {}

message StatusResponse {
  ResponseHeader header = 1;
  string version = 2;
  int64 dbSize = 3;
  uint64 leader = 4;
  repeated string errors = 8;
  int64 dbSizeInUse = 9;
}
`;

const root = protobuf.parse(ETCD_PROTO, { keepCase: true }).root;
const type = (name: string) => root.lookupType(`etcdserverpb.${name}`);

/**
 * A lease ID (decimal int64) in the encoder's form, parsed once instead of on every put that carries it (the
 * encoder parses a string each time). Without the long package protobufjs parses strings itself: then the string.
 */
export function leaseIdOf(id: string): LeaseId | string {
  const Long = protobuf.util.Long as unknown as { fromString(s: string, unsigned?: boolean): unknown } | undefined;
  return Long ? (Long.fromString(id, false) as LeaseId) : id;
}

export interface WatchCreateRequest {
  key: Buffer;
  range_end: Buffer;
  start_revision: number;
  progress_notify: boolean;
  prev_kv: boolean;
  watch_id: number;
}

export interface WatchRequest {
  create_request?: WatchCreateRequest;
  cancel_request?: { watch_id: number };
  progress_request?: Record<string, never>;
}

export interface LeaseGrantResponse {
  header: ResponseHeader;
  ID: Int64;
  TTL: Int64;
  error: string;
}

export interface StatusResponse {
  header: ResponseHeader;
  version: string;
  dbSize: Int64;
  leader: Int64;
  errors: string[];
  dbSizeInUse: Int64;
}

/** protobufjs' encoding of a message of this file (what the hand-written encoders must match, byte for byte). */
export function genericEncode(typeName: string, message: object): Uint8Array {
  return type(typeName).encode(message).finish();
}

/** protobufjs' decoding of a message of this file (what the hand-written decoders must match, field for field). */
export function genericDecode(typeName: string, bytes: Uint8Array): unknown {
  return type(typeName).decode(bytes);
}

/** Serializer and deserializer of one message type, in grpc-js's shape. */
export interface Codec<Req, Res> {
  /** The encoder's own bytes (a view of its pool): copy or send them before the next serialize. */
  serialize(req: Req): Uint8Array;
  deserialize(buf: Buffer): Res;
}

function codec<Req, Res>(reqName: string, resName: string): Codec<Req, Res> {
  const req = type(reqName);
  const res = type(resName);
  return {
    // Plain objects straight to the encoder (no fromObject/verify copy): the interfaces above keep them in shape.
    serialize: (r) => req.encode(r as object).finish(),
    deserialize: (b) => res.decode(b) as unknown as Res,
  };
}

/** The unary methods used, by their gRPC path. */
export const methods = {
  // Answers on the hot paths are read by hand (response-decode.ts), the rest by protobufjs.
  range: { path: '/etcdserverpb.KV/Range', ...codec<RangeRequest, RangeResponse>('RangeRequest', 'RangeResponse'), deserialize: decodeRangeResponse },
  put: { path: '/etcdserverpb.KV/Put', ...codec<PutRequest, { header: ResponseHeader }>('PutRequest', 'PutResponse') },
  deleteRange: { path: '/etcdserverpb.KV/DeleteRange', ...codec<DeleteRangeRequest, { header: ResponseHeader; deleted: Int64 }>('DeleteRangeRequest', 'DeleteRangeResponse') },
  // Every write is a Txn: written by hand (txn-encode.ts).
  txn: { path: '/etcdserverpb.KV/Txn', ...codec<TxnRequest, TxnResponse>('TxnRequest', 'TxnResponse'), serialize: encodeTxnRequest, deserialize: decodeTxnResponse },
  compact: { path: '/etcdserverpb.KV/Compact', ...codec<{ revision: number; physical?: boolean }, { header: ResponseHeader }>('CompactionRequest', 'CompactionResponse') },
  leaseGrant: { path: '/etcdserverpb.Lease/LeaseGrant', ...codec<{ TTL: number; ID?: number }, LeaseGrantResponse>('LeaseGrantRequest', 'LeaseGrantResponse') },
  leaseRevoke: { path: '/etcdserverpb.Lease/LeaseRevoke', ...codec<{ ID: string }, { header: ResponseHeader }>('LeaseRevokeRequest', 'LeaseRevokeResponse') },
  status: { path: '/etcdserverpb.Maintenance/Status', ...codec<Record<string, never>, StatusResponse>('StatusRequest', 'StatusResponse') },
} as const;

export const watchMethod = { path: '/etcdserverpb.Watch/Watch', ...codec<WatchRequest, WatchResponse>('WatchRequest', 'WatchResponse'), deserialize: decodeWatchResponse };
