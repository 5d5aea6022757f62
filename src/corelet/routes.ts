/**
 * The corelet's HTTP routes: a table from path to handler, so each endpoint lives in its own file and the server only
 * looks paths up. Every request is counted as kubelet's server counts it (`corelet_http_requests_total`, its duration
 * and the in-flight gauge), labelled with the path's bucket rather than the raw path, so a client cannot grow the
 * label set.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MetricVec, CounterSeries, GaugeSeries, HistogramSeries } from '../metrics/metric.ts';
import { expose } from '../metrics/exposition.ts';
import type { Registry } from '../metrics/registry.ts';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** client_golang's DefBuckets, which kubelet's request duration histogram uses. */
export const DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** kubelet's getMetricMethodBucket: the methods it knows keep their name. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE']);

/** kubelet's long-running requests (streaming ones); the corelet serves none of them yet, so they count as `other`. */
const LONG_RUNNING = new Set(['exec', 'attach', 'portForward', 'debug']);

/** kubelet's getURLRootPath: the first path segment, or `metrics/<x>` under /metrics. */
export function rootPath(path: string): string {
  const parts = path.replace(/^\/+/, '').split('/');
  return parts[0] === 'metrics' && parts.length > 1 && parts[1] !== '' ? `metrics/${parts[1]}` : (parts[0] ?? '');
}

/** kubelet's metric bucket of a path: its root path when the server serves that root, else `other`. */
export function pathBucket(path: string, served: ReadonlySet<string>): string {
  const root = rootPath(path);
  return served.has(root) ? root : 'other';
}

export class HttpMetrics {
  readonly #total: MetricVec<CounterSeries>;
  readonly #duration: MetricVec<HistogramSeries>;
  readonly #inflight: MetricVec<GaugeSeries>;

  constructor(registry: Registry) {
    this.#total = registry.counter('corelet_http_requests_total', 'Number of the http requests received since the server started');
    this.#duration = registry.histogram('corelet_http_requests_duration_seconds', 'Duration in seconds to serve http requests', DEF_BUCKETS);
    this.#inflight = registry.gauge('corelet_http_inflight_requests', 'Number of the inflight http requests');
  }

  /** Counts one request; the returned function ends it. Labels in the catalogue's order: long_running, method, path, server_type. */
  start(method: string, bucket: string, serverType: ServerType = 'readonly'): () => void {
    const labels = [String(LONG_RUNNING.has(bucket)), METHODS.has(method) ? method : 'other', bucket, serverType] as const;
    this.#total.with(...labels).inc();
    const inflight = this.#inflight.with(...labels);
    inflight.inc();
    const began = process.hrtime.bigint();
    return () => {
      inflight.dec();
      this.#duration.with(...labels).observe(Number(process.hrtime.bigint() - began) / 1e9);
    };
  }
}

/** kubelet's server type: `readwrite` for the server behind its auth filter, `readonly` for one without (its read-only port). */
type ServerType = 'readonly' | 'readwrite';

/**
 * Serves a request from the table: `filter` (the auth filter) first, as kubelet's container filters run before any
 * route, then 404 for unknown paths, 405 for other methods than GET (HEAD where the route allows). A filter that
 * answers the request itself returns false.
 */
export async function serveRoute(
  routes: ReadonlyMap<string, RouteHandler>,
  metrics: HttpMetrics | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  filter?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  const served = new Set([...routes.keys()].map(rootPath));
  const done = metrics?.start(req.method ?? '', pathBucket(path, served), filter ? 'readwrite' : 'readonly');
  res.once('close', () => done?.());
  const route = routes.get(path) ?? routes.get(path.replace(/\/+$/, ''));
  try {
    if (filter && !(await filter(req, res))) return;
    if (!route) return sendText(res, 404, '404 page not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, '405 method not allowed\n');
    await route(req, res);
  } catch (e) {
    if (!res.headersSent) sendText(res, 500, `${(e as Error).message}\n`);
    else res.destroy(e as Error);
  }
}

export function sendText(res: ServerResponse, code: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(code, { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

/** A metrics endpoint: the registry's metrics in the exposition the Accept header picks (text, or protobuf). */
export function metricsRoute(registry: Registry): RouteHandler {
  return (req, res) => {
    const { contentType, body } = expose(registry.collect(), req.headers.accept);
    res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
