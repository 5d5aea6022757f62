import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLimits, parseVsize, registerProcessMetrics } from './process.ts';
import { Registry } from './registry.ts';
import { writeText } from './text.ts';

test('parseLimits and parseVsize read /proc as client_golang does', () => {
  const limits = parseLimits(
    'Limit                     Soft Limit           Hard Limit           Units     \n' +
      'Max open files            1024                 1048576              files     \n' +
      'Max address space         unlimited            unlimited            bytes     \n',
  );
  assert.equal(limits.get('Max open files'), 1024);
  assert.equal(limits.get('Max address space'), -1);
  assert.equal(parseVsize('12 (node (x) y) S 1 12 12 0 -1 4194560 1 0 0 0 5 3 0 0 20 0 11 0 100 987654321 5000 rest'), 987654321);
});

test('process and Node runtime metrics: raw (no stability prefix, not counted), with values from this process', () => {
  const r = new Registry({ version: '1.36.0' });
  const stop = registerProcessMetrics(r);
  try {
    const text = writeText(r.collect());
    assert.match(text, /^# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds\.$/m);
    assert.match(text, /^# TYPE process_cpu_seconds_total counter$/m);
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    assert.ok(value('process_resident_memory_bytes') > 10 * 1024 * 1024);
    assert.ok(value('process_open_fds') > 0);
    assert.ok(value('process_max_fds') > 0);
    assert.ok(Math.abs(value('process_start_time_seconds') - (Date.now() / 1000 - process.uptime())) < 5);
    assert.ok(value('nodejs_heap_size_used_bytes') > 0);
    assert.match(text, new RegExp(`^nodejs_version_info\\{major="\\d+",minor="\\d+",patch="\\d+",version="${process.version}"\\} 1$`, 'm'));
    assert.doesNotMatch(text, /registered_metrics_total\{[^}]*\} [1-9]/, 'raw metrics are not counted as registered');
  } finally {
    stop();
  }
});
