/**
 * The KV and Watch answers this client reads, as protobufjs and the hand-written decoders (response-decode.ts) give
 * them: their own module so that both proto.ts and the decoders can use them without an import cycle.
 */

/** An int64 as decoded: a number, or a Long (long.js, as protobufjs gives it) when it is not a safe non-negative integer. */
export type Int64 = number | { toNumber(): number; toString(): string };

/** A revision or count (always below 2^53 in practice: etcd would need centuries of writes). */
export function num(v: Int64 | null | undefined): number {
  if (v === null || v === undefined) return 0;
  return typeof v === 'number' ? v : v.toNumber();
}

/** A lease ID: any int64 (etcd makes them from the member ID and a counter), so kept as its decimal string. */
export function int64String(v: Int64 | null | undefined): string {
  if (v === null || v === undefined) return '0';
  return typeof v === 'number' ? String(v) : v.toString();
}

export interface KeyValue {
  key: Uint8Array;
  create_revision: Int64;
  mod_revision: Int64;
  version: Int64;
  value: Uint8Array;
  lease: Int64;
}

export interface ResponseHeader {
  revision: Int64;
}

export interface RangeResponse {
  header: ResponseHeader;
  kvs: KeyValue[];
  more: boolean;
  count: Int64;
}

export interface ResponseOp {
  response_range?: RangeResponse;
  response_put?: { header: ResponseHeader; prev_kv?: KeyValue };
  response_delete_range?: { header: ResponseHeader; deleted: Int64; prev_kvs: KeyValue[] };
}

export interface TxnResponse {
  header: ResponseHeader;
  succeeded: boolean;
  responses: ResponseOp[];
}

export const EVENT_PUT = 0;
export const EVENT_DELETE = 1;

export interface WatchEvent {
  type: number;
  kv: KeyValue;
  prev_kv?: KeyValue | null;
}

export interface WatchResponse {
  header: ResponseHeader;
  watch_id: Int64;
  created: boolean;
  canceled: boolean;
  compact_revision: Int64;
  cancel_reason: string;
  fragment: boolean;
  events: WatchEvent[];
}
