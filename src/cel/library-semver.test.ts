import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileClaimsExpression, evaluateClaims } from './authentication.ts';
import { compareSemver, normalizeAndParseSemver, parseSemver } from './library-semver.ts';

function run(expression: string, claims: Record<string, unknown> = { v: '1.2.3-rc.1+build.5' }): unknown {
  const r = compileClaimsExpression(expression, 'any');
  assert.equal(r.error, undefined, `${expression}: ${r.error}`);
  return evaluateClaims(r.compiled!, claims);
}

test('semver in claim expressions: parse, parts, order, validity (as upstream\'s library, version 1)', () => {
  assert.equal(run('semver(claims.v).major()'), 1n);
  assert.equal(run('semver(claims.v).minor()'), 2n);
  assert.equal(run('semver(claims.v).patch()'), 3n);
  assert.equal(run('semver(claims.v).isLessThan(semver("1.2.3"))'), true, 'a pre-release sorts before its release');
  assert.equal(run('semver("1.10.0").isGreaterThan(semver("1.9.9"))'), true);
  assert.equal(run('semver("1.2.3+a").compareTo(semver("1.2.3+b"))'), 0n, 'build metadata does not order');
  assert.equal(run('isSemver("1.2")'), false);
  assert.equal(run('isSemver("v1.2", true)'), true);
  assert.equal(run('semver("v01.02", true).minor()'), 2n);
  assert.equal(run('isSemver("v1.2", false)'), false);
  assert.throws(() => run('semver("1.2")'), /No Major\.Minor\.Patch elements found/);
  assert.throws(() => run('semver("1.02.3")'), /Minor number must not contain leading zeroes "02"/);
});

test('blang/semver parse errors and pre-release order', () => {
  assert.throws(() => parseSemver(''), { message: 'Version string empty' });
  assert.throws(() => parseSemver('a.1.1'), { message: 'Invalid character(s) found in major number "a"' });
  assert.throws(() => parseSemver('1.1.01'), { message: 'Patch number must not contain leading zeroes "01"' });
  assert.throws(() => parseSemver('1.1.1-'), { message: 'Prerelease is empty' });
  assert.throws(() => parseSemver('1.1.1-01'), { message: 'Numeric PreRelease version must not contain leading zeroes "01"' });
  assert.throws(() => parseSemver('1.1.1-a_b'), { message: 'Invalid character(s) found in prerelease "a_b"' });
  assert.throws(() => parseSemver('1.1.1+'), { message: 'Build meta data is empty' });
  assert.throws(() => parseSemver('v1.1.1'), { message: 'Invalid character(s) found in major number "v1"' });
  assert.throws(() => normalizeAndParseSemver('1.2-rc'), { message: 'short version cannot contain PreRelease/Build meta data' });
  // SemVer 2.0's example order.
  const order = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0'].map(parseSemver);
  for (let i = 1; i < order.length; i++) {
    assert.equal(compareSemver(order[i - 1]!, order[i]!), -1, `${i}`);
    assert.equal(compareSemver(order[i]!, order[i - 1]!), 1, `${i}`);
  }
});
