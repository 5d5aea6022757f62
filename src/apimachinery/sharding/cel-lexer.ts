/**
 * The CEL lexer (cel-spec doc/langdef.md): identifiers, operators, and number, string and bytes literals decoded
 * to the values cel-go's parser gives them. Part of the hand-written parser in cel-syntax.ts.
 */

/** A literal's value; `goType` is Go's `%T` of the ref.Val's Value() (`string`, `int64`, `[]uint8`, ...). */
export type Literal =
  | { goType: 'string'; value: string }
  | { goType: 'int64' | 'uint64'; value: bigint }
  | { goType: 'float64'; value: number }
  | { goType: 'bool'; value: boolean }
  | { goType: '[]uint8'; value: Uint8Array }
  | { goType: 'structpb.NullValue'; value: null };

/** A syntax error; the message is what follows `CEL parse error: `. */
export class CelSyntaxError extends Error {
  override name = 'CelSyntaxError';
}

export type Token =
  | { type: 'punct' | 'ident'; text: string }
  | { type: 'literal'; text: string; literal: Literal }
  | { type: 'eof'; text: '<EOF>' };

const PUNCTUATION = ['||', '&&', '==', '!=', '<=', '>=', '<', '>', '!', '+', '-', '*', '/', '%', '?', ':', '.', ',', '(', ')', '[', ']', '{', '}'];
export const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '?': '?', '"': '"', "'": "'", '`': '`',
};

function recognitionError(at: string): CelSyntaxError {
  return new CelSyntaxError(`Syntax error: token recognition error at: '${at}'`);
}

/** Splits the source into tokens; string and number literals are decoded here. */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (' \t\n\r\f'.includes(c)) {
      i++;
    } else if (src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n' && src[i] !== '\r') i++;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      i = readNumber(src, i, tokens);
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))![0];
      const quote = src[i + m.length];
      if ((quote === '"' || quote === "'") && /^(?:[rRbB]|[rR][bB]|[bB][rR])$/.test(m)) {
        i = readString(src, i + m.length, /[bB]/.test(m), /[rR]/.test(m), tokens);
        continue;
      }
      i += m.length;
      if (m === 'true' || m === 'false') tokens.push({ type: 'literal', text: m, literal: { goType: 'bool', value: m === 'true' } });
      else if (m === 'null') tokens.push({ type: 'literal', text: m, literal: { goType: 'structpb.NullValue', value: null } });
      else if (m === 'in') tokens.push({ type: 'punct', text: m });
      else tokens.push({ type: 'ident', text: m });
    } else if (c === '"' || c === "'") {
      i = readString(src, i, false, false, tokens);
    } else {
      const p = PUNCTUATION.find((q) => src.startsWith(q, i));
      if (!p) throw recognitionError(String.fromCodePoint(src.codePointAt(i)!));
      tokens.push({ type: 'punct', text: p });
      i += p.length;
    }
  }
  tokens.push({ type: 'eof', text: '<EOF>' });
  return tokens;
}

function readNumber(src: string, start: number, tokens: Token[]): number {
  const rest = src.slice(start);
  const float = /^(?:[0-9]*\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)/.exec(rest);
  if (float) {
    tokens.push({ type: 'literal', text: float[0], literal: { goType: 'float64', value: Number(float[0]) } });
    return start + float[0].length;
  }
  const int = /^(?:0x[0-9a-fA-F]+|[0-9]+)([uU]?)/.exec(rest)!;
  const text = int[0];
  const digits = int[1] ? text.slice(0, -1) : text;
  const value = BigInt(digits);
  if (int[1]) {
    if (value > UINT64_MAX) throw new CelSyntaxError('invalid uint literal');
    tokens.push({ type: 'literal', text, literal: { goType: 'uint64', value } });
  } else {
    // one past INT64_MAX is INT64_MIN's magnitude: the parser allows it only after a minus sign
    if (value > INT64_MAX + 1n) throw new CelSyntaxError('invalid int literal');
    tokens.push({ type: 'literal', text, literal: { goType: 'int64', value } });
  }
  return start + text.length;
}

/**
 * Reads a quoted string at `start` (the opening quote); decodes escapes unless raw. In bytes literals `\x` and
 * octal escapes are single bytes, everything else is UTF-8.
 */
function readString(src: string, start: number, bytes: boolean, raw: boolean, tokens: Token[]): number {
  const q = src[start]!;
  const triple = src.startsWith(q.repeat(3), start);
  const close = triple ? q.repeat(3) : q;
  let i = start + close.length;
  let out = '';
  const octets: number[] = [];
  const utf8 = (text: string) => {
    out += text;
    if (bytes) octets.push(...new TextEncoder().encode(text));
  };
  for (;;) {
    if (i >= src.length) throw recognitionError(src.slice(start - (raw ? 1 : 0) - (bytes ? 1 : 0)));
    if (src.startsWith(close, i)) break;
    const c = src[i]!;
    if (!triple && (c === '\n' || c === '\r')) throw recognitionError(src.slice(start, i + 1));
    if (c === '\\' && raw) {
      utf8(src.slice(i, i + 2));
      i += 2;
    } else if (c === '\\') {
      const [decoded, next, byte] = readEscape(src, i);
      if (bytes && byte !== undefined) octets.push(byte);
      else utf8(decoded);
      i = next;
    } else {
      utf8(c);
      i++;
    }
  }
  const end = i + close.length;
  const text = src.slice(start, end);
  const literal: Literal = bytes ? { goType: '[]uint8', value: Uint8Array.from(octets) } : { goType: 'string', value: out };
  tokens.push({ type: 'literal', text, literal });
  return end;
}

/** One escape at `i` (the backslash): its text, the index after it, and the byte of a `\x` or octal escape. */
function readEscape(src: string, i: number): [text: string, next: number, byte?: number] {
  const e = src[i + 1] ?? '';
  if (SIMPLE_ESCAPES[e] !== undefined) return [SIMPLE_ESCAPES[e], i + 2];
  const hex = (n: number): number => {
    const h = src.slice(i + 2, i + 2 + n);
    if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(h)) throw recognitionError(src.slice(i, i + 2 + n));
    const cp = parseInt(h, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw recognitionError(src.slice(i, i + 2 + n));
    return cp;
  };
  if (e === 'x' || e === 'X') {
    const b = hex(2);
    return [String.fromCodePoint(b), i + 4, b];
  }
  if (e === 'u') return [String.fromCodePoint(hex(4)), i + 6];
  if (e === 'U') return [String.fromCodePoint(hex(8)), i + 10];
  const oct = src.slice(i + 1, i + 4);
  if (/^[0-3][0-7][0-7]$/.test(oct)) return [String.fromCodePoint(parseInt(oct, 8)), i + 4, parseInt(oct, 8)];
  throw recognitionError(src.slice(i, i + 2));
}
