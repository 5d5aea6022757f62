/**
 * Making sure the outside tools exist: Debian packages (wrk, h2load from nghttp2-client, etcd-server) through
 * apt-get, and the etcd3 npm client for the etcd baseline. etcd3 is installed with `npm install --no-save` into a
 * cache directory outside the project, so the project's package.json, lock file and node_modules (shared with
 * running tests) stay untouched. Every failure becomes a reason string for BENCHMARKS.md, never an exception.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './proc.ts';

export interface ToolStatus {
  ok: boolean;
  note: string;
}

function which(bin: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

let aptUpdated = false;

/** Installs the Debian package `pkg` when `bin` is not on PATH. */
export function ensureApt(bin: string, pkg: string): ToolStatus {
  if (which(bin)) return { ok: true, note: `${bin}: present` };
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    if (!aptUpdated) {
      execFileSync('apt-get', ['update'], { env, stdio: 'ignore', timeout: 180_000 });
      aptUpdated = true;
    }
    execFileSync('apt-get', ['install', '-y', pkg], { env, stdio: 'ignore', timeout: 300_000 });
  } catch (e) {
    return { ok: false, note: `${bin}: \`apt-get install -y ${pkg}\` failed (${e instanceof Error ? e.message.split('\n')[0] : String(e)})` };
  }
  return which(bin) ? { ok: true, note: `${bin}: installed with apt-get (${pkg})` } : { ok: false, note: `${bin}: not on PATH after installing ${pkg}` };
}

export const ETCD3_VERSION = '1.1.2';

/** A directory from which `require('etcd3')` works, or why there is none. */
export function ensureEtcd3(): { dir?: string; note: string } {
  for (const dir of [ROOT, join(tmpdir(), 'core-apiserver-bench-deps')]) {
    try {
      createRequire(join(dir, 'noop.js')).resolve('etcd3');
      return { dir, note: `etcd3: present (${dir === ROOT ? 'project' : dir})` };
    } catch {
      // not there
    }
  }
  const dir = join(tmpdir(), 'core-apiserver-bench-deps');
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', dir, `etcd3@${ETCD3_VERSION}`], { encoding: 'utf8', timeout: 300_000 });
  if (r.status === 0 && existsSync(join(dir, 'node_modules', 'etcd3'))) return { dir, note: `etcd3@${ETCD3_VERSION}: installed with npm --no-save into ${dir}` };
  return { note: `etcd3: \`npm install --no-save etcd3@${ETCD3_VERSION}\` failed: ${(r.stderr || r.error?.message || '').trim().split('\n').slice(-2).join(' ')}` };
}

/** `etcd --version`'s first line, or undefined. */
export function etcdVersion(): string | undefined {
  const r = spawnSync('etcd', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\n')[0] : undefined;
}
