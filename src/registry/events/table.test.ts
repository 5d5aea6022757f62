import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from '../../apis/events/v1/types.ts';
import { EVENT_COLUMNS, eventTableCells } from './table.ts';

const NOW = Date.parse('2024-01-01T12:00:00Z');
const ago = (s: number, micro = false) => {
  const iso = new Date(NOW - s * 1000).toISOString();
  return micro ? iso.replace(/\.(\d{3})Z$/, '.$1000Z') : iso.replace(/\.\d{3}Z$/, 'Z');
};
const ev = (over: Partial<Event> = {}): Event => ({
  metadata: { name: 'e1', namespace: 'ns' },
  eventTime: ago(300, true),
  reportingController: 'ctrl',
  reportingInstance: 'ctrl-1',
  reason: 'Started',
  type: 'Normal',
  regarding: { kind: 'Pod', namespace: 'ns', name: 'web', fieldPath: 'spec.containers{c}' },
  note: '  started container \n',
  deprecatedSource: {},
  deprecatedFirstTimestamp: null,
  deprecatedLastTimestamp: null,
  ...over,
});

test('columns: names, priorities, the name format', () => {
  assert.deepEqual(
    EVENT_COLUMNS.map((c) => [c.name, c.priority, c.format, c.type]),
    [
      ['Last Seen', 0, '', 'string'],
      ['Type', 0, '', 'string'],
      ['Reason', 0, '', 'string'],
      ['Object', 0, '', 'string'],
      ['Subobject', 1, '', 'string'],
      ['Source', 1, '', 'string'],
      ['Message', 0, '', 'string'],
      ['First Seen', 1, '', 'string'],
      ['Count', 1, '', 'string'],
      ['Name', 1, 'name', 'string'],
    ],
  );
  for (const c of EVENT_COLUMNS) assert.ok(c.description.length > 0);
});

test('a new-style singleton Event', () => {
  assert.deepEqual(eventTableCells(ev(), NOW), ['5m', 'Normal', 'Started', 'pod/web', 'spec.containers{c}', 'ctrl, ctrl-1', 'started container', '5m', 1, 'e1']);
});

test('series: Last Seen from lastObservedTime, Count from the series', () => {
  const cells = eventTableCells(ev({ series: { count: 7, lastObservedTime: ago(45, true) } }), NOW);
  assert.equal(cells[0], '45s');
  assert.equal(cells[7], '5m');
  assert.equal(cells[8], 7);
});

test('old-style Event: deprecated timestamps, count and source', () => {
  const cells = eventTableCells(
    ev({
      eventTime: null,
      deprecatedFirstTimestamp: ago(3 * 3600 + 120),
      deprecatedLastTimestamp: ago(90),
      deprecatedCount: 4,
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
    }),
    NOW,
  );
  assert.deepEqual([cells[0], cells[5], cells[7], cells[8]], ['90s', 'kubelet, node-1', '3h2m', 4]);
});

test('Last Seen falls back to First Seen; zero times print <unknown>; Object without a name is the kind', () => {
  const cells = eventTableCells(ev({ eventTime: null, regarding: { kind: 'Node' }, reportingInstance: '' }), NOW);
  assert.deepEqual([cells[0], cells[3], cells[5], cells[7]], ['<unknown>', 'node', 'ctrl', '<unknown>']);
  const first = eventTableCells(ev({ deprecatedFirstTimestamp: ago(4 * 86400) }), NOW);
  assert.deepEqual([first[0], first[7]], ['4d', '4d'], 'deprecatedFirstTimestamp wins over eventTime');
});
