/**
 * `GET /metrics` and `GET /metrics/slis` (upstream `legacyregistry.Handler()`, `slis.SLIMetricsWithReset`): a
 * registry's metrics in the text exposition format 0.0.4, which upstream also answers to a scraper that asks for
 * OpenMetrics or anything it does not speak.
 */
import { newMethodNotAllowed } from '../apimachinery/errors.ts';
import type { Registry } from '../metrics/registry.ts';
import { TEXT_CONTENT_TYPE, writeText } from '../metrics/text.ts';
import type { PathHandler } from './api-handler.ts';

export function metricsHandler(registry: Registry, path = '/metrics'): PathHandler {
  return (req, res, pathname) => {
    if (pathname !== path) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') throw newMethodNotAllowed();
    const body = Buffer.from(writeText(registry.collect()));
    res.writeHead(200, { 'content-type': TEXT_CONTENT_TYPE, 'content-length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
