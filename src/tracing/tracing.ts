/**
 * The process's tracer, and child spans of the request being served. Only the OpenTelemetry API is loaded here (a
 * few kilobytes with no-op defaults); the SDK and the exporter load when `--tracing-config-file` is given
 * (provider.ts). Without it `activeTracer()` stays undefined: every instrumented place checks that once and
 * creates nothing, so tracing that is off costs one comparison where a span would start.
 *
 * Child spans follow the request's span through the OpenTelemetry context (an AsyncLocalStorage once tracing is
 * on): a storage call started while a handler span is active becomes that span's child, across awaits. A child is
 * only made under a span that records, as upstream's component-base helper does, so background work (the watch
 * cache, the TTL sweeper, compaction) and unsampled requests create no spans at all.
 */
import { type Attributes, type Context, type Span, type Tracer, SpanStatusCode, context, createContextKey, trace } from '@opentelemetry/api';

let tracer: Tracer | undefined;

/** The tracer spans are made with, or undefined when tracing is off (the usual case). */
export function activeTracer(): Tracer | undefined {
  return tracer;
}

/** Set once at start-up by startTracing (tests set and clear it around a case). */
export function setActiveTracer(t: Tracer | undefined): void {
  tracer = t;
}

const AUDIT_ID = createContextKey('core-apiserver audit-id');

/** The context with the request's audit ID, which every span of the request carries as `audit-id`. */
export function withAuditID(ctx: Context, auditID: string): Context {
  return ctx.setValue(AUDIT_ID, auditID);
}

/** The audit ID of the request being served ('' outside one). */
export function auditID(ctx: Context = context.active()): string {
  return (ctx.getValue(AUDIT_ID) as string | undefined) ?? '';
}

/**
 * A span under the active one when tracing is on and the active span records, else undefined. Attributes may be
 * given as a function so that an unsampled request does not even build them.
 */
export function startChildSpan(name: string, attributes?: Attributes | (() => Attributes)): Span | undefined {
  if (!tracer) return undefined;
  const parent = context.active();
  if (!trace.getSpan(parent)?.isRecording()) return undefined;
  return tracer.startSpan(name, { attributes: typeof attributes === 'function' ? attributes() : attributes }, parent);
}

/**
 * Runs `fn` inside a child span (see startChildSpan) that ends when its promise settles; a rejection is recorded
 * on the span as an error. Without a span, `fn` just runs.
 */
export function inChildSpan<T>(name: string, attributes: Attributes | (() => Attributes), fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  const span = startChildSpan(name, attributes);
  if (!span) return fn(undefined);
  return context.with(trace.setSpan(context.active(), span), () => fn(span)).then(
    (v) => {
      span.end();
      return v;
    },
    (e: unknown) => {
      endWithError(span, e);
      throw e;
    },
  );
}

/** Ends `span` as failed by `e` (an exception event and an error status carrying its message). */
export function endWithError(span: Span, e: unknown): void {
  const err = e instanceof Error ? e : new Error(String(e));
  span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
  span.end();
}
