/**
 * Field selectors (`?fieldSelector=`), parsed and matched as apimachinery `pkg/fields/selector.go` does: terms
 * joined by unescaped `,`, operators `!=`, `==`, `=` (first match from the left), `\` escaping `\`, `,` and `=` in
 * values, no trimming, empty terms skipped, terms sorted (byte order), and `=` alone (empty field and value) dropped.
 */
import { newBadRequest } from '../errors.ts';

export interface FieldRequirement {
  field: string;
  operator: '=' | '==' | '!=';
  value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  /** A field missing from `fields` matches as the empty string. */
  matches(fields: Readonly<Record<string, string>>): boolean;
  isEmpty(): boolean;
  /** The value an `=`/`==` term pins `field` to (the first such term), if any. */
  requiresExactMatch(field: string): string | undefined;
  toString(): string;
}

const OPERATORS = ['!=', '==', '='] as const;

/** Go's field selector value escaping (`\` → `\\`, `,` → `\,`, `=` → `\=`). */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Upstream UnescapeValue; its errors are the 400 texts `invalid field selector: ...`. */
function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw newBadRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go prints the rune with %v: its code point number
      throw newBadRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw newBadRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits at commas not preceded by an escaping backslash. */
function splitTerms(s: string): string[] {
  if (s === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

function splitTerm(term: string): FieldRequirement | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), operator: op, value: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Go sorts the raw terms as byte strings; UTF-16 order differs above U+FFFF. */
const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

class Selector implements FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}

  matches(fields: Readonly<Record<string, string>>): boolean {
    // A plain loop: this runs once per cached object on selective lists.
    const reqs = this.requirements;
    for (let i = 0; i < reqs.length; i++) {
      const r = reqs[i]!;
      const v = Object.hasOwn(fields, r.field) ? fields[r.field] : '';
      if (r.operator === '!=' ? v === r.value : v !== r.value) return false;
    }
    return true;
  }

  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator !== '!=')?.value;
  }

  toString(): string {
    // `==` prints as `=`, as upstream's hasTerm does
    return this.requirements.map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeFieldValue(r.value)}`).join(',');
  }
}

/**
 * Parses `?fieldSelector=`. Errors are 400 BadRequest with upstream's texts:
 * `invalid selector: '<sel>'; can't understand '<term>'`, `invalid field selector: invalid escape sequence: <seq>`,
 * `invalid field selector: unescaped character in value: <code point>`.
 */
export function parseFieldSelector(s: string): FieldSelector {
  const reqs: FieldRequirement[] = [];
  for (const part of splitTerms(s).sort(byteOrder)) {
    if (part === '') continue;
    const req = splitTerm(part);
    if (!req) throw newBadRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    req.value = unescapeValue(req.value);
    // upstream's identity Transform turns a term with empty field and value into Everything, then drops it
    if (req.field === '' && req.value === '') continue;
    reqs.push(req);
  }
  return new Selector(reqs);
}

/** A selector that matches everything. */
export function everythingFields(): FieldSelector {
  return new Selector([]);
}

/** The one-term selector `field=value` (upstream OneTermEqualSelector), e.g. for single-object watches. */
export function oneTermEqualSelector(field: string, value: string): FieldSelector {
  return new Selector([{ field, operator: '=', value }]);
}
