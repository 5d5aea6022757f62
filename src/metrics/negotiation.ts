/**
 * Which exposition /metrics answers with, as promhttp picks it (prometheus/common v0.70 `expfmt.Negotiate`, no
 * OpenMetrics): Accept clauses in goautoneg's order; the first protobuf clause naming the MetricFamily message with a
 * known encoding, or the first `text/plain` of version 0.0.4 or none, decides; anything else (OpenMetrics,
 * `text/plain;version=1.0.0`, `*∕*`, no header) gets the text format. The response's `escaping=` is the last known
 * value seen in the clauses up to the deciding one, `underscores` by default; every name this server exports is a
 * legacy Prometheus name, which no escaping scheme changes, so it only labels the response.
 */
import { parseAccept } from '../util/media-type.ts';

export type ExpositionFormat = 'text' | 'protobuf-delimited' | 'protobuf-text' | 'protobuf-compact';

export interface NegotiatedExposition {
  format: ExpositionFormat;
  contentType: string;
}

const PROTO_TYPE = 'application/vnd.google.protobuf';
const PROTO_MESSAGE = 'io.prometheus.client.MetricFamily';
const ENCODINGS = new Map<string, ExpositionFormat>([['delimited', 'protobuf-delimited'], ['text', 'protobuf-text'], ['compact-text', 'protobuf-compact']]);
const ESCAPINGS = new Set(['allow-utf-8', 'underscores', 'dots', 'values']);

const CONTENT_TYPE: Record<ExpositionFormat, string> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  'protobuf-delimited': `${PROTO_TYPE}; proto=${PROTO_MESSAGE}; encoding=delimited`,
  'protobuf-text': `${PROTO_TYPE}; proto=${PROTO_MESSAGE}; encoding=text`,
  'protobuf-compact': `${PROTO_TYPE}; proto=${PROTO_MESSAGE}; encoding=compact-text`,
};

export function negotiateExposition(accept: string | undefined): NegotiatedExposition {
  let escaping = 'underscores';
  const result = (format: ExpositionFormat) => ({ format, contentType: `${CONTENT_TYPE[format]}; escaping=${escaping}` });
  for (const c of parseAccept(accept ?? '')) {
    const e = c.params.get('escaping');
    if (e !== undefined && ESCAPINGS.has(e)) escaping = e;
    if (c.type === 'application' && c.subType === 'vnd.google.protobuf' && c.params.get('proto') === PROTO_MESSAGE) {
      const format = ENCODINGS.get(c.params.get('encoding') ?? '');
      if (format) return result(format);
    }
    const version = c.params.get('version') ?? '';
    if (c.type === 'text' && c.subType === 'plain' && (version === '0.0.4' || version === '')) return result('text');
  }
  return result('text');
}
