/**
 * The request metrics of the REST handlers (upstream `endpoints/metrics`: MonitorRequest around each route):
 * `apiserver_request_total`, `apiserver_request_duration_seconds` and, for watches, `apiserver_longrunning_requests`,
 * with upstream's label values. The series of a label set is looked up once per request (one Map lookup on a joined
 * key); the numbers are plain fields, so recording costs a few hundred nanoseconds.
 */
import { StatusError } from '../apimachinery/errors.ts';
import type { CounterSeries, GaugeSeries, HistogramSeries } from '../metrics/metric.ts';
import type { Registry } from '../metrics/registry.ts';
import type { MaxInflight } from './filters/maxinflight.ts';
import type { ResourceScope } from '../registry/rest/scope.ts';
import type { RequestContext } from './handlers/context.ts';
import type { RequestInfo } from './request-info.ts';
import type { Request, Response } from './http-types.ts';

/** apiserver_request_duration_seconds buckets (reference §8.3). */
const DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** apiserver_request_sli_duration_seconds and field_validation_request_duration_seconds. */
const SLI_BUCKETS = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** apiserver_response_sizes: 1 KB to 1 GB by powers of ten. */
const RESPONSE_SIZE_BUCKETS = [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
/** apiserver_request_body_size_bytes: 50 KB, then every 100 KB (upstream LinearBuckets(50000, 100000, 31)). */
const BODY_SIZE_BUCKETS = Array.from({ length: 31 }, (_, i) => 50_000 + i * 100_000);
/** apiserver_request_filter_duration_seconds. */
const FILTER_BUCKETS = [0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 5, 10, 15, 30];
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
  /** apiserver_request_sli_duration_seconds (no dry_run label; dry-run requests are not observed). */
  sli: HistogramSeries;
  /** Its deprecated twin apiserver_request_slo_duration_seconds (hidden unless shown again). */
  slo: HistogramSeries;
  /** apiserver_response_sizes, for GET and LIST only. */
  sizes: HistogramSeries | undefined;
  byCode: Map<number, CounterSeries>;
  /** field_validation_request_duration_seconds{field_validation=""}, the series of requests that name none. */
  noFieldValidation?: HistogramSeries;
  /** apiserver_request_body_size_bytes of this route's writes (its verb and resource fix the labels). */
  bodySize?: HistogramSeries;
}

/** upstream cleanFieldValidation: the one `fieldValidation` value, `invalid` for several or an unknown one. */
export function reportedFieldValidation(query: URLSearchParams): string {
  const values = query.getAll('fieldValidation');
  if (!values.length) return '';
  if (values.length !== 1 || !FIELD_VALIDATIONS.has(values[0]!)) return 'invalid';
  return values[0]!;
}

const FIELD_VALIDATIONS = new Set(['Ignore', 'Warn', 'Strict']);

/** The `verb` label of apiserver_request_body_size_bytes (upstream's RequestBodyVerb) for a request info verb. */
const BODY_VERBS: Record<string, string> = { create: 'create', update: 'update', patch: 'patch', delete: 'delete', deletecollection: 'delete_collection' };

/** Bytes of a streamed (chunked) response body, noted by the writer; a body with a Content-Length is read from it. */
const streamedBytes = new WeakMap<Response, number>();

export function noteStreamedBytes(res: Response, n: number): void {
  streamedBytes.set(res, n);
}

function responseBytes(res: Response): number {
  const cl = res.getHeader('content-length');
  if (cl !== undefined) return Number(cl);
  return streamedBytes.get(res) ?? 0;
}

/** Filters whose latency upstream tracks (filterlatency.TrackStarted/TrackCompleted) that this chain has. */
export type TrackedFilter = 'authentication' | 'impersonation' | 'authorization';

export class RequestMetrics {
  readonly #total;
  readonly #duration;
  readonly #sli;
  readonly #slo;
  readonly #sizes;
  readonly #longrunning;
  readonly #fieldValidation;
  readonly #bodySizes;
  readonly #terminations;
  readonly #aborts;
  readonly #postTimeout;
  readonly #filterDuration: Record<TrackedFilter, HistogramSeries>;
  readonly #tlsHandshakeErrors: CounterSeries;
  readonly #routes = new Map<string, Route>();
  /** Routes without subresource and dry run: served resource → verb → [resource, namespace, cluster] scope. */
  readonly #plain = new WeakMap<ResourceScope, Map<string, (Route | undefined)[]>>();
  readonly #byFieldValidation = new Map<string, HistogramSeries>();

  constructor(registry: Registry) {
    this.#total = registry.counter('apiserver_request_total', 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    this.#duration = registry.histogram(
      'apiserver_request_duration_seconds',
      'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      DURATION_BUCKETS,
    );
    this.#sli = registry.histogram(
      'apiserver_request_sli_duration_seconds',
      'Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.',
      SLI_BUCKETS,
    );
    this.#slo = registry.histogram(
      'apiserver_request_slo_duration_seconds',
      'Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.',
      SLI_BUCKETS,
    );
    this.#sizes = registry.histogram('apiserver_response_sizes', 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.', RESPONSE_SIZE_BUCKETS);
    this.#longrunning = registry.gauge('apiserver_longrunning_requests', 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.');
    this.#fieldValidation = registry.histogram('field_validation_request_duration_seconds', 'Response latency distribution in seconds for each field validation value', SLI_BUCKETS);
    this.#bodySizes = registry.histogram('apiserver_request_body_size_bytes', 'Apiserver request body size in bytes broken out by resource and verb.', BODY_SIZE_BUCKETS);
    this.#terminations = registry.counter('apiserver_request_terminations_total', 'Number of requests which apiserver terminated in self-defense.');
    this.#aborts = registry.counter('apiserver_request_aborts_total', 'Number of requests which apiserver aborted possibly due to a timeout, for each group, version, verb, resource, subresource and scope');
    this.#postTimeout = registry.counter('apiserver_request_post_timeout_total', 'Tracks the activity of the request handlers after the associated requests have been timed out by the apiserver');
    const filters = registry.histogram('apiserver_request_filter_duration_seconds', 'Request filter latency distribution in seconds, for each filter type', FILTER_BUCKETS);
    this.#filterDuration = { authentication: filters.with('authentication'), impersonation: filters.with('impersonation'), authorization: filters.with('authorization') };
    this.#tlsHandshakeErrors = registry.counter('apiserver_tls_handshake_errors_total', "Number of requests dropped with 'TLS handshake error from' error").with();
  }

  /**
   * Records a REST request around `serve`: the duration from `rctx.receivedAt` (performance.now() when the request
   * arrived) to its end, the code it answered with (a thrown StatusError's code, 500 for anything else thrown), the
   * size of a GET or LIST answer, the request body a write read (`rctx.bodyBytes`, after `serve`), and for a watch its
   * time in flight. Takes the handler and its context rather than a closure: nothing is allocated per request here.
   */
  async around(rctx: RequestContext, serve: (rctx: RequestContext) => Promise<void>): Promise<void> {
    const { info, res } = rctx;
    const scope = reportedScope(info);
    const verb = reportedVerb(rctx.req, info, scope);
    // URLSearchParams.size: most requests have no query at all, and then no dryRun to look for.
    const dryRun = rctx.query.size === 0 ? '' : reportedDryRun(rctx.query);
    let running: GaugeSeries | undefined;
    if (verb === 'WATCH') {
      running = this.#longrunning.with(COMPONENT, info.apiGroup, info.resource, scope, info.subresource, verb, info.apiVersion);
      running.inc();
    }
    const route = dryRun === '' && info.subresource === '' ? this.#plainRoute(rctx.scope, info, scope, verb) : this.#route(dryRun, info.apiGroup, info.resource, scope, info.subresource, verb, info.apiVersion);
    try {
      await serve(rctx);
    } catch (e) {
      running?.dec();
      this.#finish(route, e instanceof StatusError ? e.code : 500, rctx);
      throw e;
    }
    // A watch's handler returns once the stream is set up; the request lasts until the response closes. The chain
    // is not held for it (shutdown and the filters treat a watch as they always have): the close records it.
    if (running && !res.closed) {
      const done = running;
      res.once('close', () => {
        done.dec();
        this.#finish(route, res.statusCode, rctx);
      });
      return;
    }
    running?.dec();
    this.#finish(route, res.statusCode, rctx);
  }

  #finish(route: Route, code: number, rctx: RequestContext): void {
    const { query, res } = rctx;
    // One clock reading for every latency of the request.
    const seconds = (performance.now() - rctx.receivedAt) / 1000;
    this.#record(route, code, seconds, res, route.labels[0] === '');
    // Looked up only when the query names it: most requests share the '' series kept on the route.
    const fvSeries = query.size !== 0 && query.has('fieldValidation') ? this.#fieldValidationSeries(reportedFieldValidation(query)) : (route.noFieldValidation ??= this.#fieldValidationSeries(''));
    fvSeries.observe(seconds);
    const body = rctx.bodyBytes;
    if (body === undefined) return;
    const bodyVerb = BODY_VERBS[rctx.info.verb];
    if (bodyVerb) (route.bodySize ??= this.#bodySizes.with(rctx.info.apiGroup, rctx.info.resource, bodyVerb)).observe(body);
  }

  #fieldValidationSeries(fv: string): HistogramSeries {
    let s = this.#byFieldValidation.get(fv);
    if (!s) this.#byFieldValidation.set(fv, (s = this.#fieldValidation.with(fv)));
    return s;
  }

  /**
   * Records a request to /healthz, /livez or /readyz (upstream instruments these roots as verb GET with the path as
   * the subresource and every other label empty, component included).
   */
  health(res: Response, path: string, startMs: number): void {
    const key = `health ${path}`;
    let r = this.#routes.get(key);
    if (!r) {
      const labels = ['', '', '', '', path, 'GET', ''] as const;
      r = { labels, duration: this.#duration.with('', ...labels), sli: this.#sli.with('', '', '', '', path, 'GET', ''), slo: this.#slo.with('', '', '', '', path, 'GET', ''), sizes: this.#sizes.with('', '', '', '', path, 'GET', ''), byCode: new Map() };
      this.#routes.set(key, r);
    }
    const route = r;
    const done = () => this.#record(route, res.statusCode, (performance.now() - startMs) / 1000, res, true, '');
    if (res.writableFinished) done();
    else res.once('finish', done);
  }

  /**
   * A request the max-in-flight filter refused with 429 (upstream RecordDroppedRequest and RecordRequestTermination):
   * it counts in apiserver_request_total and apiserver_request_terminations_total, with no duration.
   */
  tooManyRequests(method: string, contentType: string | undefined, info: RequestInfo, query: URLSearchParams): void {
    const scope = reportedScope(info);
    const verb = verbOf(method, contentType, info, scope);
    const group = info.isResourceRequest ? info.apiGroup : '';
    const version = info.isResourceRequest ? info.apiVersion : '';
    const resource = info.isResourceRequest ? info.resource : '';
    this.#total.with('429', COMPONENT, reportedDryRun(query), group, resource, scope, info.subresource, verb, version).inc();
    this.terminated(method, contentType, info, 429);
  }

  /** apiserver_request_terminations_total: a request the server ended in self-defense (429, or 504 on timeout). */
  terminated(method: string, contentType: string | undefined, info: RequestInfo, code: number): void {
    const scope = reportedScope(info);
    const verb = verbOf(method, contentType, info, scope);
    if (info.isResourceRequest) this.#terminations.with(String(code), COMPONENT, info.apiGroup, info.resource, scope, info.subresource, verb, info.apiVersion).inc();
    else this.#terminations.with(String(code), COMPONENT, '', '', scope, info.path, verb, '').inc();
  }

  /** apiserver_request_aborts_total: a response the server cut off after it had started (its deadline passed). */
  aborted(method: string, contentType: string | undefined, info: RequestInfo): void {
    const scope = reportedScope(info);
    this.#aborts.with(info.apiGroup, info.resource, scope, info.subresource, verbOf(method, contentType, info, scope), info.apiVersion).inc();
  }

  /** apiserver_request_post_timeout_total: what a handler did once its request had been answered with 504. */
  postTimeout(source: 'timeout-handler' | 'rest-handler', status: 'ok' | 'error' | 'panic' | 'pending'): void {
    this.#postTimeout.with(source, status).inc();
  }

  /** apiserver_request_filter_duration_seconds: the time a filter took before it handed the request on. */
  filterLatency(filter: TrackedFilter, seconds: number): void {
    this.#filterDuration[filter].observe(seconds);
  }

  /** apiserver_tls_handshake_errors_total. */
  tlsHandshakeError(): void {
    this.#tlsHandshakeErrors.inc();
  }

  #record(route: Route, code: number, seconds: number, res: Response, sli: boolean, component = COMPONENT): void {
    let total = route.byCode.get(code);
    if (!total) route.byCode.set(code, (total = this.#total.with(String(code), component, ...route.labels)));
    total.value++;
    route.duration.observe(seconds);
    // No webhooks and no priority-and-fairness queue here: the SLI latency is the whole latency.
    if (sli) {
      route.sli.observe(seconds);
      route.slo.observe(seconds);
    }
    const sizes = route.sizes;
    if (!sizes) return;
    // A thrown error's Status is written after this (by the panic recovery filter): its size is known once sent.
    if (res.headersSent) sizes.observe(responseBytes(res));
    else res.once('finish', () => sizes.observe(responseBytes(res)));
  }

  /**
   * The route of a request without subresource and dry run, nearly all of them: found by the served resource (its
   * group, version and resource), the verb and the scope, with no key string built per request.
   */
  #plainRoute(owner: ResourceScope, info: RequestInfo, scope: string, verb: string): Route {
    let byVerb = this.#plain.get(owner);
    if (!byVerb) this.#plain.set(owner, (byVerb = new Map()));
    let slots = byVerb.get(verb);
    if (!slots) byVerb.set(verb, (slots = [undefined, undefined, undefined]));
    const i = scope === 'resource' ? 0 : scope === 'namespace' ? 1 : 2;
    return (slots[i] ??= this.#route('', info.apiGroup, info.resource, scope, '', verb, info.apiVersion));
  }

  #route(dryRun: string, group: string, resource: string, scope: string, subresource: string, verb: string, version: string): Route {
    const key = `${verb} ${scope} ${group}/${version}/${resource}/${subresource} ${dryRun}`;
    let r = this.#routes.get(key);
    if (!r) {
      const labels = [dryRun, group, resource, scope, subresource, verb, version] as const;
      const read = verb === 'GET' || verb === 'LIST';
      r = {
        labels,
        duration: this.#duration.with(COMPONENT, ...labels),
        sli: this.#sli.with(COMPONENT, group, resource, scope, subresource, verb, version),
        slo: this.#slo.with(COMPONENT, group, resource, scope, subresource, verb, version),
        sizes: read ? this.#sizes.with(COMPONENT, group, resource, scope, subresource, verb, version) : undefined,
        byCode: new Map(),
      };
      this.#routes.set(key, r);
    }
    return r;
  }
}

function verbOf(method: string, contentType: string | undefined, info: RequestInfo, scope: string): string {
  return reportedVerb({ method, headers: contentType === undefined ? {} : { 'content-type': contentType } } as Request, info, scope);
}

/**
 * `apiserver_current_inflight_requests{request_kind}`: as upstream, the most requests the max-in-flight filter counted
 * at once during the last second (a pre-aggregated figure: the instantaneous count is too volatile to sample).
 * Returns the function that stops the once-a-second update.
 */
export function registerInflightGauge(registry: Registry, watermarks: () => { readonly: number; mutating: number }): () => void {
  const g = registry.gauge('apiserver_current_inflight_requests', 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.');
  const readOnly = g.with('readOnly');
  const mutating = g.with('mutating');
  const timer = setInterval(() => {
    const w = watermarks();
    readOnly.set(w.readonly);
    mutating.set(w.mutating);
  }, 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * `apiserver_flowcontrol_read_vs_write_current_requests{phase="executing",request_kind}`: what upstream's max-in-flight
 * filter records, the requests it counts as a fraction of their limit, observed every nanosecond (no queue here, so
 * no `waiting` phase). A kind without a limit is not counted, as upstream has no channel for it.
 */
export function registerReadVsWrite(registry: Registry, limits: MaxInflight): void {
  const vec = registry.timingRatioHistogram(
    'apiserver_flowcontrol_read_vs_write_current_requests',
    'Observations, at the end of every nanosecond, of the number of requests (as a fraction of the relevant limit) waiting or in regular stage of execution',
    [0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1],
  );
  const readOnly = limits.maxReadonly > 0 ? vec.with('executing', 'readOnly') : undefined;
  const mutating = limits.maxMutating > 0 ? vec.with('executing', 'mutating') : undefined;
  readOnly?.setDenominator(limits.maxReadonly);
  mutating?.setDenominator(limits.maxMutating);
  limits.onChange = (kind, n) => (kind === 'readOnly' ? readOnly : mutating)?.set(n);
  registry.onCollect(() => {
    readOnly?.flush();
    mutating?.flush();
  });
}
