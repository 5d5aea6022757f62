/**
 * A JSON reader that fails with the texts of Go's encoding/json (`invalid character 'x' looking for beginning of
 * value`, `unexpected end of JSON input`, ...). Upstream puts those texts into client-visible errors (for instance
 * `invalid continue token: continue key is not valid: <json error>`), and JSON.parse's messages differ. Numbers keep
 * their literal so callers can apply Go's int64 rules. Hand-written: no library reproduces Go's scanner messages.
 */

import { EXCEEDED_MAX_DEPTH, MAX_NESTING_DEPTH } from './codec/nesting.ts';

export type GoJsonValue =
  | { kind: 'object'; entries: [string, GoJsonValue][] }
  | { kind: 'array'; items: GoJsonValue[] }
  | { kind: 'string'; value: string }
  | { kind: 'number'; literal: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' };

/** A syntax error with Go's message. */
export class GoJsonSyntaxError extends Error {}

const UNEXPECTED_END = 'unexpected end of JSON input';
const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's quoteChar: how the scanner names the offending byte. */
export function goQuoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  if (named[c] !== undefined) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // bytes >= 0x80 are quoted as the rune U+0080..U+00FF; of those Go prints U+00A1..U+00FF except U+00AD
  if (c >= 0x80 && (c <= 0xa0 || c === 0xad)) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

class Reader {
  private pos = 0;
  private depth = 0;
  constructor(private readonly b: Uint8Array) {}

  private fail(c: number, context: string): never {
    throw new GoJsonSyntaxError(`invalid character ${goQuoteChar(c)} ${context}`);
  }
  /** The next byte, or -1 at the end of input. */
  private peek(): number {
    return this.pos < this.b.length ? this.b[this.pos]! : -1;
  }
  private skipSpace(): number {
    while (isSpace(this.peek())) this.pos++;
    return this.peek();
  }
  /** Inside numbers and literals Go feeds a space at the end of input, so the error names ' '. */
  private peekOrSpace(): number {
    const c = this.peek();
    return c === -1 ? 0x20 : c;
  }

  document(): GoJsonValue {
    const v = this.value();
    const c = this.skipSpace();
    if (c !== -1) this.fail(c, 'after top-level value');
    return v;
  }

  private value(): GoJsonValue {
    const c = this.skipSpace();
    if (c === -1) throw new GoJsonSyntaxError(UNEXPECTED_END);
    if (c === 0x7b || c === 0x5b) {
      // Recursive descent, so the nesting limit is checked as Go's scanner checks its own.
      if (++this.depth > MAX_NESTING_DEPTH) this.fail(c, EXCEEDED_MAX_DEPTH);
      const v = c === 0x7b ? this.object() : this.array();
      this.depth--;
      return v;
    }
    if (c === 0x22) return { kind: 'string', value: this.string() };
    if (c === 0x2d || isDigit(c)) return { kind: 'number', literal: this.number() };
    if (c === 0x74) return this.literal('true', { kind: 'bool', value: true });
    if (c === 0x66) return this.literal('false', { kind: 'bool', value: false });
    if (c === 0x6e) return this.literal('null', { kind: 'null' });
    return this.fail(c, 'looking for beginning of value');
  }

  private object(): GoJsonValue {
    this.pos++;
    const entries: [string, GoJsonValue][] = [];
    let c = this.skipSpace();
    if (c === 0x7d) {
      this.pos++;
      return { kind: 'object', entries };
    }
    for (;;) {
      if (c === -1) throw new GoJsonSyntaxError(UNEXPECTED_END);
      if (c !== 0x22) this.fail(c, 'looking for beginning of object key string');
      const key = this.string();
      c = this.skipSpace();
      if (c === -1) throw new GoJsonSyntaxError(UNEXPECTED_END);
      if (c !== 0x3a) this.fail(c, 'after object key');
      this.pos++;
      entries.push([key, this.value()]);
      c = this.skipSpace();
      if (c === -1) throw new GoJsonSyntaxError(UNEXPECTED_END);
      this.pos++;
      if (c === 0x7d) return { kind: 'object', entries };
      if (c !== 0x2c) this.fail(c, 'after object key:value pair');
      c = this.skipSpace();
    }
  }

  private array(): GoJsonValue {
    this.pos++;
    const items: GoJsonValue[] = [];
    let c = this.skipSpace();
    if (c === 0x5d) {
      this.pos++;
      return { kind: 'array', items };
    }
    for (;;) {
      items.push(this.value());
      c = this.skipSpace();
      if (c === -1) throw new GoJsonSyntaxError(UNEXPECTED_END);
      this.pos++;
      if (c === 0x5d) return { kind: 'array', items };
      if (c !== 0x2c) this.fail(c, 'after array element');
    }
  }

  /** A string starting at the opening quote; its raw text is decoded by JSON.parse once Go's rules passed. */
  private string(): string {
    const start = this.pos++;
    for (;;) {
      const c = this.peek();
      if (c === -1) throw new GoJsonSyntaxError(UNEXPECTED_END);
      this.pos++;
      if (c === 0x22) break;
      if (c < 0x20) this.fail(c, 'in string literal');
      if (c !== 0x5c) continue;
      const e = this.peek();
      if (e === -1) throw new GoJsonSyntaxError(UNEXPECTED_END);
      this.pos++;
      if (e === 0x75) {
        for (let i = 0; i < 4; i++) {
          const h = this.peek();
          if (h === -1) throw new GoJsonSyntaxError(UNEXPECTED_END);
          if (!isHex(h)) this.fail(h, 'in \\u hexadecimal character escape');
          this.pos++;
        }
      } else if (!'"\\/bfnrt'.includes(String.fromCharCode(e))) {
        this.fail(e, 'in string escape code');
      }
    }
    // invalid UTF-8 becomes U+FFFD, as Go's decoder does
    return JSON.parse(Buffer.from(this.b.subarray(start, this.pos)).toString('utf8')) as string;
  }

  private number(): string {
    const start = this.pos;
    if (this.peek() === 0x2d) {
      this.pos++;
      if (!isDigit(this.peekOrSpace())) this.fail(this.peekOrSpace(), 'in numeric literal');
    }
    if (this.peek() === 0x30) this.pos++;
    else while (isDigit(this.peek())) this.pos++;
    if (this.peek() === 0x2e) {
      this.pos++;
      if (!isDigit(this.peekOrSpace())) this.fail(this.peekOrSpace(), 'after decimal point in numeric literal');
      while (isDigit(this.peek())) this.pos++;
    }
    if (this.peek() === 0x65 || this.peek() === 0x45) {
      this.pos++;
      if (this.peek() === 0x2b || this.peek() === 0x2d) this.pos++;
      if (!isDigit(this.peekOrSpace())) this.fail(this.peekOrSpace(), 'in exponent of numeric literal');
      while (isDigit(this.peek())) this.pos++;
    }
    return Buffer.from(this.b.subarray(start, this.pos)).toString('latin1');
  }

  private literal(word: string, v: GoJsonValue): GoJsonValue {
    this.pos++;
    for (let i = 1; i < word.length; i++) {
      const c = this.peekOrSpace();
      if (c !== word.charCodeAt(i)) this.fail(c, `in literal ${word} (expecting '${word[i]}')`);
      this.pos++;
    }
    return v;
  }
}

/** Parses one JSON document with Go's syntax rules and error texts. Throws GoJsonSyntaxError. */
export function parseGoJson(data: Uint8Array): GoJsonValue {
  return new Reader(data).document();
}

