import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompareResult, CompareTarget, genericEncode, leaseIdOf, type TxnRequest } from './proto.ts';
import { encodeTxnRequest } from './txn-encode.ts';

/** The hand-written TxnRequest encoder against protobufjs' generic one: the same bytes for every shape we send. */
describe('TxnRequest encoder', () => {
  const key = Buffer.from('/registry/events/ns/name');
  const same = (req: TxnRequest) => assert.deepEqual(encodeTxnRequest(req), Buffer.from(genericEncode('TxnRequest', req)));

  it('writes a create (compare on create revision 0, a put with and without a lease) as protobufjs does', () => {
    for (const lease of [undefined, leaseIdOf('7587888457427591234'), '7587888457427591234', leaseIdOf('1'), leaseIdOf('-5')]) {
      for (const size of [0, 1, 127, 128, 1175, 16_383, 16_384, 70_000, 2_100_000]) {
        const value = Buffer.alloc(size, 0x61);
        same({
          compare: [{ result: CompareResult.EQUAL, target: CompareTarget.CREATE, key, create_revision: 0 }],
          success: [{ request_put: { key, value, ...(lease !== undefined ? { lease } : {}) } }],
        });
      }
    }
  });

  it('writes updates and deletes with every field, revisions past 2^32 and 2^53 − 1, and negative numbers', () => {
    for (const rev of [0, 1, 127, 128, 300, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 35 + 7, Number.MAX_SAFE_INTEGER]) {
      same({
        compare: [
          { result: CompareResult.EQUAL, target: CompareTarget.MOD, key, mod_revision: rev },
          { result: CompareResult.NOT_EQUAL, target: CompareTarget.VERSION, key: Buffer.alloc(0), version: rev },
        ],
        success: [
          { request_put: { key, value: Buffer.from('{}'), lease: leaseIdOf(String(rev)), prev_kv: false } },
          { request_delete_range: { key, range_end: Buffer.from('/registry/events0'), prev_kv: true } },
        ],
        failure: [{ request_range: { key, range_end: Buffer.from('\0'), limit: rev, revision: rev, serializable: true, keys_only: false, count_only: true } }],
      });
    }
    same({ compare: [], success: [{ request_range: { key, limit: -1 } }], failure: [] });
    same({ compare: [{ result: CompareResult.LESS, target: CompareTarget.CREATE, key, create_revision: -3 }], success: [] });
  });

  it('omits what is absent and proto3 defaults, but writes a oneof member that is zero, as protobufjs does', () => {
    same({ compare: [{ result: CompareResult.EQUAL, target: CompareTarget.MOD, key, mod_revision: undefined }], success: [{ request_put: { key, value: key, lease: undefined } }], failure: undefined });
    same({ compare: [], success: [] });
    same({ compare: [{ result: CompareResult.EQUAL, target: CompareTarget.VERSION, key: Buffer.alloc(0), version: 0 }], success: [{ request_put: { key: Buffer.alloc(0), value: Buffer.alloc(0), lease: leaseIdOf('0'), prev_kv: false } }] });
    same({ compare: [], success: [{ request_range: { key, limit: 0, revision: 0, serializable: false, keys_only: false, count_only: false } }, { request_delete_range: { key: Buffer.alloc(0), prev_kv: false } }] });
  });
});
