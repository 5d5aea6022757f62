/**
 * Turning tracing on (upstream component-base `tracing.NewProvider`): OTLP over gRPC to the configured endpoint,
 * always without TLS, through a batch span processor; resource `service.name=apiserver` and
 * `service.instance.id=<this server's id>`; sampler ParentBased(root = TraceIDRatioBased(rate / 1e6), or never
 * when the rate is 0 or unset); W3C trace context and baggage as the propagators; an AsyncLocalStorage context
 * manager so that a span started in a handler is the parent of what the handler awaits.
 *
 * The SDK, exporter and gRPC are imported here, on demand: a server started without `--tracing-config-file`
 * never loads them.
 */
import { randomUUID } from 'node:crypto';
import { DiagLogLevel, context, diag, propagation, trace } from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace-base';
import { log } from '../util/log.ts';
import { setActiveTracer } from './tracing.ts';

/** The fields of a TracingConfiguration that matter here (config/tracing.ts validates them). */
export interface TracingSettings {
  endpoint?: string;
  samplingRatePerMillion?: number;
}

export interface TracingProvider {
  /** The `service.instance.id` spans carry. */
  readonly instanceID: string;
  /** Exports what is still queued and stops; the tracer makes no spans afterwards. */
  shutdown(): Promise<void>;
}

/** Upstream's service name for every API server's spans. */
export const SERVICE_NAME = 'apiserver';
const DEFAULT_TARGET = 'localhost:4317';
const SHUTDOWN_TIMEOUT_MS = 5_000;

/**
 * The exporter URL for a configured gRPC target: `host:port` and `dns:[//authority]/host:port` dial host:port
 * (`http://` is how the OTLP exporter is told that a connection is plaintext); `unix:` targets go to grpc-js as
 * written.
 */
export function exporterURL(endpoint: string | undefined): string {
  const target = endpoint || DEFAULT_TARGET;
  if (target.startsWith('unix:') || target.startsWith('unix-abstract:')) return target;
  const dns = /^dns:(?:\/\/[^/]*\/)?(.*)$/i.exec(target);
  return `http://${dns ? dns[1] : target}`;
}

/** The root sampler's ratio: samples per million as a fraction, or undefined for "never sample a root". */
export function rootSamplingRatio(samplingRatePerMillion: number | undefined): number | undefined {
  const rate = samplingRatePerMillion ?? 0;
  return rate > 0 ? rate / 1_000_000 : undefined;
}

/** The apiserver ID upstream gives each process (`apiserver-<uuid>`); it names the process in every trace. */
export function newInstanceID(): string {
  return `apiserver-${randomUUID()}`;
}

export async function startTracing(settings: TracingSettings, instanceID = newInstanceID()): Promise<TracingProvider> {
  const [sdk, { OTLPTraceExporter }, { resourceFromAttributes }, core, { AsyncLocalStorageContextManager }, grpc] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-grpc'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
    import('@opentelemetry/context-async-hooks'),
    import('@grpc/grpc-js'),
  ]);
  // Export failures reach the OpenTelemetry diagnostics logger; without one they would vanish.
  diag.setLogger(
    {
      error: (msg, ...args) => log.error('OpenTelemetry', { msg, args: args.map(String).join(' ') }),
      warn: (msg, ...args) => log.warning('OpenTelemetry', { msg, args: args.map(String).join(' ') }),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const ratio = rootSamplingRatio(settings.samplingRatePerMillion);
  const root: Sampler = ratio === undefined ? new sdk.AlwaysOffSampler() : new sdk.TraceIdRatioBasedSampler(ratio);
  const exporter = new OTLPTraceExporter({ url: exporterURL(settings.endpoint), credentials: grpc.credentials.createInsecure() });
  const provider = new sdk.BasicTracerProvider({
    sampler: new sdk.ParentBasedSampler({ root }),
    resource: resourceFromAttributes({ 'service.name': SERVICE_NAME, 'service.instance.id': instanceID }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.CompositePropagator({ propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  setActiveTracer(provider.getTracer('core-apiserver'));
  return {
    instanceID,
    async shutdown() {
      setActiveTracer(undefined);
      // The last batch is sent if the collector answers soon; an unreachable one must not hold up the exit.
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_TIMEOUT_MS).unref());
      await Promise.race([provider.shutdown().catch((e: unknown) => log.warning('Tracing shutdown failed', { err: String(e) })), timeout]);
    },
  };
}
