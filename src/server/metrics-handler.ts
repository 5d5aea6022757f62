/**
 * `GET /metrics` and `GET /metrics/slis` (upstream `legacyregistry.Handler()`, `slis.SLIMetricsWithReset`): a
 * registry's metrics in the format the Accept header picks as promhttp picks it (metrics/exposition.ts): delimited
 * protobuf for Prometheus with native histograms on, the text format 0.0.4 for everyone else, including a scraper
 * that asks for OpenMetrics.
 */
import { newMethodNotAllowed } from '../apimachinery/errors.ts';
import { expose } from '../metrics/exposition.ts';
import type { Registry } from '../metrics/registry.ts';
import type { PathHandler } from './api-handler.ts';

export function metricsHandler(registry: Registry, path = '/metrics'): PathHandler {
  return (req, res, pathname) => {
    if (pathname !== path) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') throw newMethodNotAllowed();
    const { contentType, body } = expose(registry.collect(), req.headers.accept);
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
