import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeConfiguration, validateConfiguration } from './config.ts';
import { newEventRateLimit } from './admission.ts';
import { aggregateText } from '../../../apimachinery/field.ts';

const V = 'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\n';
const errorsOf = (yaml: string) => {
  const errs = validateConfiguration(decodeConfiguration(yaml));
  return errs.length ? aggregateText(errs) : '';
};

describe('EventRateLimit configuration', () => {
  it('decodes both spellings of the group, YAML and JSON', () => {
    assert.deepEqual(decodeConfiguration(`${V}limits:\n- type: Namespace\n  qps: 5\n  burst: 10\n  cacheSize: 20\n`), {
      limits: [{ type: 'Namespace', qps: 5, burst: 10, cacheSize: 20 }],
    });
    const json = JSON.stringify({ apiVersion: 'eventratelimit.admission.cluster.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'Server', qps: 1, burst: 2 }] });
    assert.deepEqual(decodeConfiguration(json), { limits: [{ type: 'Server', qps: 1, burst: 2, cacheSize: 0 }] });
  });

  it('ignores unknown fields, as upstream\'s lenient decoder does', () => {
    assert.deepEqual(decodeConfiguration(`${V}extra: 1\nlimits:\n- type: User\n  qps: 1\n  burst: 1\n  note: x\n`).limits, [{ type: 'User', qps: 1, burst: 1, cacheSize: 0 }]);
  });

  it('refuses documents of another kind or version with the decoder\'s text', () => {
    assert.throws(() => decodeConfiguration('apiVersion: eventratelimit.admission.k8s.io/v1\nkind: Configuration\n'), {
      message: 'no kind "Configuration" is registered for version "eventratelimit.admission.k8s.io/v1" in scheme "pkg/admission/eventratelimit/config.go:31"',
    });
    assert.throws(() => decodeConfiguration('limits: []\n'), { message: `Object 'Kind' is missing in '{"limits":[]}'` });
    assert.throws(() => decodeConfiguration('kind: Configuration\n'), { message: `Object 'apiVersion' is missing in '{"kind":"Configuration"}'` });
    assert.throws(() => decodeConfiguration(''), { message: "Object 'Kind' is missing in ''" });
  });

  it('refuses values of the wrong type with Go\'s json text', () => {
    assert.throws(() => decodeConfiguration(`${V}limits:\n- type: Server\n  qps: "5"\n`), { message: 'json: cannot unmarshal string into Go struct field Limit.limits.qps of type int32' });
    assert.throws(() => decodeConfiguration(`${V}limits:\n- type: Server\n  burst: 1.5\n`), { message: 'json: cannot unmarshal number 1.5 into Go struct field Limit.limits.burst of type int32' });
    assert.throws(() => decodeConfiguration(`${V}limits:\n- type: Server\n  cacheSize: 3000000000\n`), { message: 'json: cannot unmarshal number 3000000000 into Go struct field Limit.limits.cacheSize of type int32' });
    assert.throws(() => decodeConfiguration(`${V}limits: {}\n`), { message: 'json: cannot unmarshal object into Go struct field Configuration.limits of type []v1alpha1.Limit' });
    assert.throws(() => decodeConfiguration(`${V}limits:\n- type: 3\n`), { message: 'json: cannot unmarshal number into Go struct field Limit.limits.type of type v1alpha1.LimitType' });
  });

  it('validates as upstream: limits required, known types, positive qps and burst, cacheSize not negative', () => {
    assert.equal(errorsOf(V), 'limits: Invalid value: null: must not be empty');
    assert.equal(errorsOf(`${V}limits: []\n`), 'limits: Invalid value: []: must not be empty');
    assert.equal(
      errorsOf(`${V}limits:\n- type: Pod\n  qps: 0\n  burst: -1\n  cacheSize: -2\n`),
      '[limits[0].type: Unsupported value: "Pod": supported values: "Server", "Namespace", "User", "SourceAndObject", limits[0].burst: Invalid value: -1: must be positive, limits[0].qps: Invalid value: 0: must be positive, limits[0].cacheSize: Invalid value: -2: must not be negative]',
    );
    assert.equal(errorsOf(`${V}limits:\n- type: Server\n  qps: 1\n  burst: 1\n  cacheSize: -1\n`), '', 'cacheSize is ignored for Server');
    assert.equal(errorsOf(`${V}limits:\n- type: Server\n  qps: 1\n  burst: 1\n- type: User\n  qps: 1\n`), 'limits[1].burst: Invalid value: 0: must be positive');
  });

  it('the plugin without any configuration is refused (it has no default limits)', () => {
    assert.throws(() => newEventRateLimit(undefined), { message: 'limits: Invalid value: null: must not be empty' });
  });
});
