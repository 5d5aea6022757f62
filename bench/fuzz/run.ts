/**
 * `npm run fuzz [-- --requests=N --seed=S --concurrency=C --watches=W --h2-sessions=K --out=DIR --replay=FILE
 *  --rss-bound-mib=M --max-minutes=T --no-deep-yaml --no-issue8 --benchmarks=auto|yes|no]`: the fuzz run of issue 8
 * (bench/fuzz/runner.ts). Writes `<out>/fuzz-result.json`, `<out>/fuzz-summary.md`, `<out>/last-requests.json` and
 * `<out>/failures.json` (default out: .tmp/fuzz), and, for a passing run of at least 100,000 generated requests, the
 * fuzz section of BENCHMARKS.md (between its fuzz markers; `npm run bench` keeps that section). Exits 1 when the run
 * failed.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BENCH_DIR, ROOT } from '../lib/proc.ts';
import { writeMarkedSection, FUZZ_SECTION } from '../lib/report.ts';
import { DEFAULTS, runFuzz, summaryMarkdown, type FuzzOptions } from './runner.ts';

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const num = (name: string, def: number): number => {
  const v = opt(name);
  if (v === undefined) return def;
  const x = Number(v.replace(/_/g, ''));
  if (!Number.isFinite(x) || x < 0) throw new Error(`--${name}: not a number: ${v}`);
  return x;
};

if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(`usage: npm run fuzz -- [options]
  --requests=N        hostile requests to send (default ${DEFAULTS.requests})
  --seed=S            fast-check seed (default ${DEFAULTS.seed})
  --concurrency=C     requests in flight (default ${DEFAULTS.concurrency})
  --h2-sessions=K     HTTP/2 sessions the requests share (default ${DEFAULTS.h2Sessions})
  --watches=W         watches with hostile selectors kept open (default ${DEFAULTS.watches})
  --out=DIR           where the result files go (default ${relative(ROOT, DEFAULTS.outDir)})
  --replay=FILE       resend the requests of FILE (last-requests.json, failures.json) in order, one at a time
  --rss-bound-mib=M   allowed RSS growth after warm-up (default ${DEFAULTS.rssBoundMiB})
  --max-minutes=T     stop (and fail) after T minutes (default ${DEFAULTS.maxMs / 60_000})
  --no-deep-yaml      leave out the deeply nested YAML bodies (default: included)
  --no-issue8         leave out issue 8's deep-YAML burst on one HTTP/2 connection
  --benchmarks=auto|yes|no  write the fuzz section of BENCHMARKS.md (auto: a passing run of >= 100,000 requests)
`);
  process.exit(0);
}

const options: Partial<FuzzOptions> = {
  requests: num('requests', DEFAULTS.requests),
  seed: num('seed', DEFAULTS.seed),
  concurrency: Math.max(1, num('concurrency', DEFAULTS.concurrency)),
  h2Sessions: Math.max(1, num('h2-sessions', DEFAULTS.h2Sessions)),
  watches: num('watches', DEFAULTS.watches),
  rssBoundMiB: num('rss-bound-mib', DEFAULTS.rssBoundMiB),
  maxMs: num('max-minutes', DEFAULTS.maxMs / 60_000) * 60_000,
  deepYaml: !argv.includes('--no-deep-yaml'),
  issue8: !argv.includes('--no-issue8'),
  ...(opt('out') ? { outDir: opt('out')! } : {}),
  ...(opt('replay') ? { replay: opt('replay')! } : {}),
};
const benchmarks = opt('benchmarks') ?? 'auto';

const result = await runFuzz(options);
process.stdout.write(summaryMarkdown(result, 2) + '\n');
const figuresOfRecord = result.passed && !options.replay && (options.requests ?? 0) >= 100_000;
if (benchmarks === 'yes' || (benchmarks === 'auto' && figuresOfRecord)) {
  if (!result.passed) process.stderr.write('not writing BENCHMARKS.md: the run failed\n');
  else {
    const path = `${ROOT}/BENCHMARKS.md`;
    const body = summaryMarkdown({ ...result, files: { result: rel(result.files.result), summary: rel(result.files.summary) } }, 2).replace(/^## Fuzz run: passed/, `## ${FUZZ_SECTION.title}`);
    // The hand-kept notes (limits, findings, how to read the RSS figures) follow the figures.
    writeMarkedSection(path, `${body}\n\n${readFileSync(join(BENCH_DIR, 'fuzz', 'notes.md'), 'utf8')}`);
    process.stderr.write(`wrote the fuzz section of ${path}\n`);
  }
}
process.exit(result.passed ? 0 : 1);

function rel(p: string): string {
  return relative(ROOT, p);
}
