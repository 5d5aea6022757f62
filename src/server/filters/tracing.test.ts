import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AlwaysOnSampler, BasicTracerProvider, InMemorySpanExporter, ParentBasedSampler, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { UserInfo } from '../../auth/authenticator/user.ts';
import { ALLOW } from '../../auth/authorizer/interface.ts';
import { activeTracer, setActiveTracer, startChildSpan } from '../../tracing/tracing.ts';
import { newHandlerContext, type Handler } from '../handler.ts';
import { parseRequestInfo } from '../request-info.ts';
import { fakeRequest, fakeResponse } from './testing.ts';
import { isPrivileged, spanName, timedAuthenticator, tracedAuthorizer, withTracing } from './tracing.ts';

const info = (method: string, path: string) => parseRequestInfo(method, path, new URLSearchParams());
const user = (...groups: string[]): UserInfo => ({ name: 'u', groups: [...groups, 'system:authenticated'] });

describe('span names and trust', () => {
  it('names the route with placeholders; the method alone off the resource paths', () => {
    assert.equal(spanName('GET', info('GET', '/apis/events.cluster.io/v1/namespaces/ns/events/e1')), 'GET /apis/events.cluster.io/v1/namespaces/{:namespace}/events/{:name}');
    assert.equal(spanName('GET', info('GET', '/apis/events.cluster.io/v1/events')), 'GET /apis/events.cluster.io/v1/events');
    assert.equal(spanName('POST', info('POST', '/api/v1/namespaces/ns/events')), 'POST /api/v1/namespaces/{:namespace}/events');
    assert.equal(spanName('GET', info('GET', '/api/v1/namespaces/ns/pods/p/log')), 'GET /api/v1/namespaces/{:namespace}/pods/{:name}/log');
    assert.equal(spanName('GET', info('GET', '/apis/events.cluster.io/v1/watch/namespaces/ns/events')), 'GET /apis/events.cluster.io/v1/namespaces/{:namespace}/events');
    assert.equal(spanName('GET', info('GET', '/healthz')), 'GET');
    assert.equal(spanName('GET', undefined), 'GET');
  });

  it('trusts an incoming trace only from system:masters and system:monitoring', () => {
    assert.equal(isPrivileged(user('system:masters')), true);
    assert.equal(isPrivileged(user('system:monitoring')), true);
    assert.equal(isPrivileged(user('dev', 'system:serviceaccounts')), false);
    assert.equal(isPrivileged(null), false);
  });
});

describe('withTracing in process', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('test');
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parentId = '00f067aa0ba902b7';
  before(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    setActiveTracer(tracer);
  });
  after(() => {
    setActiveTracer(undefined);
    context.disable();
    propagation.disable();
  });

  /** Serves one request through withTracing (and the wrapped authenticator and authorizer); returns its spans. */
  async function serve(u: UserInfo | null, headers: Record<string, string>): Promise<ReturnType<typeof exporter.getFinishedSpans>> {
    exporter.reset();
    const req = fakeRequest('GET', '/apis/events.cluster.io/v1/namespaces/ns/events', { traceparent: `00-${traceId}-${parentId}-01`, ...headers });
    const res = fakeResponse();
    const ctx = newHandlerContext();
    ctx.requestInfo = info('GET', '/apis/events.cluster.io/v1/namespaces/ns/events');
    ctx.pathname = ctx.requestInfo.path;
    ctx.user = u;
    const authenticator = timedAuthenticator({ authenticate: () => (u ? { user: u } : { user: null, error: null }) });
    authenticator.authenticate(req);
    const authorizer = tracedAuthorizer({ authorize: () => ALLOW });
    const inner: Handler = async (_req, r) => {
      await authorizer.authorize({ user: u!, verb: 'list', namespace: 'ns', apiGroup: 'events.cluster.io', apiVersion: 'v1', resource: 'events', subresource: '', name: '', path: '', isResourceRequest: true });
      await new Promise((resolve) => setTimeout(resolve, 1));
      // Across the await, the request's span is still the active one.
      startChildSpan('Child')?.end();
      r.statusCode = 200;
      r.end('{}');
    };
    await withTracing(inner, tracer)(req, res, ctx);
    await res.closed;
    return exporter.getFinishedSpans();
  }

  it('system:masters: the server span is the caller span\'s child, and the others its children', async () => {
    const spans = await serve(user('system:masters'), { 'audit-id': 'a-1' });
    const server = spans.find((s) => s.name === 'GET /apis/events.cluster.io/v1/namespaces/{:namespace}/events')!;
    assert.equal(server.spanContext().traceId, traceId);
    assert.equal(server.parentSpanContext?.spanId, parentId);
    assert.deepEqual(server.links, []);
    assert.equal(server.attributes['audit-id'], 'a-1');
    assert.equal(server.attributes['http.response.status_code'], 200);
    for (const name of ['Authenticate', 'Authorize', 'Child']) {
      const s = spans.find((x) => x.name === name);
      assert.ok(s, name);
      assert.equal(s.parentSpanContext?.spanId, server.spanContext().spanId, name);
    }
  });

  it('anyone else: a new root that links to the caller\'s span', async () => {
    const spans = await serve(user('dev'), {});
    const server = spans.find((s) => s.name.startsWith('GET '))!;
    assert.notEqual(server.spanContext().traceId, traceId);
    assert.equal(server.parentSpanContext, undefined);
    assert.deepEqual(server.links.map((l) => [l.context.traceId, l.context.spanId]), [[traceId, parentId]]);
    assert.match(String(server.attributes['audit-id']), /^[0-9a-f-]{36}$/);
    assert.equal(spans.find((s) => s.name === 'Child')?.spanContext().traceId, server.spanContext().traceId);
  });

  it('without a tracer no child span is made', () => {
    setActiveTracer(undefined);
    try {
      assert.equal(activeTracer(), undefined);
      const span = tracer.startSpan('outer');
      context.with(trace.setSpan(context.active(), span), () => assert.equal(startChildSpan('inner'), undefined));
      span.end();
    } finally {
      setActiveTracer(tracer);
    }
  });
});
