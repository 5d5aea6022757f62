/**
 * docs/metrics.md lists every core-apiserver and every corelet metric of the catalogue that is not registered: this
 * keeps each list equal to the component's part of the catalogue minus what its sources register (a registration names its metric as a string literal, which the
 * registry resolves against the catalogue at start-up).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOGUE } from '../src/metrics/catalogue.ts';

const ROOT = join(import.meta.dirname, '..');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

function registeredInSource(dirs: readonly string[] = ['src']): { names: Set<string>; nonLiteral: string[] } {
  const names = new Set<string>();
  const nonLiteral: string[] = [];
  for (const f of dirs.flatMap((d) => sources(join(ROOT, d)))) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/\.(counter|gauge|histogram|timingRatioHistogram|collected)\(\s*([^,)]*)/g)) {
      const arg = m[2]!.trim();
      if (/^'[a-z0-9_:]+'$/.test(arg)) names.add(arg.slice(1, -1));
      else nonLiteral.push(`${f}: ${m[0]}`);
    }
    for (const m of text.matchAll(/catalogueMetric\('([a-z0-9_:]+)'\)/g)) names.add(m[1]!);
    // `.summary(` is a common method name (test summaries), so only a literal metric name counts as a registration.
    for (const m of text.matchAll(/\.summary\(\s*'([a-z0-9_:]+)'/g)) names.add(m[1]!);
  }
  return { names, nonLiteral };
}

test('docs/metrics.md lists exactly the catalogue\'s core-apiserver metrics that src/ does not register', () => {
  const { names, nonLiteral } = registeredInSource();
  assert.deepEqual(nonLiteral, [], 'register metrics by literal name, so that this check sees them');
  const doc = readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8');
  const section = /<!-- not-registered:start -->([\s\S]*)<!-- not-registered:end -->/.exec(doc)?.[1] ?? '';
  const listed = new Set([...section.matchAll(/`([a-z0-9_:]+)`/g)].map((m) => m[1]!));
  const ours = [...CATALOGUE.values()].filter((m) => m.components.includes('core-apiserver')).map((m) => m.name);
  const missing = ours.filter((n) => !names.has(n) && !listed.has(n));
  const registeredButListed = [...listed].filter((n) => names.has(n));
  const unknown = [...listed].filter((n) => !CATALOGUE.has(n));
  assert.deepEqual(missing, [], 'not registered and not explained in docs/metrics.md');
  assert.deepEqual(registeredButListed, [], 'registered, yet listed as not registered');
  assert.deepEqual(unknown, [], 'listed but not in the catalogue');
});

test('docs/metrics.md lists exactly the catalogue\'s corelet metrics that the corelet does not register', () => {
  // The corelet's registries are built in src/corelet from the shared helpers of src/metrics (meta metrics).
  const { names, nonLiteral } = registeredInSource(['src/corelet', 'src/metrics']);
  assert.deepEqual(nonLiteral, [], 'register metrics by literal name, so that this check sees them');
  const doc = readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8');
  const section = /<!-- corelet-not-registered:start -->([\s\S]*)<!-- corelet-not-registered:end -->/.exec(doc)?.[1] ?? '';
  const listed = new Set([...section.matchAll(/`([a-z0-9_:]+)`/g)].map((m) => m[1]!));
  // /metrics/probes is the prober's endpoint, kept by its own change.
  const ours = [...CATALOGUE.values()].filter((m) => m.components.includes('corelet') && m.path !== '/metrics/probes').map((m) => m.name);
  const missing = ours.filter((n) => !names.has(n) && !listed.has(n));
  const registeredButListed = [...listed].filter((n) => names.has(n));
  const unknown = [...listed].filter((n) => !CATALOGUE.has(n));
  assert.deepEqual(missing, [], 'not registered and not explained in docs/metrics.md');
  assert.deepEqual(registeredButListed, [], 'registered, yet listed as not registered');
  assert.deepEqual(unknown, [], 'listed but not in the catalogue');
});
