/**
 * The request metrics of the REST handlers (upstream `endpoints/metrics`: MonitorRequest around each route):
 * `apiserver_request_total`, `apiserver_request_duration_seconds` and, for watches, `apiserver_longrunning_requests`,
 * with upstream's label values. The series of a label set is looked up once per request (one Map lookup on a joined
 * key); the numbers are plain fields, so recording costs a few hundred nanoseconds.
 */
import { StatusError } from '../apimachinery/errors.ts';
import type { CounterSeries, GaugeSeries, HistogramSeries } from '../metrics/metric.ts';
import type { Registry } from '../metrics/registry.ts';
import type { RequestInfo } from './request-info.ts';
import type { Request, Response } from './http-types.ts';

/** apiserver_request_duration_seconds buckets (reference §8.3). */
const DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const APPLY_PATCH = 'application/apply-patch+yaml';
const COMPONENT = 'apiserver';

/**
 * The reported verb (upstream CanonicalVerb + cleanVerb): from the HTTP method, GET as LIST on a collection, WATCH for
 * watches (WATCHLIST included), APPLY for a server-side apply PATCH; deletecollection is a DELETE.
 */
export function reportedVerb(req: Request, info: RequestInfo, scope: string): string {
  if (info.verb === 'watch') return 'WATCH';
  const method = (req.method ?? 'GET').toUpperCase();
  if (method === 'GET' || method === 'HEAD') return scope !== 'resource' && scope !== '' ? 'LIST' : 'GET';
  if (method === 'PATCH' && (req.headers['content-type'] ?? '').split(';')[0]!.trim() === APPLY_PATCH) return 'APPLY';
  return method;
}

/** upstream CleanScope: `resource` for a named object or a create, `namespace`, `cluster`, or '' (non-resource). */
export function reportedScope(info: RequestInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  return info.isResourceRequest ? 'cluster' : '';
}

/** upstream cleanDryRun: the distinct `dryRun` values sorted and joined by `,`; `invalid` for a value other than All. */
export function reportedDryRun(query: URLSearchParams): string {
  const values = query.getAll('dryRun');
  if (!values.length) return '';
  if (values.some((v) => v !== 'All')) return 'invalid';
  return 'All';
}

/** The series of one label set but the code, found with one lookup per request. */
interface Route {
  labels: readonly [string, string, string, string, string, string, string];
  duration: HistogramSeries;
  byCode: Map<number, CounterSeries>;
}

export class RequestMetrics {
  readonly #total;
  readonly #duration;
  readonly #longrunning;
  readonly #routes = new Map<string, Route>();

  constructor(registry: Registry) {
    this.#total = registry.counter('apiserver_request_total', 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    this.#duration = registry.histogram(
      'apiserver_request_duration_seconds',
      'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      DURATION_BUCKETS,
    );
    this.#longrunning = registry.gauge('apiserver_longrunning_requests', 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.');
  }

  /**
   * Records a REST request around `serve`: the duration from `startMs` (performance.now() when the request entered
   * the handler) to its end, the code it answered with (a thrown StatusError's code, 500 for anything else thrown),
   * and for a watch its time in flight.
   */
  async around(req: Request, res: Response, info: RequestInfo, query: URLSearchParams, startMs: number, serve: () => Promise<void>): Promise<void> {
    const scope = reportedScope(info);
    const verb = reportedVerb(req, info, scope);
    const dryRun = reportedDryRun(query);
    let running: GaugeSeries | undefined;
    if (verb === 'WATCH') {
      running = this.#longrunning.with(COMPONENT, info.apiGroup, info.resource, scope, info.subresource, verb, info.apiVersion);
      running.inc();
    }
    let code = 0;
    const route = this.#route(dryRun, info.apiGroup, info.resource, scope, info.subresource, verb, info.apiVersion);
    const record = () => {
      if (code === 0) code = res.statusCode;
      let total = route.byCode.get(code);
      if (!total) route.byCode.set(code, (total = this.#total.with(String(code), COMPONENT, ...route.labels)));
      total.inc();
      route.duration.observe((performance.now() - startMs) / 1000);
    };
    try {
      await serve();
    } catch (e) {
      code = e instanceof StatusError ? e.code : 500;
      running?.dec();
      record();
      throw e;
    }
    // A watch's handler returns once the stream is set up; the request lasts until the response closes. The chain
    // is not held for it (shutdown and the filters treat a watch as they always have): the close records it.
    if (running && !res.closed) {
      const done = running;
      res.once('close', () => {
        done.dec();
        record();
      });
      return;
    }
    running?.dec();
    record();
  }

  #route(dryRun: string, group: string, resource: string, scope: string, subresource: string, verb: string, version: string): Route {
    const key = `${verb} ${scope} ${group}/${version}/${resource}/${subresource} ${dryRun}`;
    let r = this.#routes.get(key);
    if (!r) {
      const labels = [dryRun, group, resource, scope, subresource, verb, version] as const;
      r = { labels, duration: this.#duration.with(COMPONENT, ...labels), byCode: new Map() };
      this.#routes.set(key, r);
    }
    return r;
  }
}

/**
 * `apiserver_current_inflight_requests{request_kind}`: the requests the max-in-flight filter counts now, read at
 * scrape time (upstream samples its watermarks; the counts themselves are what a scrape sees here).
 */
export function registerInflightGauge(registry: Registry, counts: () => { readonly: number; mutating: number }): void {
  const g = registry.gauge('apiserver_current_inflight_requests', 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.');
  const readOnly = g.with('readOnly');
  const mutating = g.with('mutating');
  registry.onCollect(() => {
    const c = counts();
    readOnly.set(c.readonly);
    mutating.set(c.mutating);
  });
}
