/**
 * A byte-level JSON validity check that reports the first error with Go encoding/json's scanner wording
 * (`invalid character 'x' looking for beginning of value`, `unexpected end of JSON input`, `… exceeded max
 * depth`, with our limit: see nesting.ts). Hand-written because JSON.parse's messages differ and clients match on
 * Go's. Only runs on the slow path (JSON.parse failed, or the body is suspiciously deep), and is iterative so deep input cannot overflow.
 */

import { EXCEEDED_MAX_DEPTH, MAX_NESTING_DEPTH } from './nesting.ts';

export const MAX_DEPTH = MAX_NESTING_DEPTH;

const BEGIN_VALUE = 0;
const BEGIN_VALUE_OR_EMPTY = 1;
const BEGIN_STRING_OR_EMPTY = 2;
const BEGIN_STRING = 3;
const END_VALUE = 4;
const END_TOP = 5;
const IN_STRING = 6;
const IN_STRING_ESC = 7;
const ESC_U = 8; // 8..11: number of hex digits read so far = state - 8
const NEG = 12;
const ONE = 13;
const ZERO = 14;
const DOT = 15;
const DOT0 = 16;
const EXP = 17;
const EXP_SIGN = 18;
const EXP0 = 19;
const LITERAL = 20;

const PARSE_OBJECT_KEY = 0;
const PARSE_OBJECT_VALUE = 1;
const PARSE_ARRAY_VALUE = 2;

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13 || c === 10;
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

/** Go's quoteChar: a byte as a quoted character literal. */
export function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const esc: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v', 92: '\\\\' };
  if (esc[c]) return `'${esc[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // A byte ≥ 0x80 is shown as the Latin-1 rune of that value; Go prints the non-printable ones escaped.
  if (c >= 0x80 && (c < 0xa0 || c === 0xa0 || c === 0xad)) return `'\\u00${c.toString(16).padStart(2, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

/** Returns null for valid JSON, else Go's syntax error text for the first error. */
export function checkSyntax(b: Uint8Array): string | null {
  const stack = new Uint8Array(MAX_DEPTH + 1);
  let depth = 0;
  let state = BEGIN_VALUE;
  let lit = ''; // remaining characters of true/false/null
  let litName = '';
  const err = (c: number, context: string): string => `invalid character ${quoteChar(c)} ${context}`;

  // One scanner step; returns an error text or null. Structured as Go's state functions, which may chain.
  const step = (c: number): string | null => {
    for (;;) {
      switch (state) {
        case BEGIN_VALUE_OR_EMPTY:
          if (isSpace(c)) return null;
          if (c === 93) {
            state = END_VALUE;
            continue;
          }
          state = BEGIN_VALUE;
          continue;
        case BEGIN_VALUE:
          if (isSpace(c)) return null;
          if (c === 123 || c === 91) {
            if (depth >= MAX_DEPTH) return err(c, EXCEEDED_MAX_DEPTH);
            stack[depth++] = c === 123 ? PARSE_OBJECT_KEY : PARSE_ARRAY_VALUE;
            state = c === 123 ? BEGIN_STRING_OR_EMPTY : BEGIN_VALUE_OR_EMPTY;
            return null;
          }
          if (c === 34) state = IN_STRING;
          else if (c === 45) state = NEG;
          else if (c === 48) state = ZERO;
          else if (c >= 49 && c <= 57) state = ONE;
          else if (c === 116 || c === 102 || c === 110) {
            litName = c === 116 ? 'true' : c === 102 ? 'false' : 'null';
            lit = litName.slice(1);
            state = LITERAL;
          } else return err(c, 'looking for beginning of value');
          return null;
        case BEGIN_STRING_OR_EMPTY:
          if (isSpace(c)) return null;
          if (c === 125) {
            stack[depth - 1] = PARSE_OBJECT_VALUE;
            state = END_VALUE;
            continue;
          }
          state = BEGIN_STRING;
          continue;
        case BEGIN_STRING:
          if (isSpace(c)) return null;
          if (c === 34) {
            state = IN_STRING;
            return null;
          }
          return err(c, 'looking for beginning of object key string');
        case END_VALUE: {
          if (depth === 0) {
            state = END_TOP;
            continue;
          }
          if (isSpace(c)) return null;
          const ps = stack[depth - 1];
          if (ps === PARSE_OBJECT_KEY) {
            if (c === 58) {
              stack[depth - 1] = PARSE_OBJECT_VALUE;
              state = BEGIN_VALUE;
              return null;
            }
            return err(c, 'after object key');
          }
          if (ps === PARSE_OBJECT_VALUE) {
            if (c === 44) {
              stack[depth - 1] = PARSE_OBJECT_KEY;
              state = BEGIN_STRING;
              return null;
            }
            if (c === 125) {
              depth--;
              state = depth === 0 ? END_TOP : END_VALUE;
              return null;
            }
            return err(c, 'after object key:value pair');
          }
          if (c === 44) {
            state = BEGIN_VALUE;
            return null;
          }
          if (c === 93) {
            depth--;
            state = depth === 0 ? END_TOP : END_VALUE;
            return null;
          }
          return err(c, 'after array element');
        }
        case END_TOP:
          return isSpace(c) ? null : err(c, 'after top-level value');
        case IN_STRING:
          if (c === 34) state = END_VALUE;
          else if (c === 92) state = IN_STRING_ESC;
          else if (c < 0x20) return err(c, 'in string literal');
          return null;
        case IN_STRING_ESC:
          if (c === 98 || c === 102 || c === 110 || c === 114 || c === 116 || c === 92 || c === 47 || c === 34) state = IN_STRING;
          else if (c === 117) state = ESC_U;
          else return err(c, 'in string escape code');
          return null;
        case ESC_U:
        case ESC_U + 1:
        case ESC_U + 2:
        case ESC_U + 3:
          if (!isHex(c)) return err(c, 'in \\u hexadecimal character escape');
          state = state === ESC_U + 3 ? IN_STRING : state + 1;
          return null;
        case NEG:
          if (c === 48) state = ZERO;
          else if (c >= 49 && c <= 57) state = ONE;
          else return err(c, 'in numeric literal');
          return null;
        case ONE:
          if (c >= 48 && c <= 57) return null;
          state = ZERO;
          continue;
        case ZERO:
          if (c === 46) state = DOT;
          else if (c === 101 || c === 69) state = EXP;
          else {
            state = END_VALUE;
            continue;
          }
          return null;
        case DOT:
          if (c >= 48 && c <= 57) {
            state = DOT0;
            return null;
          }
          return err(c, 'after decimal point in numeric literal');
        case DOT0:
          if (c >= 48 && c <= 57) return null;
          if (c === 101 || c === 69) {
            state = EXP;
            return null;
          }
          state = END_VALUE;
          continue;
        case EXP:
          if (c === 43 || c === 45) {
            state = EXP_SIGN;
            return null;
          }
          state = EXP_SIGN;
          continue;
        case EXP_SIGN:
          if (c >= 48 && c <= 57) {
            state = EXP0;
            return null;
          }
          return err(c, 'in exponent of numeric literal');
        case EXP0:
          if (c >= 48 && c <= 57) return null;
          state = END_VALUE;
          continue;
        case LITERAL:
          if (c !== lit.charCodeAt(0)) return err(c, `in literal ${litName} (expecting ${quoteChar(lit.charCodeAt(0))})`);
          lit = lit.slice(1);
          if (lit === '') state = END_VALUE;
          return null;
      }
      return null;
    }
  };

  for (let i = 0; i < b.length; i++) {
    const e = step(b[i]!);
    if (e !== null) return e;
  }
  // Go's eof(): feed a space, which completes a trailing top-level number or reports what it breaks.
  if (state === END_TOP) return null;
  const e = step(32);
  if (e !== null) return e;
  return state === END_TOP ? null : 'unexpected end of JSON input';
}
