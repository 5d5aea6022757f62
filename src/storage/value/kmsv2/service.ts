/**
 * The gRPC client of a KMS v2 plugin (upstream `k8s.io/kms/pkg/service` over `envelope/kmsv2/grpc_service.go`):
 * `v2.KeyManagementService` on a unix socket, every call bounded by the configuration's timeout, each call timed in
 * `apiserver_envelope_encryption_kms_operations_latency_seconds` under its full method name.
 */
// Type-only at load: gRPC is loaded (connectKMS) only when a KMS provider is configured, so a server without one
// never loads it (test/architecture.test.ts).
import type * as grpc from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import {
  DecryptRequest,
  DecryptResponse,
  EncryptRequest,
  EncryptResponse,
  StatusRequest,
  StatusResponse,
  decodeMessage,
  encodeMessage,
  type DecryptRequestMsg,
  type EncryptResponseMsg,
  type StatusResponseMsg,
} from './proto.ts';

/** How a call went, for the latency metric: method `/v2.KeyManagementService/<Name>`, gRPC code name. */
export type CallObserver = (method: string, code: string, seconds: number) => void;

const SERVICE = '/v2.KeyManagementService/';

function method(name: string, req: protobuf.Type, res: protobuf.Type): grpc.MethodDefinition<object, object> {
  return {
    path: `${SERVICE}${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: (m: object) => encodeMessage(req, m),
    requestDeserialize: (b: Buffer) => decodeMessage(req, b),
    responseSerialize: (m: object) => encodeMessage(res, m),
    responseDeserialize: (b: Buffer) => decodeMessage(res, b),
  };
}

/** The service definition, shared with test plugins (they serve the same methods). */
export const KMS_V2_SERVICE: grpc.ServiceDefinition = {
  Status: method('Status', StatusRequest, StatusResponse),
  Decrypt: method('Decrypt', DecryptRequest, DecryptResponse),
  Encrypt: method('Encrypt', EncryptRequest, EncryptResponse),
};

/** grpc-go's code names by number (what the latency metric's grpc_status_code carries). */
const CODE_NAMES = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'];
function codeName(code: number | undefined): string {
  return (code !== undefined && CODE_NAMES[code]) || 'unknown-non-grpc';
}

/** Loads @grpc/grpc-js and connects to the plugin at `endpoint` (lazily: the first call dials). */
export async function connectKMS(endpoint: string, timeoutMs: number, observe?: CallObserver): Promise<KMSService> {
  const g = await import('@grpc/grpc-js');
  return new KMSService(g, endpoint, timeoutMs, observe);
}

export class KMSService {
  readonly #client: grpc.Client & Record<string, (req: object, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: object) => void) => void>;
  readonly #timeoutMs: number;
  readonly #observe: CallObserver | undefined;

  readonly #grpc: typeof grpc;

  /** `endpoint`: `unix:///path/to/socket` (validated before); the connection is made lazily and re-made as needed. */
  constructor(g: typeof grpc, endpoint: string, timeoutMs: number, observe?: CallObserver) {
    this.#grpc = g;
    const Client = g.makeGenericClientConstructor(KMS_V2_SERVICE, 'KeyManagementService');
    // grpc-js takes `unix:///abs/path` as it is (and `unix:path` for relative ones).
    this.#client = new Client(endpoint, g.credentials.createInsecure(), { 'grpc.enable_retries': 0 }) as never;
    this.#timeoutMs = timeoutMs;
    this.#observe = observe;
  }

  #call<R>(name: string, req: object): Promise<R> {
    const start = performance.now();
    return new Promise<R>((resolve, reject) => {
      this.#client[name]!(req, new this.#grpc.Metadata(), { deadline: Date.now() + this.#timeoutMs }, (err, res) => {
        this.#observe?.(`${SERVICE}${name}`, err ? codeName(err.code) : 'OK', (performance.now() - start) / 1000);
        if (err) reject(err);
        else resolve(res as R);
      });
    });
  }

  status(): Promise<StatusResponseMsg> {
    return this.#call('Status', {});
  }

  encrypt(uid: string, plaintext: Buffer): Promise<EncryptResponseMsg> {
    return this.#call('Encrypt', { plaintext, uid });
  }

  async decrypt(uid: string, req: Omit<DecryptRequestMsg, 'uid'>): Promise<Buffer> {
    const r = await this.#call<{ plaintext: Buffer }>('Decrypt', { ...req, uid });
    return r.plaintext;
  }

  close(): void {
    this.#client.close();
  }
}
