/**
 * The KMS v2 messages (api.proto, upstream's plugin API) and the stored EncryptedObject (encrypted-object.proto),
 * compiled once by protobufjs from the .proto files beside this one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';

const root = new protobuf.Root();
for (const f of ['api.proto', 'encrypted-object.proto']) protobuf.parse(readFileSync(join(import.meta.dirname, f), 'utf8'), root, { keepCase: true });
root.resolveAll();

export const StatusRequest = root.lookupType('v2.StatusRequest');
export const StatusResponse = root.lookupType('v2.StatusResponse');
export const EncryptRequest = root.lookupType('v2.EncryptRequest');
export const EncryptResponse = root.lookupType('v2.EncryptResponse');
export const DecryptRequest = root.lookupType('v2.DecryptRequest');
export const DecryptResponse = root.lookupType('v2.DecryptResponse');
export const EncryptedObjectType = root.lookupType('v2.EncryptedObject');

export const SOURCE_AES_GCM_KEY = 0;
export const SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED = 1;

export interface StatusResponseMsg {
  version: string;
  healthz: string;
  key_id: string;
}
export interface EncryptResponseMsg {
  ciphertext: Buffer;
  key_id: string;
  annotations: Record<string, Buffer>;
}
export interface DecryptRequestMsg {
  ciphertext: Buffer;
  uid: string;
  key_id: string;
  annotations: Record<string, Buffer>;
}

export interface EncryptedObject {
  encryptedData: Buffer;
  keyID: string;
  encryptedDEKSource: Buffer;
  annotations: Record<string, Buffer>;
  encryptedDEKSourceType: number;
}

/** Encodes `m` as message `t` (protobufjs: verify, then encode). */
export function encodeMessage(t: protobuf.Type, m: object): Buffer {
  const err = t.verify(m);
  if (err) throw new Error(err);
  return Buffer.from(t.encode(t.fromObject(m)).finish());
}

/** Decodes message `t` with bytes as Buffers, defaults filled (proto3 semantics). */
export function decodeMessage<T>(t: protobuf.Type, b: Uint8Array): T {
  return t.toObject(t.decode(b), { defaults: true, bytes: Buffer as unknown as typeof String, enums: Number }) as T;
}
