/**
 * RFC 3339 timestamps as metav1.Time / metav1.MicroTime read and write them. Parsing is hand-written (not Date)
 * because Date drops digits past milliseconds, maps years < 100 to 19xx and accepts non-RFC-3339 shapes; the
 * error texts follow Go's time.Parse so clients see the upstream wording.
 *
 * Team decision 4: MicroTime accepts 0–9 fraction digits and is written with exactly 6; Time accepts any
 * fraction and is written in whole seconds. Both are written in UTC.
 */

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';
/** Go's zero time, which both types write as `null`. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';
export const ZERO_MICRO_TIME = '0001-01-01T00:00:00.000000Z';

/** Thrown for unparsable input; the message is Go's `parsing time …` text. */
export class TimeParseError extends Error {}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil), exact for any year.
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

function daysIn(m: number, y: number): number {
  if (m === 2) return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

const pad2 = (n: number): string => (n < 10 ? '0' + n : String(n));

function digitsAt(s: string, i: number, n: number): number {
  let v = 0;
  for (let j = 0; j < n; j++) {
    const c = s.charCodeAt(i + j) - 48;
    if (!(c >= 0 && c <= 9)) return -1;
    v = v * 10 + c;
  }
  return v;
}

function fail(s: string, layout: string, at: number, elem: string): never {
  throw new TimeParseError(`parsing time ${JSON.stringify(s)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(s.slice(at))} as ${JSON.stringify(elem)}`);
}

function outOfRange(s: string, what: string): never {
  throw new TimeParseError(`parsing time ${JSON.stringify(s)}: ${what} out of range`);
}

// Result of the last parse (module state instead of a tuple: this runs for every timestamp of every write).
let parsedSecs = 0;
let parsedNanos = 0;

/**
 * Parses into parsedSecs/parsedNanos; returns true when `s` is already in canonical UTC form for the given
 * number of fraction digits (so callers can return it unchanged). `layout` is only used in error texts.
 */
function parse(s: string, layout: string, fracLayout: string, canonicalDigits: number): boolean {
  const year = digitsAt(s, 0, 4);
  if (year < 0) fail(s, layout, 0, '2006');
  if (s.charCodeAt(4) !== 45) fail(s, layout, 4, '-');
  const month = digitsAt(s, 5, 2);
  if (month < 0) fail(s, layout, 5, '01');
  if (s.charCodeAt(7) !== 45) fail(s, layout, 7, '-');
  const day = digitsAt(s, 8, 2);
  if (day < 0) fail(s, layout, 8, '02');
  if (s.charCodeAt(10) !== 84) fail(s, layout, 10, 'T');
  const hour = digitsAt(s, 11, 2);
  if (hour < 0) fail(s, layout, 11, '15');
  if (s.charCodeAt(13) !== 58) fail(s, layout, 13, ':');
  const min = digitsAt(s, 14, 2);
  if (min < 0) fail(s, layout, 14, '04');
  if (s.charCodeAt(16) !== 58) fail(s, layout, 16, ':');
  const sec = digitsAt(s, 17, 2);
  if (sec < 0) fail(s, layout, 17, '05');
  let i = 19;
  let nanos = 0;
  let digits = 0;
  // Go accepts a comma as the decimal separator too.
  const sep = s.charCodeAt(i);
  if (sep === 46 || sep === 44) {
    let j = i + 1;
    for (; j < s.length && digits < 9; j++, digits++) {
      const c = s.charCodeAt(j) - 48;
      if (!(c >= 0 && c <= 9)) break;
      nanos = nanos * 10 + c;
    }
    if (digits === 0) fail(s, layout, i, fracLayout || 'Z07:00');
    for (let k = digits; k < 9; k++) nanos *= 10;
    i = j;
  }
  let offset = 0;
  const z = s.charCodeAt(i);
  if (z === 90) {
    i++;
  } else if ((z === 43 || z === 45) && s.charCodeAt(i + 3) === 58) {
    const oh = digitsAt(s, i + 1, 2);
    const om = digitsAt(s, i + 4, 2);
    if (oh < 0 || om < 0) fail(s, layout, i, 'Z07:00');
    if (oh > 24) outOfRange(s, 'time zone offset hour');
    if (om > 60) outOfRange(s, 'time zone offset minute');
    offset = (oh * 60 + om) * 60 * (z === 45 ? -1 : 1);
    i += 6;
  } else {
    fail(s, layout, i, 'Z07:00');
  }
  if (i !== s.length) throw new TimeParseError(`parsing time ${JSON.stringify(s)}: extra text: ${JSON.stringify(s.slice(i))}`);
  if (month < 1 || month > 12) outOfRange(s, 'month');
  if (day < 1 || day > daysIn(month, year)) outOfRange(s, 'day');
  if (hour > 23) outOfRange(s, 'hour');
  if (min > 59) outOfRange(s, 'minute');
  if (sec > 59) outOfRange(s, 'second');
  if (offset === 0 && z === 90 && digits === canonicalDigits && (digits === 0 || sep === 46)) return true;
  parsedSecs = daysFromCivil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec - offset;
  parsedNanos = nanos;
  return false;
}

function formatUTC(secs: number): string {
  const days = Math.floor(secs / 86400);
  const rem = secs - days * 86400;
  const [y, m, d] = civilFromDays(days);
  const hh = Math.floor(rem / 3600);
  const mm = Math.floor((rem % 3600) / 60);
  const ss = rem % 60;
  return `${String(y).padStart(4, '0')}-${pad2(m)}-${pad2(d)}T${pad2(hh)}:${pad2(mm)}:${pad2(ss)}`;
}

/** Parses a MicroTime (any 0–9 fraction digits, any offset); returns `YYYY-MM-DDTHH:MM:SS.ffffffZ` in UTC. */
export function parseMicroTime(s: string): string {
  if (parse(s, RFC3339_MICRO, '.000000', 6)) return s;
  return `${formatUTC(parsedSecs)}.${String(Math.floor(parsedNanos / 1000)).padStart(6, '0')}Z`;
}

/** Parses a Time (RFC 3339, any fraction, any offset); returns `YYYY-MM-DDTHH:MM:SSZ` in UTC (fraction dropped). */
export function parseTime(s: string): string {
  if (parse(s, RFC3339, '', 0)) return s;
  return `${formatUTC(parsedSecs)}Z`;
}

/** Formats epoch milliseconds (+ optional extra microseconds 0–999) as a MicroTime. */
export function formatMicroTime(ms: number, micros = 0): string {
  const whole = Math.floor(ms);
  const secs = Math.floor(whole / 1000);
  const us = (whole - secs * 1000) * 1000 + Math.floor(micros);
  return `${formatUTC(secs)}.${String(us).padStart(6, '0')}Z`;
}

// Every write in one second stamps the same text (creationTimestamp, managedFields time): format it once.
let lastSecond = NaN;
let lastSecondText = '';

/** Formats epoch milliseconds as a Time (whole seconds, truncated). */
export function formatTime(ms: number): string {
  const secs = Math.floor(Math.floor(ms) / 1000);
  if (secs !== lastSecond) {
    lastSecondText = `${formatUTC(secs)}Z`;
    lastSecond = secs;
  }
  return lastSecondText;
}
