/**
 * The catalogue in code and spec document 3 cannot drift: every table row of the spec is parsed here and must equal
 * its entry in catalogue.ts, and the code lists nothing the spec does not.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CATALOGUE, type CatalogueMetric, type ComponentName, type MetricsPath, type MetricType, catalogueMetric, metricsOf } from './catalogue.ts';

const SPEC = new URL('../../docs/spec/3-metrics-catalogue.md', import.meta.url);
/** Where the project's spec lives beside the repository (absent in a bare clone). */
const SHARED = new URL('../../../shared/spec/3-metrics-catalogue.md', import.meta.url);

const TYPES: Record<string, MetricType> = { G: 'gauge', C: 'counter', H: 'histogram', S: 'summary', X: 'custom', T: 'timingRatioHistogram' };
const COMPONENTS: Record<string, ComponentName[]> = {
  AP: ['core-apiserver'],
  CM: ['core-controller-manager'],
  SC: ['core-scheduler'],
  NA: ['corelet'],
  PX: ['core-proxy'],
  CC: ['cloud-controller-manager'],
  EV: ['kvstore-version-monitor'],
  ALL: ['core-apiserver', 'core-controller-manager', 'core-scheduler', 'corelet', 'core-proxy', 'cloud-controller-manager'],
};
const PATHS: Record<string, MetricsPath> = { '': '/metrics', sli: '/metrics/slis', res: '/metrics/resource', prb: '/metrics/probes' };

/** The spec's rows as catalogue entries, parsed from its markdown tables under the STABLE / BETA / ALPHA headings. */
function parseSpec(text: string): CatalogueMetric[] {
  const out: CatalogueMetric[] = [];
  let level: CatalogueMetric['stability'] | undefined;
  for (const line of text.split('\n')) {
    const heading = /^###\s+(STABLE|BETA|ALPHA)\b/.exec(line);
    if (heading) {
      level = heading[1] as CatalogueMetric['stability'];
      continue;
    }
    if (/^##\s/.test(line)) level = undefined;
    if (!level || !line.startsWith('|') || /^\|(metric\||-)/.test(line)) continue;
    const cells = line.split('|').slice(1, -1);
    assert.equal(cells.length, 4, `a catalogue row has four cells: ${line}`);
    const [nameCell, typeCode, labelCell, compCell] = cells as [string, string, string, string];
    const nm = /^(\S+)(?: \((.+)\))?$/.exec(nameCell);
    assert.ok(nm, `metric cell: ${nameCell}`);
    const [compCode, pathCode = ''] = compCell.split('@') as [string, string?];
    const type = TYPES[typeCode];
    const components = COMPONENTS[compCode];
    const path = PATHS[pathCode];
    assert.ok(type && components && path, `type, component and endpoint codes of ${line}`);
    const [labelNames, constant] = labelCell.split('; constant label ') as [string, string?];
    const e: { -readonly [K in keyof CatalogueMetric]: CatalogueMetric[K] } = {
      name: nm[1]!,
      type,
      labels: labelNames === '-' ? [] : labelNames.split(','),
      stability: level,
      components,
      path,
    };
    if (constant) {
      const [k, v] = constant.split('=') as [string, string];
      e.constLabels = { [k]: v };
    }
    const remark = nm[2];
    const dep = remark ? /^dep (\d+\.\d+\.\d+)(?:, use (\S+))?$/.exec(remark) : null;
    if (dep) {
      e.deprecatedVersion = dep[1]!;
      if (dep[2]) e.replacement = dep[2];
    } else if (remark) e.note = remark;
    out.push(e);
  }
  return out;
}

describe('metrics catalogue', () => {
  const spec = parseSpec(readFileSync(SPEC, 'utf8'));

  it('the repository copy of spec document 3 is the spec (when the spec is beside the repository)', (t) => {
    if (!existsSync(SHARED)) return t.skip('no ../shared/spec here');
    assert.equal(readFileSync(SPEC, 'utf8'), readFileSync(SHARED, 'utf8'));
  });

  it('every row of the spec is an entry with the same type, labels, stability, components, endpoint and deprecation', () => {
    assert.ok(spec.length > 500, `parsed ${spec.length} rows`);
    for (const row of spec) assert.deepEqual({ ...catalogueMetric(row.name) }, row, row.name);
  });

  it('lists nothing the spec does not, and no name twice', () => {
    const names = spec.map((r) => r.name);
    assert.equal(new Set(names).size, names.length, 'the spec names each metric once');
    assert.deepEqual([...CATALOGUE.keys()].sort(), [...names].sort());
  });

  it('names and labels are valid Prometheus names; a replacement is itself in the catalogue', () => {
    for (const e of CATALOGUE.values()) {
      assert.match(e.name, /^[a-zA-Z_:][a-zA-Z0-9_:]*$/);
      for (const l of e.labels) assert.match(l, /^[a-zA-Z_][a-zA-Z0-9_]*$/, `${e.name} label ${l}`);
      if (e.replacement) assert.ok(CATALOGUE.has(e.replacement), `${e.name} → ${e.replacement}`);
    }
  });

  it('answers by component, ALL rows included; an unknown name is refused', () => {
    const ap = metricsOf('core-apiserver').map((e) => e.name);
    assert.ok(ap.includes('apiserver_request_total'));
    assert.ok(ap.includes('cluster_healthcheck'), 'ALL@sli rows belong to every component');
    assert.ok(!ap.includes('scheduler_pending_pods'));
    assert.equal(catalogueMetric('apiserver_storage_objects').replacement, 'apiserver_resource_objects');
    assert.equal(catalogueMetric('cluster_healthcheck').path, '/metrics/slis');
    assert.throws(() => catalogueMetric('apiserver_no_such_metric'), /not in the catalogue/);
  });
});
