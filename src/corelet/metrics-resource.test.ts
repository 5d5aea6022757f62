import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeText } from '../metrics/text.ts';
import { resourceMetrics, type ResourceSummary } from './metrics-resource.ts';

const T = '2026-03-05T07:08:09.250Z';
const MS = Date.parse(T);

describe('/metrics/resource collector', () => {
  it('turns a summary into the STABLE series with the readings\' timestamps; a missing reading leaves its series out', () => {
    const summary: ResourceSummary = {
      node: { cpu: { time: T, usageCoreNanoSeconds: 12_500_000_000 }, memory: { time: T } },
      pods: [
        {
          podRef: { name: 'web-n1', namespace: 'default' },
          cpu: { time: T, usageCoreNanoSeconds: 2_000_000_000 },
          memory: { time: T, workingSetBytes: 4096 },
          containers: [{ name: 'main', startTime: '2026-03-05T07:00:00.500Z', cpu: { time: T, usageCoreNanoSeconds: 1_500_000_000 } }],
        },
      ],
    };
    const out = writeText(resourceMetrics(() => summary).collect());
    assert.ok(out.includes('# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds\n# TYPE node_cpu_usage_seconds_total counter\n'));
    assert.ok(out.includes(`node_cpu_usage_seconds_total 12.5 ${MS}\n`));
    assert.ok(out.includes(`pod_cpu_usage_seconds_total{namespace="default",pod="web-n1"} 2 ${MS}\n`));
    assert.ok(out.includes(`pod_memory_working_set_bytes{namespace="default",pod="web-n1"} 4096 ${MS}\n`));
    assert.ok(out.includes(`container_cpu_usage_seconds_total{container="main",namespace="default",pod="web-n1"} 1.5 ${MS}\n`));
    const started = Date.parse('2026-03-05T07:00:00.500Z');
    assert.ok(out.includes(`container_start_time_seconds{container="main",namespace="default",pod="web-n1"} 1.7726940005e+09 ${started}\n`));
    assert.ok(out.includes('resource_scrape_error 0\n'));
    // No working set reading for the node or the container: no sample, not a 0.
    assert.ok(!out.includes('node_memory_working_set_bytes'));
    assert.ok(!out.includes('container_memory_working_set_bytes'));
  });

  it('series of a pod that went away are dropped at the next scrape; a failed reading is resource_scrape_error 1', () => {
    let summary: ResourceSummary = { node: {}, pods: [{ podRef: { name: 'a', namespace: 'x' }, cpu: { time: T, usageCoreNanoSeconds: 1 }, containers: [] }] };
    let fail = false;
    const r = resourceMetrics(() => {
      if (fail) throw new Error('no /proc');
      return summary;
    });
    assert.match(writeText(r.collect()), /^pod_cpu_usage_seconds_total\{namespace="x",pod="a"\}/m);
    summary = { node: {}, pods: [] };
    assert.ok(!writeText(r.collect()).includes('pod_cpu_usage_seconds_total'));
    fail = true;
    assert.equal(writeText(r.collect()), '# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE resource_scrape_error gauge\nresource_scrape_error 1\n');
  });
});
