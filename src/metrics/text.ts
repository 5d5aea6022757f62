/**
 * The Prometheus text exposition format 0.0.4 (prometheus/common `expfmt`): HELP and TYPE per family, labels sorted
 * by name, series sorted by their labels, histograms as cumulative `_bucket{le}` with `+Inf`, `_sum` and `_count`,
 * summaries (no quantiles) as `_sum` and `_count`, a collected sample with its timestamp in ms,
 * numbers as Go writes them.
 */
import { goFloat } from './go-float.ts';
import { CounterSeries, GaugeSeries, HistogramSeries, SampleSeries, type Series, SummarySeries } from './metric.ts';
import type { Family } from './registry.ts';

const escapeHelp = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeValue = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** Label pairs of one series, sorted by name (the constant labels included). */
function pairs(f: Family, values: readonly string[]): [string, string][] {
  const out: [string, string][] = f.labelNames.map((n, i) => [n, values[i]!]);
  for (const [k, v] of Object.entries(f.constLabels)) out.push([k, v]);
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function labelText(ps: readonly [string, string][], extra?: [string, string]): string {
  const all = extra ? [...ps, extra] : ps;
  return all.length ? `{${all.map(([k, v]) => `${k}="${escapeValue(v)}"`).join(',')}}` : '';
}

function compare(a: readonly [string, string][], b: readonly [string, string][]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]![1];
    const y = b[i]![1];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** A family's series with their label pairs, in exposition order (shared with the protobuf exposition). */
export function sortedSeries(f: Family): { ps: [string, string][]; s: Series }[] {
  return [...f.vec.series()].map((s) => ({ ps: pairs(f, s.values), s: s.series })).sort((a, b) => compare(a.ps, b.ps));
}

export function writeText(families: readonly Family[]): string {
  const out: string[] = [];
  for (const f of families) {
    const series = sortedSeries(f);
    // Go's registry leaves out a family with no series.
    if (!series.length) continue;
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const { ps, s } of series) {
      if (s instanceof HistogramSeries) {
        let cum = 0;
        s.bounds.forEach((b, i) => {
          cum += s.counts[i]!;
          out.push(`${f.name}_bucket${labelText(ps, ['le', goFloat(b)])} ${goFloat(cum)}`);
        });
        out.push(`${f.name}_bucket${labelText(ps, ['le', '+Inf'])} ${goFloat(s.count)}`);
        out.push(`${f.name}_sum${labelText(ps)} ${goFloat(s.sum)}`, `${f.name}_count${labelText(ps)} ${goFloat(s.count)}`);
      } else if (s instanceof SummarySeries) {
        out.push(`${f.name}_sum${labelText(ps)} ${goFloat(s.sum)}`, `${f.name}_count${labelText(ps)} ${goFloat(s.count)}`);
      } else if (s instanceof SampleSeries) {
        out.push(`${f.name}${labelText(ps)} ${goFloat(s.value)}${s.timestampMs === undefined ? '' : ` ${Math.round(s.timestampMs)}`}`);
      } else if (s instanceof CounterSeries || s instanceof GaugeSeries) {
        out.push(`${f.name}${labelText(ps)} ${goFloat(s.value)}`);
      }
    }
  }
  return out.length ? out.join('\n') + '\n' : '';
}
