/**
 * `GET /metrics` and `GET /metrics/slis` (upstream `legacyregistry.Handler()`, `slis.SLIMetricsWithReset`): a
 * registry's metrics in the format the Accept header picks as promhttp picks it (metrics-negotiation.ts): delimited
 * protobuf for Prometheus with native histograms on, the text format 0.0.4 for everyone else, including a scraper
 * that asks for OpenMetrics.
 */
import { newMethodNotAllowed } from '../apimachinery/errors.ts';
import { writeProtoText, writeProtobuf } from '../metrics/protobuf.ts';
import type { Registry } from '../metrics/registry.ts';
import { writeText } from '../metrics/text.ts';
import type { PathHandler } from './api-handler.ts';
import { negotiateExposition, type ExpositionFormat } from './metrics-negotiation.ts';

function render(registry: Registry, format: ExpositionFormat): Buffer {
  const families = registry.collect();
  switch (format) {
    case 'protobuf-delimited': {
      const u8 = writeProtobuf(families);
      return Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
    }
    case 'protobuf-text':
      return Buffer.from(writeProtoText(families, false));
    case 'protobuf-compact':
      return Buffer.from(writeProtoText(families, true));
    case 'text':
      return Buffer.from(writeText(families));
  }
}

export function metricsHandler(registry: Registry, path = '/metrics'): PathHandler {
  return (req, res, pathname) => {
    if (pathname !== path) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') throw newMethodNotAllowed();
    const { format, contentType } = negotiateExposition(req.headers.accept);
    const body = render(registry, format);
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
