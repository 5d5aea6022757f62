import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatMicroTime, formatTime, parseMicroTime, parseTime } from './time.ts';

test('MicroTime accepts 0, 3, 6 and 9 fraction digits and writes exactly 6', () => {
  assert.equal(parseMicroTime('2024-03-04T05:06:07Z'), '2024-03-04T05:06:07.000000Z');
  assert.equal(parseMicroTime('2024-03-04T05:06:07.024Z'), '2024-03-04T05:06:07.024000Z');
  assert.equal(parseMicroTime('2024-03-04T05:06:07.123456Z'), '2024-03-04T05:06:07.123456Z');
  assert.equal(parseMicroTime('2024-03-04T05:06:07.123456789Z'), '2024-03-04T05:06:07.123456Z');
  assert.equal(parseMicroTime('2024-03-04T05:06:07.5Z'), '2024-03-04T05:06:07.500000Z');
});

test('MicroTime offsets are normalized to UTC', () => {
  assert.equal(parseMicroTime('2024-03-04T05:06:07.123+02:00'), '2024-03-04T03:06:07.123000Z');
  assert.equal(parseMicroTime('2024-01-01T01:00:00-05:30'), '2024-01-01T06:30:00.000000Z');
  // Crossing a year and a leap day.
  assert.equal(parseMicroTime('2024-01-01T00:30:00.000001+01:00'), '2023-12-31T23:30:00.000001Z');
  assert.equal(parseMicroTime('2024-02-29T23:00:00-02:00'), '2024-03-01T01:00:00.000000Z');
});

test('Time drops the fraction and normalizes to UTC', () => {
  assert.equal(parseTime('2024-03-04T05:06:07Z'), '2024-03-04T05:06:07Z');
  assert.equal(parseTime('2024-03-04T05:06:07.999999Z'), '2024-03-04T05:06:07Z');
  assert.equal(parseTime('2024-03-04T05:06:07.5+02:00'), '2024-03-04T03:06:07Z');
  assert.equal(parseTime('0001-01-01T00:00:00Z'), '0001-01-01T00:00:00Z');
});

test('parse errors use Go time.Parse wording', () => {
  assert.throws(() => parseMicroTime('2024-03-04'), {
    message: 'parsing time "2024-03-04" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "" as "T"',
  });
  assert.throws(() => parseMicroTime('2024-03-04T05:06:07.Z'), {
    message: 'parsing time "2024-03-04T05:06:07.Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".Z" as ".000000"',
  });
  assert.throws(() => parseTime('yesterday'), {
    message: 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
  });
  assert.throws(() => parseTime('2024-03-04T05:06:07'), {
    message: 'parsing time "2024-03-04T05:06:07" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"',
  });
  assert.throws(() => parseTime('2024-13-04T05:06:07Z'), { message: 'parsing time "2024-13-04T05:06:07Z": month out of range' });
  assert.throws(() => parseTime('2023-02-29T05:06:07Z'), { message: 'parsing time "2023-02-29T05:06:07Z": day out of range' });
  assert.throws(() => parseTime('2024-03-04T05:06:07Zjunk'), { message: 'parsing time "2024-03-04T05:06:07Zjunk": extra text: "junk"' });
});

test('format helpers', () => {
  const ms = Date.UTC(2024, 4, 6, 7, 8, 9, 123);
  assert.equal(formatTime(ms), '2024-05-06T07:08:09Z');
  assert.equal(formatMicroTime(ms), '2024-05-06T07:08:09.123000Z');
  assert.equal(formatMicroTime(ms, 456), '2024-05-06T07:08:09.123456Z');
  assert.equal(formatMicroTime(0), '1970-01-01T00:00:00.000000Z');
  assert.equal(formatTime(-1), '1969-12-31T23:59:59Z');
});
