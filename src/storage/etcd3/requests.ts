/**
 * The KV requests this client sends, as protobufjs' encoder and ours (txn-encode.ts) take them: their own module so
 * that the hand-written encoder and the protobuf definitions (proto.ts) can both use them.
 */

/** A lease ID as the encoder takes it without parsing (protobufjs' Long): see leaseIdOf. */
export type LeaseId = { low: number; high: number; unsigned: boolean };

export interface RangeRequest {
  key: Buffer;
  range_end?: Buffer;
  limit?: number;
  revision?: number;
  serializable?: boolean;
  keys_only?: boolean;
  count_only?: boolean;
}

export interface PutRequest {
  key: Buffer;
  value: Buffer;
  lease?: string | LeaseId;
  prev_kv?: boolean;
}

export interface DeleteRangeRequest {
  key: Buffer;
  range_end?: Buffer;
  prev_kv?: boolean;
}

export interface RequestOp {
  request_range?: RangeRequest;
  request_put?: PutRequest;
  request_delete_range?: DeleteRangeRequest;
}

export const enum CompareResult {
  EQUAL = 0,
  GREATER = 1,
  LESS = 2,
  NOT_EQUAL = 3,
}

export const enum CompareTarget {
  VERSION = 0,
  CREATE = 1,
  MOD = 2,
  VALUE = 3,
  LEASE = 4,
}

export interface Compare {
  result: CompareResult;
  target: CompareTarget;
  key: Buffer;
  version?: number;
  create_revision?: number;
  mod_revision?: number;
}

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure?: RequestOp[];
}
