import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventName, formatMicroTime, makeEvent, seriesKey, truncateNote } from './event.ts';

test('MicroTime has exactly six fractional digits, in UTC', () => {
  assert.equal(formatMicroTime(Date.UTC(2026, 0, 2, 3, 4, 5) * 1000 + 678_901), '2026-01-02T03:04:05.678901Z');
  assert.equal(formatMicroTime(Date.UTC(2026, 0, 2, 3, 4, 5) * 1000 + 7), '2026-01-02T03:04:05.000007Z');
});

test('names are <regarding>.<nanoseconds in hex>, unique, and a UUID when that is no valid name', () => {
  const a = eventName('web');
  const b = eventName('web');
  assert.match(a, /^web\.[0-9a-f]{15,}$/);
  assert.notEqual(a, b);
  assert.match(eventName('Not_A_Name'), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
});

test('a note over 1024 bytes is cut with " ..." at its end, never inside a character', () => {
  assert.equal(truncateNote('short'), 'short');
  assert.equal(truncateNote('n'.repeat(1024)), 'n'.repeat(1024));
  assert.equal(truncateNote('n'.repeat(1025)), `${'n'.repeat(1020)} ...`);
  const cut = truncateNote('€'.repeat(400));
  assert.ok(Buffer.byteLength(cut) <= 1024);
  assert.match(cut, /^€+ \.\.\.$/);
});

test('the series key is getKey: type, action, reason, reporter, regarding and related, not the note', () => {
  const base = { reportingController: 'c', reportingInstance: 'i', regarding: { kind: 'Pod', name: 'p', namespace: 'ns' }, type: 'Normal' as const, reason: 'R', action: 'A', note: 'one', eventTimeUs: 0 };
  const k = seriesKey(makeEvent(base));
  assert.equal(seriesKey(makeEvent({ ...base, note: 'two', eventTimeUs: 5 })), k);
  for (const change of [{ reason: 'X' }, { action: 'X' }, { type: 'Warning' as const }, { reportingInstance: 'j' }, { regarding: { ...base.regarding, fieldPath: 'spec.containers{a}' } }, { related: { kind: 'Node', name: 'n' } }]) {
    assert.notEqual(seriesKey(makeEvent({ ...base, ...change })), k, JSON.stringify(change));
  }
  assert.equal(makeEvent({ ...base, regarding: { kind: 'Node', name: 'n' } }).metadata.namespace, 'default');
});
