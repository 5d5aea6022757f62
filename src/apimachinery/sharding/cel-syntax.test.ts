import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CelSyntaxError, parseCel } from './cel-syntax.ts';
import type { Expr } from './cel-syntax.ts';

/** A compact rendering of the tree: calls as fn(args), member calls as target.fn(args). */
function show(e: Expr): string {
  switch (e.kind) {
    case 'call': return `${e.target ? show(e.target) + '.' : ''}${e.fn}(${e.args.map(show).join(', ')})`;
    case 'ident': return e.name;
    case 'select': return `${show(e.operand)}.${e.field}`;
    case 'list': return `[${e.elements.map(show).join(', ')}]`;
    case 'map': return `{${e.entries.map(([k, v]) => `${show(k)}: ${show(v)}`).join(', ')}}`;
    case 'struct': return `${e.typeName}{${e.fields.map(([k, v]) => `${k}: ${show(v)}`).join(', ')}}`;
    case 'literal': {
      const l = e.literal;
      if (l.goType === 'string') return JSON.stringify(l.value);
      if (l.goType === '[]uint8') return `b[${[...l.value].join(' ')}]`;
      return `${String(l.value)}:${l.goType}`;
    }
  }
}

describe('parseCel: trees named as cel-go names them', () => {
  const cases: [string, string][] = [
    ["shardRange(object.metadata.uid, '0x0', \"0x1\")", 'shardRange(object.metadata.uid, "0x0", "0x1")'],
    ['a || b || c', '_||_(_||_(a, b), c)'],
    ['a || b && c', '_||_(a, _&&_(b, c))'],
    ['(a || b) && c', '_&&_(_||_(a, b), c)'],
    ['((a))', 'a'],
    ['a == b || c < d', '_||_(_==_(a, b), _<_(c, d))'],
    ['a in [1, 2,]', '@in(a, [1:int64, 2:int64])'],
    ['a + b * c - d % e / f', '_-_(_+_(a, _*_(b, c)), _/_(_%_(d, e), f))'],
    ['!a', '!_(a)'],
    ['!!a', 'a'],
    ['-a', '-_(a)'],
    ['-1', '-1:int64'],
    ['- 2.5e1', '-25:float64'],
    ['-9223372036854775808', '-9223372036854775808:int64'],
    ['1u', '1:uint64'],
    ['0xffu', '255:uint64'],
    ['.5', '0.5:float64'],
    ['true != null', '_!=_(true:bool, null:structpb.NullValue)'],
    ['a ? b : c ? d : e', '_?_:_(a, b, _?_:_(c, d, e))'],
    ['a[0].b', '_[_](a, 0:int64).b'],
    ['x.f(1, y)', 'x.f(1:int64, y)'],
    ['.a.b', '.a.b'],
    ['.f()', '.f()'],
    ['{1: "x"}', '{1:int64: "x"}'],
    ['a.B{c: 1}', 'a.B{c: 1:int64}'],
    ['a // comment\n || b', '_||_(a, b)'],
    [String.raw`'\x41\u00e9\101\n\'' + r'\n'`, String.raw`_+_("AéA\n'", "\\n")`],
    ['"""x"\ny""" + \'\'\'z\'w\'\'\'', String.raw`_+_("x\"\ny", "z'w")`],
    [String.raw`b'\xff\377\u00e9' + B"é"`, '_+_(b[255 255 195 169], b[195 169])'],
  ];
  for (const [src, want] of cases) it(src, () => assert.equal(show(parseCel(src)), want));
});

describe('parseCel: syntax errors', () => {
  const cases: [string, string][] = [
    ['shardRange(', "Syntax error: mismatched input <EOF> expecting an expression"],
    ['a b', "Syntax error: mismatched input 'b' expecting <EOF>"],
    ['(a', "Syntax error: mismatched input <EOF> expecting ')'"],
    ['f(a b)', "Syntax error: mismatched input 'b' expecting {')', ','}"],
    ['a.1', "Syntax error: mismatched input '.1' expecting <EOF>"],
    ['a. ', 'Syntax error: mismatched input <EOF> expecting IDENTIFIER'],
    ['a & b', "Syntax error: token recognition error at: '&'"],
    ['a = b', "Syntax error: token recognition error at: '='"],
    ['a # b', "Syntax error: token recognition error at: '#'"],
    ["'abc", "Syntax error: token recognition error at: ''abc'"],
    ["'a\nb'", "Syntax error: token recognition error at: ''a\n'"],
    ["'\\q'", "Syntax error: token recognition error at: '\\q'"],
    ['if', 'reserved identifier: if'],
    ['9223372036854775808', 'invalid int literal'],
    ['18446744073709551616u', 'invalid uint literal'],
    ['-', 'Syntax error: mismatched input <EOF> expecting an expression'],
    ['!-a', "Syntax error: mismatched input '-' expecting an expression"],
    // Refused by the nesting scan before the parser recurses (nesting.ts), below cel-go's own 250.
    ['('.repeat(101) + 'a' + ')'.repeat(101), 'expression exceeded max depth of 100'],
    ['['.repeat(60) + '{'.repeat(41), 'expression exceeded max depth of 100'],
    ['a ? b : '.repeat(101) + 'c', 'expression exceeded max depth of 100'],
    ['a'.repeat(100_001), 'expression code point size exceeds limit: size: 100001, limit 100000'],
  ];
  it('parses an expression nested exactly at the limit', () => {
    assert.equal(parseCel('('.repeat(100) + 'a' + ')'.repeat(100)).kind, 'ident');
    assert.equal(parseCel('a ? b : '.repeat(100) + 'c').kind, 'call');
  });
  for (const [src, message] of cases) {
    it(JSON.stringify(src.slice(0, 40)), () => assert.throws(() => parseCel(src), (e: unknown) => {
      assert.ok(e instanceof CelSyntaxError);
      assert.equal(e.message, message);
      return true;
    }));
  }
});
