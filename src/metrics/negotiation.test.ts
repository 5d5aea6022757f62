import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiateExposition } from './negotiation.ts';

const TEXT = 'text/plain; version=0.0.4; charset=utf-8';
const DELIMITED = 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited';

// Accept headers as Prometheus sends them. The 2.42 ones are copied from the installed binary (strings
// /usr/bin/prometheus); the 3.x ones are built as its scrape_protocols weighting builds them (q from 0.6 down,
// escaping on the 1.0.0 text formats, and in later 3.x releases on the protobuf entry too).
const PROM_2_42_DEFAULT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
const PROM_2_42_NATIVE = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
const PROM_3_DEFAULT = 'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';
const PROM_3_NATIVE = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.6,application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1';
const PROM_3_NATIVE_ESCAPED = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=underscores;q=0.6,application/openmetrics-text;version=1.0.0;escaping=underscores;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=underscores;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1';

const negotiated = (accept: string | undefined) => {
  const n = negotiateExposition(accept);
  return `${n.format} | ${n.contentType}`;
};

describe('/metrics content negotiation', () => {
  it('Prometheus 2.42: protobuf when native histograms are on, else text (OpenMetrics is never served)', () => {
    assert.equal(negotiated(PROM_2_42_NATIVE), `protobuf-delimited | ${DELIMITED}; escaping=underscores`);
    assert.equal(negotiated(PROM_2_42_DEFAULT), `text | ${TEXT}; escaping=underscores`);
  });

  it('Prometheus 3: the weighted lists; escaping is the last known value seen up to the deciding clause', () => {
    assert.equal(negotiated(PROM_3_NATIVE), `protobuf-delimited | ${DELIMITED}; escaping=underscores`, 'the allow-utf-8 clauses come after the protobuf one');
    assert.equal(negotiated(PROM_3_NATIVE_ESCAPED), `protobuf-delimited | ${DELIMITED}; escaping=underscores`);
    assert.equal(negotiated(PROM_3_NATIVE_ESCAPED.replace('delimited;escaping=underscores', 'delimited;escaping=allow-utf-8')), `protobuf-delimited | ${DELIMITED}; escaping=allow-utf-8`);
    // OpenMetrics and text 1.0.0 are passed over, but their escaping= still counts.
    assert.equal(negotiated(PROM_3_DEFAULT), `text | ${TEXT}; escaping=allow-utf-8`);
  });

  it('clauses are taken in q order, not header order', () => {
    assert.equal(negotiated(`text/plain;version=0.0.4;q=0.2,application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7`).split(' | ')[0], 'protobuf-delimited');
    assert.equal(negotiated(`application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.2,text/plain;q=0.7`).split(' | ')[0], 'text');
  });

  it('everything else is the text format', () => {
    for (const accept of [
      undefined,
      '',
      '*/*',
      'application/openmetrics-text;version=1.0.0',
      'text/plain;version=1.0.0',
      'application/json',
      // protobuf without the message type, or with an encoding promhttp does not know
      'application/vnd.google.protobuf;encoding=delimited',
      'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily',
      'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=constructor',
      'application/vnd.google.protobuf;proto=io.prometheus.client.Metric;encoding=delimited',
    ]) {
      assert.equal(negotiated(accept), `text | ${TEXT}; escaping=underscores`, String(accept));
    }
  });

  it('text/plain of version 0.0.4 or none decides even before a later protobuf clause of the same q', () => {
    assert.equal(negotiated('text/plain,application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited').split(' | ')[0], 'text');
  });

  it('the protobuf text encodings, and escaping values upstream does not know are ignored', () => {
    assert.equal(negotiated('application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text'), 'protobuf-text | application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=text; escaping=underscores');
    assert.equal(negotiated('application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=compact-text;escaping=dots'), 'protobuf-compact | application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=compact-text; escaping=dots');
    assert.equal(negotiated('text/plain;version=0.0.4;escaping=bogus'), `text | ${TEXT}; escaping=underscores`);
    assert.equal(negotiated('text/plain;version=0.0.4;escaping=values'), `text | ${TEXT}; escaping=values`);
  });
});
