import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aggregateText } from '../apimachinery/field.ts';
import { decodeTracingConfiguration, loadTracingConfiguration, validateTracingConfiguration, validateTracingConfigFileFlag } from './tracing.ts';

const HEAD = 'apiVersion: apiserver.config.cluster.io/v1\nkind: TracingConfiguration\n';
const SCHEME = 'in scheme "pkg/server/options/tracing.go:49"';

function withFile(body: string, fn: (path: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'tracing-config-'));
  try {
    const path = join(dir, 'tracing.yaml');
    writeFileSync(path, body);
    fn(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const validation = (c: { endpoint?: string; samplingRatePerMillion?: number }) => aggregateText(validateTracingConfiguration(c));

test('decodes YAML and JSON of the spec version and of upstream\'s two', () => {
  assert.deepEqual(decodeTracingConfiguration(`${HEAD}endpoint: collector:4317\nsamplingRatePerMillion: 100\n`), { endpoint: 'collector:4317', samplingRatePerMillion: 100 });
  assert.deepEqual(decodeTracingConfiguration('{"apiVersion":"apiserver.config.cluster.io/v1beta1","kind":"TracingConfiguration"}'), {});
  assert.deepEqual(decodeTracingConfiguration('apiVersion: apiserver.config.cluster.io/v1alpha1\nkind: TracingConfiguration\nendpoint: null\n'), {});
});

test('wrong or missing kind and version: the decoder\'s texts', () => {
  const fails = (text: string, message: string) => assert.throws(() => decodeTracingConfiguration(text), { message });
  fails('apiVersion: apiserver.config.cluster.io/v1\nkind: Tracing\n', `no kind "Tracing" is registered for version "apiserver.config.cluster.io/v1" ${SCHEME}`);
  fails('apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\n', `no kind "TracingConfiguration" is registered for version "apiserver.config.k8s.io/v1beta1" ${SCHEME}`);
  fails('apiVersion: v1\nkind: TracingConfiguration\n', `no kind "TracingConfiguration" is registered for version "v1" ${SCHEME}`);
  fails('apiVersion: apiserver.config.cluster.io/v1\n', "Object 'Kind' is missing in 'apiVersion: apiserver.config.cluster.io/v1\n'");
  fails('kind: TracingConfiguration\n', "Object 'apiVersion' is missing in 'kind: TracingConfiguration\n'");
});

test('strict decoding: unknown and repeated fields; field types', () => {
  assert.throws(() => decodeTracingConfiguration(`${HEAD}endpoint: a:1\nrate: 5\n`), { message: 'strict decoding error: unknown field "rate"' });
  assert.throws(() => decodeTracingConfiguration(`${HEAD}endpoint: a:1\nendpoint: b:2\n`), {
    message: 'strict decoding error: error converting YAML to JSON: yaml: unmarshal errors:\n  line 4: key "endpoint" already set in map',
  });
  assert.throws(() => decodeTracingConfiguration(`${HEAD}samplingRatePerMillion: lots\n`), {
    message: 'json: cannot unmarshal string into Go struct field TracingConfiguration.samplingRatePerMillion of type int32',
  });
  assert.throws(() => decodeTracingConfiguration(`${HEAD}samplingRatePerMillion: 2147483648\n`), {
    message: 'json: cannot unmarshal number 2147483648 into Go struct field TracingConfiguration.samplingRatePerMillion of type int32',
  });
  assert.throws(() => decodeTracingConfiguration(`${HEAD}endpoint: 4317\n`), {
    message: 'json: cannot unmarshal number 4317 into Go struct field TracingConfiguration.endpoint of type string',
  });
});

test('sampling rate: 0 to one million', () => {
  for (const rate of [0, 1, 1_000_000]) assert.deepEqual(validateTracingConfiguration({ samplingRatePerMillion: rate }), []);
  assert.equal(validation({ samplingRatePerMillion: -1 }), 'samplingRatePerMillion: Invalid value: -1: sampling rate must be positive');
  assert.equal(
    validation({ samplingRatePerMillion: 1_000_001 }),
    'samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million',
  );
});

test('endpoint: a gRPC target of scheme dns (the default), unix or unix-abstract', () => {
  for (const endpoint of ['localhost:4317', '10.0.0.1:4317', 'dns:///collector:4317', 'dns://8.8.8.8/collector:4317', 'unix:///run/otel.sock', 'unix-abstract://otel', '[::1]:4317']) {
    assert.deepEqual(validateTracingConfiguration({ endpoint }), [], endpoint);
  }
  const unsupported = (scheme: string) => `unsupported scheme: ${scheme}.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md`;
  assert.equal(validation({ endpoint: 'http://collector:4317' }), `endpoint: Invalid value: "http://collector:4317": ${unsupported('http')}`);
  assert.equal(validation({ endpoint: 'HTTPS://collector:4317' }), `endpoint: Invalid value: "HTTPS://collector:4317": ${unsupported('https')}`);
  assert.equal(validation({ endpoint: '//collector:4317' }), `endpoint: Invalid value: "//collector:4317": ${unsupported('')}`);
  assert.equal(validation({ endpoint: 'collector:otlp' }), 'endpoint: Invalid value: "dns://collector:otlp": parse "dns://collector:otlp": invalid port ":otlp" after host');
  assert.equal(validation({ endpoint: '://x' }), 'endpoint: Invalid value: "://x": parse "://x": missing protocol scheme');
  assert.equal(
    validation({ endpoint: 'http://a:1', samplingRatePerMillion: -5 }),
    `[samplingRatePerMillion: Invalid value: -5: sampling rate must be positive, endpoint: Invalid value: "http://a:1": ${unsupported('http')}]`,
  );
});

test('loading: the flag check, then read, decode and validate errors wrapped as kube-apiserver reports them', () => {
  assert.equal(validateTracingConfigFileFlag(''), undefined);
  assert.equal(validateTracingConfigFileFlag('/no/such/tracing.yaml'), 'tracing-config-file /no/such/tracing.yaml does not exist');
  withFile('', (path) => assert.throws(() => loadTracingConfiguration(path), { message: 'failed to read tracing config: tracing config file was empty' }));
  withFile('  \n', (path) => assert.throws(() => loadTracingConfiguration(path), { message: 'failed to read tracing config: tracing config file was empty' }));
  withFile(`${HEAD}samplingRatePerMillion: -1\n`, (path) =>
    assert.throws(() => loadTracingConfiguration(path), { message: 'failed to validate tracing configuration: samplingRatePerMillion: Invalid value: -1: sampling rate must be positive' }),
  );
  withFile('kind: [', (path) => assert.throws(() => loadTracingConfiguration(path), { message: /^failed to read tracing config: unable to decode tracing configuration data: error converting YAML to JSON: yaml: line \d+: / }));
  withFile(`${HEAD}endpoint: dns:///otel:4317\nsamplingRatePerMillion: 10\n`, (path) => assert.deepEqual(loadTracingConfiguration(path), { endpoint: 'dns:///otel:4317', samplingRatePerMillion: 10 }));
  assert.throws(() => loadTracingConfiguration('/no/such/tracing.yaml'), {
    message: /^failed to read tracing config: unable to read tracing configuration from "\/no\/such\/tracing.yaml": ENOENT/,
  });
});
