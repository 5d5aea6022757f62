import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BINARY_VERSION, EMULATION_VERSION, MIN_COMPATIBILITY_VERSION, binaryVersion, majorMinor, readGitCommit, versionInfo, versionLine,
} from './version.ts';

test('versionInfo has the /version fields (upstream order) of a 1.36 server emulating 1.36, compatible with 1.35', () => {
  assert.deepEqual(Object.keys(versionInfo), ['major', 'minor', 'emulationMajor', 'emulationMinor', 'minCompatibilityMajor',
    'minCompatibilityMinor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']);
  assert.equal(versionInfo.major, '1');
  assert.equal(versionInfo.minor, '36');
  assert.equal(versionInfo.emulationMajor, '1');
  assert.equal(versionInfo.emulationMinor, '36');
  assert.equal(versionInfo.minCompatibilityMajor, '1');
  assert.equal(versionInfo.minCompatibilityMinor, '35');
  assert.match(versionInfo.gitVersion, /^v1\.36\.0-core\.0\+\d+\.\d+\.\d+/);
  assert.equal(binaryVersion(), versionInfo.gitVersion.slice(1));
  assert.deepEqual([BINARY_VERSION, EMULATION_VERSION, MIN_COMPATIBILITY_VERSION].map(majorMinor), ['1.36', '1.36', '1.35']);
  assert.equal(versionInfo.compiler, 'node');
  assert.equal(versionInfo.goVersion, `node${process.versions.node}`);
  assert.match(versionInfo.platform, /^[a-z0-9]+\/[a-z0-9]+$/);
  assert.equal(versionInfo.buildDate, '1970-01-01T00:00:00Z');
  assert.equal(versionLine(), `core-apiserver ${versionInfo.gitVersion}`);
});

test('gitCommit is HEAD of this checkout', () => {
  let head = '';
  try {
    head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: new URL('..', import.meta.url), encoding: 'utf8' }).trim();
  } catch {
    // not a checkout: readGitCommit must then be ''
  }
  assert.equal(versionInfo.gitCommit, head);
});

test('readGitCommit follows refs, packed refs, detached HEAD and .git files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gitver-'));
  try {
    const sha = 'a'.repeat(40);
    assert.equal(readGitCommit(dir), '');
    mkdirSync(join(dir, 'real', 'refs', 'heads'), { recursive: true });
    writeFileSync(join(dir, '.git'), 'gitdir: real\n');
    writeFileSync(join(dir, 'real', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(dir, 'real', 'packed-refs'), `# pack-refs\n${sha} refs/heads/main\n`);
    assert.equal(readGitCommit(dir), sha);
    writeFileSync(join(dir, 'real', 'refs', 'heads', 'main'), `${'b'.repeat(40)}\n`);
    assert.equal(readGitCommit(dir), 'b'.repeat(40));
    writeFileSync(join(dir, 'real', 'HEAD'), `${'c'.repeat(40)}\n`);
    assert.equal(readGitCommit(dir), 'c'.repeat(40));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
