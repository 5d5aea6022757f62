/**
 * A KMS v2 plugin for tests: upstream's `v2.KeyManagementService` on a unix socket (the real proto, served by
 * @grpc/grpc-js), with an AES-GCM key-encryption key per key ID. Tests rotate its key ID, make it unhealthy, stop it
 * (the socket goes away) and start it again, and count the calls it gets.
 */
import * as grpc from '@grpc/grpc-js';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { KMS_V2_SERVICE } from '../../src/storage/value/kmsv2/service.ts';

export class TestKMSPlugin {
  keyID = 'key-1';
  healthz = 'ok';
  version = 'v2';
  readonly calls = { Status: 0, Encrypt: 0, Decrypt: 0 };
  readonly #keks = new Map<string, Buffer>();
  #server: grpc.Server | undefined;

  constructor(readonly socketPath: string) {}

  get endpoint(): string {
    return `unix://${this.socketPath}`;
  }

  #kek(id: string): Buffer {
    let k = this.#keks.get(id);
    if (!k) this.#keks.set(id, (k = randomBytes(32)));
    return k;
  }

  /** A new key ID for encryptions; older ones still decrypt. */
  rotate(keyID: string): void {
    this.keyID = keyID;
  }

  async start(): Promise<void> {
    rmSync(this.socketPath, { force: true });
    const server = new grpc.Server();
    server.addService(KMS_V2_SERVICE, {
      Status: (_call: unknown, cb: grpc.sendUnaryData<object>) => {
        this.calls.Status++;
        cb(null, { version: this.version, healthz: this.healthz, key_id: this.keyID });
      },
      Encrypt: (call: grpc.ServerUnaryCall<{ plaintext: Buffer }, object>, cb: grpc.sendUnaryData<object>) => {
        this.calls.Encrypt++;
        const nonce = randomBytes(12);
        const c = createCipheriv('aes-256-gcm', this.#kek(this.keyID), nonce);
        const ct = Buffer.concat([nonce, c.update(call.request.plaintext), c.final(), c.getAuthTag()]);
        cb(null, { ciphertext: ct, key_id: this.keyID, annotations: { 'kms.example.com': Buffer.from('test-plugin') } });
      },
      Decrypt: (call: grpc.ServerUnaryCall<{ ciphertext: Buffer; key_id: string; annotations: Record<string, Buffer> }, object>, cb: grpc.sendUnaryData<object>) => {
        this.calls.Decrypt++;
        const { ciphertext, key_id } = call.request;
        const kek = this.#keks.get(key_id);
        if (!kek) return cb({ code: grpc.status.NOT_FOUND, details: `unknown key ID ${key_id}` }, null);
        try {
          const d = createDecipheriv('aes-256-gcm', kek, ciphertext.subarray(0, 12));
          d.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
          cb(null, { plaintext: Buffer.concat([d.update(ciphertext.subarray(12, ciphertext.length - 16)), d.final()]) });
        } catch {
          cb({ code: grpc.status.INVALID_ARGUMENT, details: 'ciphertext does not open' }, null);
        }
      },
    });
    await new Promise<void>((resolve, reject) => server.bindAsync(this.endpoint, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    this.#server = server;
  }

  /** The plugin goes away: its socket closes and every call fails until `start`. */
  async stop(): Promise<void> {
    const s = this.#server;
    this.#server = undefined;
    if (s) s.forceShutdown();
    rmSync(this.socketPath, { force: true });
  }
}
