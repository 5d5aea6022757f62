// Node 20's --test neither expands globs nor finds .ts files, so collect them here.
import { readFileSync, readdirSync, statSync } from 'node:fs';
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
// A pass on another storage backend (CORE_APISERVER_TEST_STORAGE, CI's second pass) runs only the files whose servers
// take their storage from it (test/helpers/server.ts TestServer); the others would run the very same code twice: no
// server (the corelet, the architecture check), in-process memory storage, or servers pinned to etcd already.
const selected = process.env.CORE_APISERVER_TEST_STORAGE
  ? files.filter((f) => {
      const src = readFileSync(f, 'utf8');
      return /\bnew TestServer\(/.test(src) && !/'--storage-backend=etcd3'/.test(src);
    })
  : files;
if (selected.length < files.length) console.log(`# storage pass (${process.env.CORE_APISERVER_TEST_STORAGE}): ${selected.length} of ${files.length} files; not storage-bound: ${files.filter((f) => !selected.includes(f)).join(' ')}`);
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const res = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...selected], { stdio: 'inherit' });
process.exit(res.status ?? 1);
