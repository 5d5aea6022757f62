/**
 * The two header parsers whose quirks clients depend on, reproduced from the Go libraries the apiserver uses:
 * goautoneg's Accept parser and mime.ParseMediaType. Hand-written because no npm parser copies either (goautoneg's
 * lenient splitting and non-strict sort order; Go's failure on parameters that WHATWG parsers silently drop).
 */

export interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: Map<string, string>;
}

/** goautoneg.ParseAccept: clauses sorted as Go's sort.Sort orders them. */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  let remaining = header;
  while (remaining.length > 0) {
    let part: string;
    [part, remaining] = nextSplit(remaining, ',');
    part = trimSpaces(part);
    const [range, paramText] = nextSplit(part, ';');
    const [t, afterSlash] = nextSplit(range, '/');
    const clause: AcceptClause = { type: trimSpaces(t), subType: '', q: 1, params: new Map() };
    if (afterSlash.length === 0) {
      if (clause.type !== '*') continue;
      clause.subType = '*';
    } else {
      const [sub, extra] = nextSplit(afterSlash, '/');
      if (extra.length > 0) continue;
      clause.subType = trimSpaces(sub);
    }
    let rest = paramText;
    while (rest.length > 0) {
      let p: string;
      [p, rest] = nextSplit(rest, ';');
      const [key, afterEq] = nextSplit(p, '=');
      if (afterEq.length === 0) continue;
      const [value, extra] = nextSplit(afterEq, '=');
      if (extra.length !== 0) continue;
      const token = trimSpaces(key);
      if (token === 'q') clause.q = goParseFloat32(value);
      else clause.params.set(token, trimSpaces(value));
    }
    clauses.push(clause);
  }
  // Go's sort.Sort is an insertion sort up to 12 elements; its Less is not a strict order, so reproduce both.
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && acceptLess(clauses[j]!, clauses[j - 1]!); j--) {
      [clauses[j], clauses[j - 1]] = [clauses[j - 1]!, clauses[j]!];
    }
  }
  return clauses;
}

function acceptLess(a: AcceptClause, b: AcceptClause): boolean {
  if (a.q > b.q) return true;
  if (a.type !== '*' && b.type === '*') return true;
  if (a.subType !== '*' && b.subType === '*') return true;
  return false;
}

function nextSplit(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i === -1 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}

function trimSpaces(s: string): string {
  return s.replace(/^ +| +$/g, '');
}

/** strconv.ParseFloat(s, 32) with the error ignored: syntax errors give 0, overflow gives ±Inf. */
function goParseFloat32(s: string): number {
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return Math.fround(Number(s));
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(s)) return NaN;
  return 0;
}

const TSPECIALS = new Set('()<>@,;:\\"/[]?='.split(''));

function consumeToken(s: string): [string, string] {
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || TSPECIALS.has(s[i]!)) break;
    i++;
  }
  return [s.slice(0, i), s.slice(i)];
}

/**
 * Go mime.ParseMediaType reduced to what the handlers use: the lower-cased base type, or null when Go reports an
 * error (bad type, bad parameter syntax, conflicting duplicate parameters).
 */
export function parseMediaType(v: string): string | null {
  const semi = v.indexOf(';');
  const baseRaw = semi === -1 ? v : v.slice(0, semi);
  const base = baseRaw.toLowerCase().trim();
  const [typ, afterType] = consumeToken(base);
  if (typ === '') return null;
  if (afterType !== '') {
    if (!afterType.startsWith('/')) return null;
    const [sub, afterSub] = consumeToken(afterType.slice(1));
    if (sub === '' || afterSub !== '') return null;
  }
  const params = new Map<string, string>();
  let rest = v.slice(baseRaw.length);
  for (;;) {
    rest = rest.trimStart();
    if (rest === '') break;
    const p = consumeParam(rest);
    if (!p) {
      if (rest.trim() === ';') break; // a trailing semicolon is tolerated
      return null;
    }
    const prev = params.get(p.key);
    if (prev !== undefined && prev !== p.value) return null;
    params.set(p.key, p.value);
    rest = p.rest;
  }
  return base;
}

function consumeParam(v: string): { key: string; value: string; rest: string } | null {
  let rest = v.trimStart();
  if (!rest.startsWith(';')) return null;
  rest = rest.slice(1).trimStart();
  let key: string;
  [key, rest] = consumeToken(rest);
  if (key === '') return null;
  rest = rest.trimStart();
  if (!rest.startsWith('=')) return null;
  rest = rest.slice(1).trimStart();
  if (!rest.startsWith('"')) {
    const [value, after] = consumeToken(rest);
    if (value === '') return null;
    return { key: key.toLowerCase(), value, rest: after };
  }
  let value = '';
  for (let i = 1; i < rest.length; i++) {
    const c = rest[i]!;
    if (c === '"') return { key: key.toLowerCase(), value, rest: rest.slice(i + 1) };
    if (c === '\\' && i + 1 < rest.length) value += rest[++i];
    else if (c === '\r' || c === '\n') return null;
    else value += c;
  }
  return null;
}
