// Node 20's --test neither expands globs nor finds .ts files, so collect them here.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['src', 'test'];
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { if (name !== 'node_modules' && name !== 'fixtures') walk(p); }
    else if (name.endsWith('.test.ts')) files.push(p);
  }
}
for (const r of roots) statSync(r, { throwIfNoEntry: false }) && (statSync(r).isDirectory() ? walk(r) : files.push(r));
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const res = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit' });
process.exit(res.status ?? 1);
