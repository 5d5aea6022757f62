/**
 * The CEL expression syntax, parsed into the node kinds of cel-go's `common/ast` (never type-checked, never
 * evaluated, no macros), so that the shard selector walk rejects what it does not support with upstream's
 * messages. Hand-written: a full CEL library is not needed to parse, never evaluate, this one expression.
 */
import { EXCEEDED_MAX_DEPTH, MAX_NESTING_DEPTH } from '../codec/nesting.ts';
import { CelSyntaxError, INT64_MAX, tokenize } from './cel-lexer.ts';
import type { Literal, Token } from './cel-lexer.ts';

export { CelSyntaxError } from './cel-lexer.ts';
export type { Literal } from './cel-lexer.ts';

/** cel-go's ast.ExprKind numbers, which upstream prints with `%v` in its messages. */
export const EXPR_KIND = { call: 1, comprehension: 2, ident: 3, list: 4, literal: 5, map: 6, select: 7, struct: 8 } as const;

export type Expr =
  /** Functions are named as cel-go names them: `shardRange`, `_||_`, `_&&_`, `_==_`, `!_`, `_[_]`, `@in`, ... */
  | { kind: 'call'; fn: string; target?: Expr; args: Expr[] }
  | { kind: 'ident'; name: string }
  | { kind: 'select'; operand: Expr; field: string }
  | { kind: 'literal'; literal: Literal }
  | { kind: 'list'; elements: Expr[] }
  | { kind: 'map'; entries: [Expr, Expr][] }
  | { kind: 'struct'; typeName: string; fields: [string, Expr][] };

/** cel-go's default parser limits. */
const MAX_RECURSION_DEPTH = 250;
const MAX_CODE_POINTS = 100_000;

const RESERVED = new Set([
  'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package',
  'namespace', 'return', 'var', 'void', 'while',
]);
const RELATIONS: Record<string, string> = {
  '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_', '==': '_==_', '!=': '_!=_', in: '@in',
};
const ADDITIONS: Record<string, string> = { '+': '_+_', '-': '_-_' };
const MULTIPLICATIONS: Record<string, string> = { '*': '_*_', '/': '_/_', '%': '_%_' };

/** Recursive descent over CEL's precedence levels; operator calls are named as cel-go names them. */
class Parser {
  #pos = 0;
  #depth = 0;
  constructor(private readonly tokens: Token[]) {}

  parseAll(): Expr {
    const e = this.#expr();
    if (this.#peek().type !== 'eof') throw this.#mismatch('<EOF>');
    return e;
  }

  #peek(): Token {
    return this.tokens[this.#pos]!;
  }
  #next(): Token {
    return this.tokens[this.#pos++]!;
  }
  #at(text: string): boolean {
    const t = this.#peek();
    return t.type === 'punct' && t.text === text;
  }
  #accept(text: string): boolean {
    if (!this.#at(text)) return false;
    this.#pos++;
    return true;
  }
  #expect(text: string): void {
    if (!this.#accept(text)) throw this.#mismatch(`'${text}'`);
  }
  #mismatch(expecting: string): CelSyntaxError {
    const t = this.#peek();
    const shown = t.type === 'eof' ? '<EOF>' : `'${t.text}'`;
    return new CelSyntaxError(`Syntax error: mismatched input ${shown} expecting ${expecting}`);
  }

  #expr(): Expr {
    if (++this.#depth > MAX_RECURSION_DEPTH) {
      throw new CelSyntaxError(`expression recursion limit exceeded: ${MAX_RECURSION_DEPTH}`);
    }
    let e = this.#binary(0);
    if (this.#accept('?')) {
      const then = this.#binary(0);
      this.#expect(':');
      e = { kind: 'call', fn: '_?_:_', args: [e, then, this.#expr()] };
    }
    this.#depth--;
    return e;
  }

  /** Levels 0..4: ||, &&, relations, additions, multiplications; all left-associative. */
  #binary(level: number): Expr {
    if (level === 5) return this.#unary();
    let e = this.#binary(level + 1);
    for (;;) {
      const t = this.#peek();
      if (t.type !== 'punct') return e;
      const fn = binaryFunction(level, t.text);
      if (!fn) return e;
      this.#pos++;
      e = { kind: 'call', fn, args: [e, this.#binary(level + 1)] };
    }
  }

  #unary(): Expr {
    for (const op of ['!', '-']) {
      let n = 0;
      while (this.#at(op)) {
        // `-` directly before a number is part of the literal
        const following = this.tokens[this.#pos + 1]!;
        if (op === '-' && following.type === 'literal' && negate(following.literal)) break;
        this.#pos++;
        n++;
      }
      if (n > 0) {
        const operand = this.#member();
        return n % 2 === 0 ? operand : { kind: 'call', fn: op === '!' ? '!_' : '-_', args: [operand] };
      }
    }
    return this.#member();
  }

  #member(): Expr {
    let e = this.#primary();
    for (;;) {
      if (this.#accept('.')) {
        const t = this.#next();
        if (t.type !== 'ident') {
          this.#pos--;
          throw this.#mismatch('IDENTIFIER');
        }
        if (this.#accept('(')) e = { kind: 'call', fn: t.text, target: e, args: this.#list(')') };
        else e = { kind: 'select', operand: e, field: t.text };
      } else if (this.#accept('[')) {
        e = { kind: 'call', fn: '_[_]', args: [e, this.#expr()] };
        this.#expect(']');
      } else if (this.#at('{') && qualifiedName(e) !== undefined) {
        this.#pos++;
        e = { kind: 'struct', typeName: qualifiedName(e)!, fields: this.#fields() };
      } else {
        return e;
      }
    }
  }

  #primary(): Expr {
    const t = this.#next();
    if (t.type === 'literal') {
      if (t.literal.goType === 'int64' && t.literal.value > INT64_MAX) throw new CelSyntaxError('invalid int literal');
      return { kind: 'literal', literal: t.literal };
    }
    if (t.type === 'punct' && t.text === '-') {
      const lit = this.#next();
      const value = lit.type === 'literal' ? negate(lit.literal) : undefined;
      if (!value) {
        this.#pos -= 2;
        throw this.#mismatch('an expression');
      }
      return { kind: 'literal', literal: value };
    }
    if (t.type === 'ident' || (t.type === 'punct' && t.text === '.')) {
      const dot = t.text === '.' ? '.' : '';
      const id = dot ? this.#next() : t;
      if (id.type !== 'ident') {
        this.#pos--;
        throw this.#mismatch('IDENTIFIER');
      }
      if (RESERVED.has(id.text)) throw new CelSyntaxError(`reserved identifier: ${id.text}`);
      const name = dot + id.text;
      if (this.#accept('(')) return { kind: 'call', fn: name, args: this.#list(')') };
      return { kind: 'ident', name };
    }
    if (t.type === 'punct' && t.text === '(') {
      const e = this.#expr();
      this.#expect(')');
      return e;
    }
    if (t.type === 'punct' && t.text === '[') return { kind: 'list', elements: this.#list(']') };
    if (t.type === 'punct' && t.text === '{') {
      const entries: [Expr, Expr][] = [];
      while (!this.#accept('}')) {
        const k = this.#expr();
        this.#expect(':');
        entries.push([k, this.#expr()]);
        if (!this.#accept(',')) {
          this.#expect('}');
          break;
        }
      }
      return { kind: 'map', entries };
    }
    this.#pos--;
    throw this.#mismatch('an expression');
  }

  /** Comma-separated expressions up to `close` (a trailing comma is allowed in list literals only). */
  #list(close: string): Expr[] {
    const out: Expr[] = [];
    if (this.#accept(close)) return out;
    for (;;) {
      out.push(this.#expr());
      if (this.#accept(close)) return out;
      if (!this.#accept(',')) throw this.#mismatch(`{'${close}', ','}`);
      if (close === ']' && this.#accept(']')) return out;
    }
  }

  #fields(): [string, Expr][] {
    const out: [string, Expr][] = [];
    while (!this.#accept('}')) {
      const name = this.#next();
      if (name.type !== 'ident') {
        this.#pos--;
        throw this.#mismatch('IDENTIFIER');
      }
      this.#expect(':');
      out.push([name.text, this.#expr()]);
      if (!this.#accept(',')) {
        this.#expect('}');
        break;
      }
    }
    return out;
  }
}

function binaryFunction(level: number, op: string): string | undefined {
  switch (level) {
    case 0: return op === '||' ? '_||_' : undefined;
    case 1: return op === '&&' ? '_&&_' : undefined;
    case 2: return RELATIONS[op];
    case 3: return ADDITIONS[op];
    default: return MULTIPLICATIONS[op];
  }
}

/** `a.b.c` of an ident/select chain (a message type name before `{`), else undefined. */
function qualifiedName(e: Expr): string | undefined {
  if (e.kind === 'ident') return e.name;
  if (e.kind === 'select') {
    const base = qualifiedName(e.operand);
    return base === undefined ? undefined : `${base}.${e.field}`;
  }
  return undefined;
}

/** The literal with CEL's leading minus folded in; undefined where CEL allows no sign (uint, string, ...). */
function negate(l: Literal): Literal | undefined {
  if (l.goType === 'int64') return { goType: 'int64', value: -l.value };
  if (l.goType === 'float64') return { goType: 'float64', value: -l.value };
  return undefined;
}

/** Parses one CEL expression. Throws CelSyntaxError with a cel-go style message. */
export function parseCel(src: string): Expr {
  const codePoints = [...src].length;
  if (codePoints > MAX_CODE_POINTS) {
    throw new CelSyntaxError(`expression code point size exceeds limit: size: ${codePoints}, limit ${MAX_CODE_POINTS}`);
  }
  if (nestingBound(src) > MAX_NESTING_DEPTH) throw new CelSyntaxError(`expression ${EXCEEDED_MAX_DEPTH}`);
  return new Parser(tokenize(src)).parseAll();
}

/**
 * A bound of the parser's recursion, counted without parsing: open brackets, plus every `?` (a conditional nests
 * without brackets). Characters inside string literals count too, which only errs on the safe side. cel-go's own
 * limit of 250 levels would let this parser, at ~10 frames a level, use half of V8's stack (nesting.ts).
 */
function nestingBound(src: string): number {
  let open = 0;
  let max = 0;
  let conditionals = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (c === 40 || c === 91 || c === 123) max = Math.max(max, ++open);
    else if (c === 41 || c === 93 || c === 125) open--;
    else if (c === 63) conditionals++;
  }
  return max + conditionals;
}
