/**
 * A minimal OTLP trace receiver for tests: the collector's gRPC TraceService on loopback, built from the
 * opentelemetry-proto files in test/fixtures/otlp, keeping every span it is sent in a flat, easily searched form.
 */
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ROOT } from './server.ts';

/** One received span, ids as lower-case hex, attribute values unwrapped from AnyValue. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string }[];
  status: { code: string; message: string };
  resource: Record<string, unknown>;
  scope: string;
}

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: string; doubleValue?: number; arrayValue?: { values: AnyValue[] } };
type KeyValue = { key: string; value?: AnyValue };

function unwrap(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return v.arrayValue.values.map(unwrap);
  return undefined;
}

const attrs = (kvs: KeyValue[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, unwrap(kv.value)]));
const hex = (b: Buffer | undefined) => (b ? Buffer.from(b).toString('hex') : '');

export class OTLPCollector {
  readonly spans: ReceivedSpan[] = [];
  readonly #server = new grpc.Server();
  #waiters: (() => void)[] = [];
  port = 0;

  get endpoint(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const protos = join(ROOT, 'test', 'fixtures', 'otlp');
    const def = protoLoader.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', {
      includeDirs: [protos],
      longs: String,
      enums: String,
      defaults: false,
      oneofs: false,
    });
    const pkg = grpc.loadPackageDefinition(def) as any;
    const service = pkg.opentelemetry.proto.collector.trace.v1.TraceService.service;
    this.#server.addService(service, {
      Export: (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
        this.#receive(call.request);
        callback(null, {});
      },
    });
    this.port = await new Promise<number>((resolve, reject) =>
      this.#server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
    );
  }

  #receive(req: any): void {
    for (const rs of req.resourceSpans ?? []) {
      const resource = attrs(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: hex(s.traceId),
            spanId: hex(s.spanId),
            parentSpanId: hex(s.parentSpanId),
            name: s.name,
            kind: s.kind,
            startNs: BigInt(s.startTimeUnixNano ?? 0),
            endNs: BigInt(s.endTimeUnixNano ?? 0),
            attributes: attrs(s.attributes),
            events: (s.events ?? []).map((e: any) => ({ name: e.name, attributes: attrs(e.attributes) })),
            links: (s.links ?? []).map((l: any) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
            status: { code: s.status?.code ?? 'STATUS_CODE_UNSET', message: s.status?.message ?? '' },
            resource,
            scope: ss.scope?.name ?? '',
          });
        }
      }
    }
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Resolves with the spans matching `pred` once `test` holds for them, or rejects after `timeoutMs`. */
  async waitFor(pred: (s: ReceivedSpan) => boolean, test: (found: ReceivedSpan[]) => boolean, timeoutMs = 10_000): Promise<ReceivedSpan[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.spans.filter(pred);
      if (test(found)) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for spans; have: ${this.spans.map((s) => s.name).join(', ')}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.#server.tryShutdown(() => resolve()));
  }
}
