import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { formatLine, log } from './log.ts';

const PID = String(process.pid).padStart(7);

function capture(fn: () => void): string[] {
  const chunks: string[] = [];
  log.setOutput({ write: (s: string) => chunks.push(s) });
  try {
    fn();
    log.flush();
  } finally {
    log.setOutput(2);
    log.setVerbosity(0);
  }
  return chunks.join('').split('\n').slice(0, -1);
}

test('formatLine has the klog header shape', () => {
  const micros = new Date(2024, 10, 22, 3, 4, 5).getTime() * 1000 + 123456;
  assert.equal(formatLine('I', micros, 'server.ts:12', 'Message', { key: 'value', key2: 3 }),
    `I1122 03:04:05.123456 ${PID} server.ts:12] "Message" key="value" key2=3\n`);
  const early = new Date(2024, 0, 2, 13, 0, 0).getTime() * 1000 + 7;
  assert.equal(formatLine('E', early, 'x.ts:1', 'm'), `E0102 13:00:00.000007 ${PID} x.ts:1] "m"\n`);
});

test('values are formatted like klog text', () => {
  const micros = Date.now() * 1000;
  const line = formatLine('I', micros, 's', 'Msg "q"\n', {
    s: 'a"b', n: 1.5, b: true, nil: null, undef: undefined, err: new Error('boom'), obj: { a: [1, 'x'] },
    map: new Map([['k', 1]]), date: new Date(0), stringer: { toString: () => 'custom' }, ctl: '\x1b',
  });
  assert.ok(line.endsWith(
    '] "Msg \\"q\\"\\n" s="a\\"b" n=1.5 b=true nil=<nil> undef=<nil> err="boom" obj={"a":[1,"x"]} map={"k":1} ' +
    'date="1970-01-01T00:00:00.000Z" stringer="custom" ctl="\\x1b"\n'), line);
  assert.ok(formatLine('I', micros, 's', 'm', { text: 'one\ntwo\n' }).endsWith('] "m" text=<\n\tone\n\ttwo\n >\n'));
});

test('info, warning, error carry severity and the caller\'s file:line', () => {
  const lines = capture(() => {
    log.info('started', { port: 6443 });
    log.warning('slow', { ms: 12 });
    log.error('failed', { err: new Error('x') });
  });
  assert.equal(lines.length, 3);
  assert.match(lines[0]!, /^I\d{4} \d\d:\d\d:\d\d\.\d{6} {1,7}\d+ log\.test\.ts:\d+\] "started" port=6443$/);
  assert.match(lines[1]!, /^W\d{4} .* log\.test\.ts:\d+\] "slow" ms=12$/);
  assert.match(lines[2]!, /^E\d{4} .* log\.test\.ts:\d+\] "failed" err="x"$/);
  assert.ok(lines[0]!.includes(` ${PID} `));
  const [l0, l1] = lines.map((l) => Number(/log\.test\.ts:(\d+)\]/.exec(l)![1]));
  assert.equal(l1, l0! + 1);
});

test('V(level) follows the verbosity; withSource fixes the source tag', () => {
  const lines = capture(() => {
    assert.equal(log.V(1).enabled, false);
    log.V(1).info('hidden');
    log.setVerbosity(4);
    assert.equal(log.V(4).enabled, true);
    assert.equal(log.V(5).enabled, false);
    log.V(4).info('shown', { a: 'b' });
    log.V(5).info('hidden too');
    log.withSource('storage.ts:0').info('tagged');
    log.withSource('storage.ts:0').V(4).info('tagged verbose');
  });
  assert.equal(lines.length, 3);
  assert.match(lines[0]!, / log\.test\.ts:\d+\] "shown" a="b"$/);
  assert.match(lines[1]!, / storage\.ts:0\] "tagged"$/);
  assert.match(lines[2]!, / storage\.ts:0\] "tagged verbose"$/);
});

test('buffered lines are flushed when the process exits', () => {
  const logModule = fileURLToPath(new URL('./log.ts', import.meta.url));
  const script = `import { log } from ${JSON.stringify(logModule)};\n` +
    'for (let i = 0; i < 3; i++) log.info("line", { i });\nprocess.exit(0);\n';
  const res = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  const lines = res.stderr.trim().split('\n');
  assert.equal(lines.length, 3, res.stderr);
  assert.match(lines[2]!, /\] "line" i=2$/);
});
