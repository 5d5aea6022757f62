import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLASSIFIED, flagz, flagzText } from './flagz.ts';
import { formatUptime, goUnixDate, listedPaths, statusz, statuszText, type StatuszSource } from './statusz.ts';
import { DELIMITERS, NOT_PARSEABLE_WARNING, randomDelimiter } from './text.ts';

const source: StatuszSource = {
  component: 'core-apiserver',
  startTime: new Date('2026-03-05T07:08:09.250Z'),
  goVersion: 'node20.1.2',
  binaryVersion: '1.36.0-core.0+0.1.0',
  emulationVersion: '1.36',
  minimumCompatibilityVersion: '1.35',
  paths: () => ['/readyz/sqlite', '/healthz', '/api', '/apis', '/openapi/v3', '/version', '/livez/ping', '/statusz', '/readyz'],
};

test('statusz: every field of the v1beta1 object, paths as sorted first segments without the API trees', () => {
  assert.deepEqual(statusz(source, new Date('2026-03-05T08:09:10.900Z')), {
    kind: 'Statusz',
    apiVersion: 'config.cluster.io/v1beta1',
    metadata: { name: 'core-apiserver' },
    startTime: '2026-03-05T07:08:09Z',
    uptimeSeconds: 3661,
    goVersion: 'node20.1.2',
    binaryVersion: '1.36.0-core.0+0.1.0',
    emulationVersion: '1.36',
    minimumCompatibilityVersion: '1.35',
    paths: ['/healthz', '/livez', '/readyz', '/statusz', '/version'],
  });
  assert.deepEqual(listedPaths(['/', '/.well-known/x', '/openid/v1/jwks', '/metrics/slis', '/metrics']), ['/metrics']);
});

test('statusz text: title, warning, then the lines of spec document 2 with the delimiter given', () => {
  // 9.999 s after the start: whole seconds, truncated as upstream's int64(Seconds()).
  const s = statusz(source, new Date('2026-03-05T07:08:19.249Z'));
  assert.equal(statuszText(s, ':'), `
core-apiserver statusz
${NOT_PARSEABLE_WARNING}

Started: Thu Mar  5 07:08:09 UTC 2026
Up: 0 hr 00 min 09 sec
Go version: node20.1.2
Binary version: 1.36.0-core.0+0.1.0
Emulation version: 1.36
Paths: /healthz /livez /readyz /statusz /version
`);
  assert.match(statuszText(s, '='), /\nUp= 0 hr 00 min 09 sec\n/);
  assert.match(statuszText({ ...s, emulationVersion: '' } as typeof s, ':'), /\nBinary version: [^\n]+\n\nPaths: /, 'unknown emulation version: an empty line');
});

test('Go formats: UnixDate pads the day with a space; uptime in hours, minutes, seconds', () => {
  assert.equal(goUnixDate(new Date('2026-12-25T23:59:01Z')), 'Fri Dec 25 23:59:01 UTC 2026');
  assert.equal(goUnixDate(new Date('2026-01-02T00:00:00Z')), 'Fri Jan  2 00:00:00 UTC 2026');
  assert.equal(formatUptime(0), '0 hr 00 min 00 sec');
  assert.equal(formatUptime(100 * 3600 + 5 * 60 + 7), '100 hr 05 min 07 sec');
});

test('flagz: every flag by name with its value; classified ones redacted in both forms', () => {
  const f = flagz('core-apiserver', [
    { name: 'secure-port', value: '6443', classified: false },
    { name: 'bind-address', value: '127.0.0.1', classified: false },
    { name: 'token', value: 's3cret', classified: true },
  ]);
  assert.deepEqual(f, {
    kind: 'Flagz',
    apiVersion: 'config.cluster.io/v1beta1',
    metadata: { name: 'core-apiserver' },
    flags: { 'bind-address': '127.0.0.1', 'secure-port': '6443', token: CLASSIFIED },
  });
  assert.deepEqual(Object.keys(f.flags), ['bind-address', 'secure-port', 'token']);
  const text = flagzText(f, ' ');
  assert.equal(text, `\ncore-apiserver flagz\n${NOT_PARSEABLE_WARNING}\n\nbind-address  127.0.0.1\nsecure-port  6443\ntoken  CLASSIFIED\n`);
  assert.ok(!text.includes('s3cret'));
});

test('randomDelimiter draws from upstream\'s four', () => {
  assert.deepEqual([0, 0.3, 0.6, 0.99].map((r) => randomDelimiter(() => r)), [...DELIMITERS]);
});
