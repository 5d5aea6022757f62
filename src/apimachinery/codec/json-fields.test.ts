import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Field, ends, scanObject, skipValue, starts, timeMs } from './json-fields.ts';

test('timeMs reads Go RFC 3339 times as Date.parse does, and leaves other text to it', () => {
  const texts = [
    '2026-03-01T12:00:00Z', '2026-03-01T12:00:00.123456Z', '1999-12-31T23:59:59.999999Z', '2024-02-29T00:00:00Z',
    '2023-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '0099-01-01T00:00:00Z', '2026-03-01T24:00:00Z', '2026-03-01T12:00:00.12345xZ',
    '2026-03-01T12:00:00+01:00', 'not a time', '', '2026-03-01 12:00:00Z',
  ];
  for (const t of texts) {
    const s = `"${t}"`;
    assert.deepEqual(timeMs(s, 1, s.length - 1), Date.parse(t), t);
  }
});

test('skipValue and scanObject follow nesting, strings with escapes, and literals', () => {
  const s = '{"a":{"x":[1,{"y":"}\\"]"}],"b":"q\\\\"},"c":-1.5e3,"d":null,"e":"v"}';
  assert.equal(skipValue(s, 0), s.length);
  const fields: Field[] = [{ key: 'a', slot: 0, nested: [{ key: 'b', slot: 1 }] }, { key: 'c', slot: 2 }, { key: 'e', slot: 3 }];
  starts.fill(-1);
  assert.equal(scanObject(s, 0, fields), s.length);
  const at = (i: number) => s.slice(starts[i], ends[i]);
  assert.deepEqual([at(1), at(2), at(3)], ['"q\\\\"', '-1.5e3', '"v"']);
  assert.ok(at(0).startsWith('{"x"'));
  assert.equal(scanObject('{"a":1', 0, fields), -1);
  assert.equal(skipValue('"open', 0), -1);
});
