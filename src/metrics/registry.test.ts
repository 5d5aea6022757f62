import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry, isHiddenIn, validateDisabledMetrics, validateShowHiddenMetricsForVersion } from './registry.ts';
import { writeText } from './text.ts';

const text = (r: Registry) => writeText(r.collect());

describe('metrics registry', () => {
  it('a summary (no objectives, as upstream declares them) is written as _sum and _count', () => {
    const r = new Registry({ version: '1.36.0' });
    const s = r.summary('apiserver_admission_step_admission_duration_seconds_summary', 'Admission sub-step latency summary in seconds, broken out for each operation and API resource and step type (validate or admit).');
    const one = s.with('CREATE', 'false', 'validate');
    one.observe(0.25);
    one.observe(0.5);
    const out = text(r);
    assert.match(out, /^# TYPE apiserver_admission_step_admission_duration_seconds_summary summary$/m);
    assert.ok(out.includes('apiserver_admission_step_admission_duration_seconds_summary_sum{operation="CREATE",rejected="false",type="validate"} 0.75\n'));
    assert.ok(out.includes('apiserver_admission_step_admission_duration_seconds_summary_count{operation="CREATE",rejected="false",type="validate"} 2\n'));
    assert.ok(!out.includes('quantile='));
  });

  it('creates metrics from the catalogue: HELP carries the stability, TYPE the catalogue type; the exposition is Go\'s', () => {
    const r = new Registry({ version: '1.36.0' });
    const total = r.counter('apiserver_request_total', 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    total.with('201', 'apiserver', '', 'events.cluster.io', 'events', 'resource', '', 'POST', 'v1').inc();
    total.with('200', 'apiserver', '', 'events.cluster.io', 'events', 'namespace', '', 'LIST', 'v1').inc(2);
    const sizes = r.histogram('apiserver_response_sizes', 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.', [1e3, 1e4, 1e5, 1e6]);
    const s = sizes.with('apiserver', '', 'events', 'namespace', '', 'LIST', 'v1');
    s.observe(500);
    s.observe(2_000_000);
    const out = text(r);
    assert.match(out, /^# HELP apiserver_request_total \[STABLE\] Counter of apiserver requests/m);
    assert.match(out, /^# TYPE apiserver_request_total counter$/m);
    assert.ok(out.includes('apiserver_request_total{code="200",component="apiserver",dry_run="",group="events.cluster.io",resource="events",scope="namespace",subresource="",verb="LIST",version="v1"} 2\n'));
    assert.ok(out.indexOf('code="200"') < out.indexOf('code="201"'), 'series sorted by labels');
    assert.ok(out.includes('apiserver_response_sizes_bucket{component="apiserver",group="",resource="events",scope="namespace",subresource="",verb="LIST",version="v1",le="1e+06"} 1\n'));
    assert.ok(out.includes('le="+Inf"} 2\n'));
    assert.ok(out.includes('apiserver_response_sizes_sum{component="apiserver",group="",resource="events",scope="namespace",subresource="",verb="LIST",version="v1"} 2.0005e+06\n'));
    assert.ok(out.indexOf('# HELP apiserver_request_total') < out.indexOf('# HELP apiserver_response_sizes'), 'families sorted by name');
    assert.match(out, /^registered_metrics_total\{deprecated_version="",stability_level="STABLE"\} 2$/m);
    assert.match(out, /^# HELP registered_metrics_total \[BETA\] The count of registered metrics broken by stability level and deprecation version\.$/m);
  });

  it('a name outside the catalogue, the wrong type, a second registration or the wrong label count is refused', () => {
    const r = new Registry({ version: '1.36.0' });
    assert.throws(() => r.counter('apiserver_made_up_total', 'x'), /not in the catalogue/);
    assert.throws(() => r.gauge('apiserver_request_total', 'x'), /is a counter in the catalogue/);
    const c = r.counter('apiserver_request_total', 'x');
    assert.throws(() => r.counter('apiserver_request_total', 'x'), /registered twice/);
    assert.throws(() => c.with('200'), /expected 9 label values/);
    assert.throws(() => r.gauge('cluster_healthcheck', 'x'), /served on \/metrics\/slis, not \/metrics/);
    const slis = new Registry({ version: '1.36.0', path: '/metrics/slis' });
    assert.throws(() => slis.counter('apiserver_request_total', 'x'), /served on \/metrics, not \/metrics\/slis/);
    slis.gauge('cluster_healthcheck', 'x').with('ping', 'readyz').set(1);
    assert.doesNotMatch(text(slis), /registered_metrics_total/, 'the meta counters belong to /metrics');
  });

  it('deprecated metrics say so and hide by the release rules; --show-hidden-metrics-for-version brings them back', () => {
    assert.equal(isHiddenIn('1.36.0', '1.34.0', 'STABLE'), false);
    assert.equal(isHiddenIn('1.37.0', '1.34.0', 'STABLE'), true);
    assert.equal(isHiddenIn('1.37.0-alpha.0', '1.34.0', 'STABLE'), false, 'the alpha.0 build of the hiding release still shows');
    assert.equal(isHiddenIn('1.31.0', '1.30.0', 'BETA'), true);
    assert.equal(isHiddenIn('1.30.0', '1.30.0', 'ALPHA'), true, 'ALPHA hides in its deprecation release');

    const shown = new Registry({ version: '1.36.0' });
    shown.gauge('apiserver_storage_objects', 'Number of stored objects at the time of last check split by kind.').with('events.events.cluster.io').set(3);
    assert.match(text(shown), /^# HELP apiserver_storage_objects \[STABLE\] \(Deprecated since 1\.34\.0\) Number of stored objects/m);
    assert.match(text(shown), /^registered_metrics_total\{deprecated_version="1\.34\.0",stability_level="STABLE"\} 1$/m);

    const hidden = new Registry({ version: '1.36.0' });
    const slo = hidden.histogram('apiserver_request_slo_duration_seconds', 'x', [1]);
    slo.with('apiserver', '', 'events', 'namespace', '', 'LIST', 'v1').observe(0.5);
    assert.equal(slo.enabled, false);
    assert.doesNotMatch(text(hidden), /apiserver_request_slo_duration_seconds/);
    assert.match(text(hidden), /^hidden_metrics_total 1$/m);

    const again = new Registry({ version: '1.36.0', showHiddenMetricsForVersion: '1.35' });
    again.histogram('apiserver_request_slo_duration_seconds', 'x', [1]).with('apiserver', '', 'events', 'namespace', '', 'LIST', 'v1').observe(0.5);
    assert.match(text(again), /^apiserver_request_slo_duration_seconds_count\{.*\} 1$/m);
  });

  it('--show-hidden-metrics-for-version takes only the previous minor, with upstream\'s error', () => {
    assert.equal(validateShowHiddenMetricsForVersion('1.35', '1.36.0'), undefined);
    assert.equal(validateShowHiddenMetricsForVersion('', '1.36.0'), undefined);
    assert.equal(
      validateShowHiddenMetricsForVersion('1.30', '1.36.0'),
      `metrics.showHiddenMetricsForVersion: Invalid value: "1.30": must be omitted or have the value '1.35'; only the previous minor version is allowed`,
    );
  });

  it('--disabled-metrics hides a metric even when hidden ones are shown, and is counted once per name', () => {
    assert.equal(validateDisabledMetrics(['apiserver_request_total']), undefined);
    assert.equal(
      validateDisabledMetrics(['apiserver_request_total', 'bad-name']),
      'metrics.disabledMetrics: Invalid value: []string{"apiserver_request_total", "bad-name"}: must be fully qualified metric names matching "^[a-zA-Z_:][a-zA-Z0-9_:]*$", got "bad-name"',
    );
    const r = new Registry({ version: '1.36.0', disabledMetrics: ['apiserver_request_total', 'apiserver_request_slo_duration_seconds'], showHiddenMetricsForVersion: '1.35' });
    r.counter('apiserver_request_total', 'x').with('200', 'apiserver', '', '', 'events', 'namespace', '', 'LIST', 'v1').inc();
    r.histogram('apiserver_request_slo_duration_seconds', 'x', [1]).with('apiserver', '', 'events', 'namespace', '', 'LIST', 'v1').observe(1);
    const out = text(r);
    assert.doesNotMatch(out, /^apiserver_request/m);
    assert.match(out, /^disabled_metrics_total 2$/m);
    assert.match(out, /^hidden_metrics_total 2$/m);
  });

  it('--allow-metric-labels lets listed values through and reports the rest as "unexpected"', () => {
    const r = new Registry({ version: '1.36.0', allowMetricLabels: new Map([['apiserver_request_total', new Map([['code', new Set(['200'])]])]]) });
    const c = r.counter('apiserver_request_total', 'x');
    c.with('200', 'apiserver', '', '', 'events', 'namespace', '', 'LIST', 'v1').inc();
    c.with('418', 'apiserver', '', '', 'events', 'namespace', '', 'LIST', 'v1').inc();
    const out = text(r);
    assert.match(out, /code="200"/);
    assert.match(out, /code="unexpected"/);
    assert.doesNotMatch(out, /code="418"/);
  });

  it('HELP and label values are escaped; constant labels from the catalogue are written', () => {
    const r = new Registry({ version: '1.36.0' });
    r.gauge('apiserver_current_inflight_requests', 'a \\ b\nc').with('read"only').set(1);
    r.histogram('apiserver_flowcontrol_priority_level_seat_utilization', 'x', [0.5, 1]).with('exempt').observe(0.25);
    const out = text(r);
    assert.match(out, /^# HELP apiserver_current_inflight_requests \[STABLE\] a \\\\ b\\nc$/m);
    assert.match(out, /^apiserver_current_inflight_requests\{request_kind="read\\"only"\} 1$/m);
    assert.match(out, /^apiserver_flowcontrol_priority_level_seat_utilization_bucket\{phase="executing",priority_level="exempt",le="0.5"\} 1$/m);
  });
});
